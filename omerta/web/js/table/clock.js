// The countdowns: the phase (or speech) clock, and beside it the clock of
// an interjection or a technical vote. Game seconds, from the server's
// deadlines; a technical vote freezes every other clock (T2).

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { clockTime } from "./story.js";
import { seatLabel } from "./words.js";

export class Clocks {
  constructor(game) {
    this.game = game;
    this.main = h("div.clock", { role: "timer" });
    this.side = h("div.side-clock");
    this.root = h("div.clocks", {}, this.side, this.main);
  }

  tick() {
    const { game } = this;
    const view = game.view;
    if (!view || view.deadline == null) {
      this.main.textContent = "";
    } else {
      // Frozen during a technical vote: what was left when it was called.
      const left = view.tech ? Math.max(0, view.deadline - game.clock.now) : game.until(view.deadline);
      this.main.textContent = clockTime(Math.ceil(left));
      this.main.classList.toggle("urgent", !view.tech && left <= 5);
      this.main.classList.toggle("paused", Boolean(view.tech));
    }
    let side = "";
    if (view?.tech) side = t("clock.tech", { time: clockTime(Math.ceil(game.until(view.tech.end))) });
    else if (view?.interjector != null && view.interjection_end != null) {
      side = t("clock.interjection", { seat: seatLabel(game, view.interjector), time: clockTime(Math.ceil(game.until(view.interjection_end))) });
    }
    this.side.textContent = side;
  }
}
