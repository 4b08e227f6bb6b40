// The seat tiles around the table: video, seat number, player, alive or
// out, fouls, interjections left, who is live, and the marks of the moment
// (nominated, votes, night choices). Tiles are built once, updated in place,
// so videos keep playing.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { notesFor, setNote, setVolume, volumeOf } from "./prefs.js";
import { isNight, roleName, seatLabel, teamOf } from "./words.js";

function dots(count, max, className) {
  return Array.from({ length: max }, (_, i) => h(`span.${className}${i < count ? ".on" : ""}`));
}

export class SeatTiles {
  /** `pick(seat)` runs when a tile is clicked while it is a target. */
  constructor(game, pick) {
    this.game = game;
    this.pick = pick;
    this.tiles = new Map();
    this.visible = new Set();     // seats whose video reaches us now (the gate)
    this.top = h("div.ring-row.top");
    this.bottom = h("div.ring-row.bottom");
  }

  /** Seats 1..n clockwise: the first half across the top, the rest back along the bottom. */
  build(seats) {
    const half = Math.ceil(seats.length / 2);
    for (const seat of seats) {
      const tile = this.tile(seat);
      this.tiles.set(seat, tile);
      (seat <= half ? this.top : this.bottom).append(tile.root);
    }
  }

  tile(seat) {
    const name = this.game.names[seat] || "";
    const video = h("video.tile-video", { autoplay: true, playsInline: true, muted: true });
    const note = h("textarea.note", { rows: 3, placeholder: t("table.note_placeholder"), "aria-label": t("table.note_label", { seat }) });
    note.value = notesFor(this.game.tableId)[seat] || "";
    note.addEventListener("input", () => { setNote(this.game.tableId, seat, note.value); refs.noteMark.hidden = !note.value.trim(); });
    note.addEventListener("click", (e) => e.stopPropagation());
    const volume = h("input.volume", { type: "range", min: "0", max: "1", step: "0.05", value: String(volumeOf(name)),
      "aria-label": t("table.volume", { seat }), onclick: (e) => e.stopPropagation(),
      oninput: (e) => { setVolume(name, Number(e.target.value)); video.volume = Number(e.target.value); } });
    const notePanel = h("div.note-panel", { hidden: true }, note);
    const refs = {
      seat,
      video,
      volume,
      number: h("span.seat-no", {}, String(seat)),
      name: h("span.name", {}, name || t("seat.empty")),
      secret: h("span.secret"),
      marks: h("div.tile-marks"),
      fouls: h("span.fouls", { title: t("table.fouls") }),
      interjections: h("span.interjections"),
      out: h("div.tile-out"),
      live: h("span.live", { title: t("table.live") }, t("table.live")),
      action: h("div.tile-action"),
      noteMark: h("span.note-mark", { hidden: !note.value.trim(), title: t("table.has_note") }, "✎"),
    };
    const noteButton = h("button.note-btn", { type: "button", title: t("table.note_button"), "aria-label": t("table.note_button"),
      onclick: (e) => { e.stopPropagation(); notePanel.hidden = !notePanel.hidden; if (!notePanel.hidden) note.focus(); } }, "✎");
    refs.root = h("div.tile", { dataset: { seat: String(seat) }, onclick: () => { if (refs.root.classList.contains("target")) this.pick(seat); } },
      video,
      h("div.tile-placeholder", {}, String(seat)),
      h("div.tile-head", {}, refs.number, refs.live, refs.secret, h("span.grow"), refs.noteMark),
      refs.marks,
      refs.out,
      refs.action,
      h("div.tile-foot", {}, refs.name, refs.fouls, refs.interjections),
      h("div.tile-tools", {}, this.game.names[seat] ? volume : null, noteButton),
      notePanel);
    return refs;
  }

  /** Show `stream` on `seat`'s tile; the promise fails when the browser
   * will not play sound before the player interacts with the page. */
  setStream(seat, stream, local = false) {
    const tile = this.tiles.get(seat);
    if (!tile || tile.video.srcObject === stream) return Promise.resolve();
    tile.video.srcObject = stream;
    tile.video.muted = local;
    tile.root.classList.toggle("video-on", this.visible.has(seat));
    if (!local) tile.video.volume = Number(tile.volume.value);
    return tile.video.play();
  }

  playAll() {
    for (const tile of this.tiles.values()) if (tile.video.srcObject) tile.video.play().catch(() => {});
  }

  /** `marks`: seat -> [{text, secret}]; `targets`: seats a click acts on, with `actionLabel`. */
  update(view, { live, visible, marks, targets, actionLabel, causes }) {
    const me = view.seat;
    this.visible = visible;
    for (const info of view.seats) {
      const tile = this.tiles.get(info.seat);
      if (!tile) continue;
      const root = tile.root;
      root.classList.toggle("me", info.seat === me);
      root.classList.toggle("out", !info.alive);
      root.classList.toggle("bot", info.bot);
      root.classList.toggle("speaker", info.seat === view.speaker);
      root.classList.toggle("interjector", info.seat === view.interjector);
      root.classList.toggle("nominee", !isNight(view) && view.nominees.includes(info.seat));
      root.classList.toggle("speaking", live.has(info.seat));
      root.classList.toggle("video-on", visible.has(info.seat) && Boolean(tile.video.srcObject));
      root.classList.toggle("target", targets.has(info.seat));
      tile.action.textContent = targets.has(info.seat) ? actionLabel : "";
      tile.fouls.replaceChildren(...dots(info.fouls, info.fouls, "foul"));
      tile.fouls.title = t("table.fouls_count", { count: info.fouls });
      tile.interjections.replaceChildren(...dots(info.interjections, 3, "pip"));
      tile.interjections.title = t("table.interjections_left", { count: info.interjections });
      tile.out.textContent = info.alive ? "" : t(`table.out.${causes[info.seat] || "unknown"}`);
      const secret = [];
      if (info.role) secret.push(h(`span.role-badge.${teamOf(info.role)}`, {}, roleName(info.role)));
      const check = view.checks[String(info.seat)];
      if (check) secret.push(h(`span.check-badge.${check}`, {}, t(`check.${check}`)));
      tile.secret.replaceChildren(...secret);
      tile.marks.replaceChildren(...(marks[info.seat] || []).map((mark) => h("span.mark", { class: mark.secret ? "secret" : "" }, mark.text)));
      tile.root.setAttribute("aria-label", seatLabel(this.game, info.seat));
    }
  }
}
