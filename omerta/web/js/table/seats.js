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

/** A bot's tile shows a bot, not an empty camera. */
function botFace() {
  const face = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  face.setAttribute("viewBox", "0 0 48 48");
  face.setAttribute("class", "bot-face");
  face.setAttribute("aria-hidden", "true");
  face.innerHTML = '<line x1="24" y1="4" x2="24" y2="11"/><circle cx="24" cy="4" r="2.5"/>'
    + '<rect x="8" y="11" width="32" height="26" rx="7"/><circle cx="17" cy="23" r="3.5" class="eye"/>'
    + '<circle cx="31" cy="23" r="3.5" class="eye"/><line x1="17" y1="31" x2="31" y2="31"/>';
  return face;
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
      fouls: h("span.fouls", { title: t("table.fouls"), hidden: true }),
      interjections: h("span.interjections"),
      away: h("span.away-badge", { hidden: true }, t("table.away")),
      out: h("div.tile-out"),
      live: h("span.live", { title: t("table.live") }, t("table.live")),
      action: h("div.tile-action"),
      noteMark: h("span.note-mark", { hidden: !note.value.trim(), title: t("table.has_note") }, "✎"),
    };
    const noteButton = h("button.note-btn", { type: "button", title: t("table.note_button"), "aria-label": t("table.note_button"),
      onclick: (e) => { e.stopPropagation(); notePanel.hidden = !notePanel.hidden; if (!notePanel.hidden) note.focus(); } }, "✎");
    const act = () => { if (refs.root.classList.contains("target")) this.pick(seat); };
    // Every tile is reached with Tab; Enter or Space clicks it when it is a target.
    refs.root = h("div.tile", { dataset: { seat: String(seat) }, tabindex: "0", onclick: act,
      onkeydown: (e) => { if (e.target === refs.root && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); e.stopPropagation(); act(); } } },
      video,
      h("div.tile-placeholder", {}, String(seat)),
      h("div.bot-tile", {}, botFace(), h("span", {}, t("lobby.bot"))),
      h("div.tile-head", {}, refs.number, refs.live, refs.secret, h("span.grow"), refs.away, refs.noteMark),
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
  update(view, { live, visible, marks, targets, actionLabel, causes, away = new Set() }) {
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
      tile.fouls.hidden = !info.fouls;
      tile.fouls.textContent = t("table.fouls_badge", { count: info.fouls });
      tile.fouls.title = t("table.fouls_count", { count: info.fouls });
      root.classList.toggle("away", away.has(info.seat));
      tile.away.hidden = !away.has(info.seat);
      tile.interjections.replaceChildren(...dots(info.interjections, 3, "pip"));
      tile.interjections.title = t("table.interjections_left", { count: info.interjections });
      tile.out.textContent = info.alive ? "" : t(`table.out.${causes[info.seat] || "unknown"}`);
      const secret = [];
      if (info.role) secret.push(h(`span.role-badge.${teamOf(info.role)}`, {}, roleName(info.role)));
      const check = view.checks[String(info.seat)];
      if (check) secret.push(h(`span.check-badge.${check}`, {}, t(`check.${check}`)));
      tile.secret.replaceChildren(...secret);
      tile.marks.replaceChildren(...(marks[info.seat] || []).map((mark) => h("span.mark", { class: mark.secret ? "secret" : "" }, mark.text)));
      const described = [seatLabel(this.game, info.seat)];
      if (!info.alive) described.push(tile.out.textContent);
      if (targets.has(info.seat)) described.push(actionLabel);
      tile.root.setAttribute("aria-label", described.join(", "));
      tile.root.setAttribute("role", targets.has(info.seat) ? "button" : "group");
    }
  }
}
