// Your card, face down. It shows only while you hold the button (or the
// C key): a glance, not a display. Holding also shows what only you may
// know (your team, your checks), which the tiles keep hidden otherwise.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { roleName, teamOf } from "./words.js";

export class HiddenCard {
  constructor() {
    this.role = null;
    this.face = h("span.card-face");
    this.button = h("button.card-hold", { type: "button", "aria-label": t("card.hold") },
      h("span.card-back", {}, t("card.hold")), this.face);
    this.button.addEventListener("pointerdown", (e) => { e.preventDefault(); this.peek(true); });
    for (const stop of ["pointerup", "pointerleave", "pointercancel", "blur"]) this.button.addEventListener(stop, () => this.peek(false));
    this.button.addEventListener("keydown", (e) => { if (e.key === " " || e.key === "Enter") { e.preventDefault(); this.peek(true); } });
    this.button.addEventListener("keyup", (e) => { if (e.key === " " || e.key === "Enter") this.peek(false); });
    this.root = h("div.card-slot", {}, this.button, h("small.hint", {}, t("card.shortcut")));
  }

  setRole(role) {
    this.role = role;
    this.root.hidden = !role;
    this.face.className = `card-face ${role ? teamOf(role) : ""}`;
    this.face.textContent = role ? roleName(role) : "";
  }

  peek(on) {
    document.body.classList.toggle("peek", on && Boolean(this.role));
  }
}
