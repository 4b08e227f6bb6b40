// The replay viewer, #/games/<id>/replay[?seat=N&at=SECONDS]: a finished
// game's record told again step by step (GET /api/games/<id>/replay): a
// timeline to scrub, play and pause at 1x to 16x, the table as one seat
// saw it or in full, and the events up to the cursor.

import { ApiError, get } from "../api.js";
import { h, mount, remount } from "../dom.js";
import { t } from "../i18n.js";
import { clockTime, tell } from "../table/story.js";
import { seatLabel } from "../table/words.js";
import { TO_ONE_SEAT, board } from "./board.js";
import { SPEEDS, Timeline, frameAt } from "./timeline.js";

/** The events marked on the timeline. */
const MARKED = ["left", "tech_call"];

export function replayHref(gameId, { seat = null, at = null } = {}) {
  const query = new URLSearchParams();
  if (seat != null) query.set("seat", String(seat));
  if (at != null) query.set("at", String(at));
  const rest = query.toString();
  return `#/games/${gameId}/replay${rest ? `?${rest}` : ""}`;
}

export async function renderReplay(root, id, query = "") {
  const params = new URLSearchParams(query || "");
  const seat = params.get("seat") ? Number(params.get("seat")) : null;
  let replay;
  try {
    replay = (await get(`/api/games/${Number(id)}/replay${seat ? `?seat=${seat}` : ""}`)).replay;
  } catch (error) {
    mount(root, h("p.card", {}, error instanceof ApiError && [400, 404].includes(error.status) ? t("replay.not_found") : t("error.unexpected")));
    return null;
  }
  const game = { names: Object.fromEntries(replay.seats.map((s) => [s.seat, s.bot ? t("lobby.bot") : s.user])) };
  const { frames, events } = replay;
  const end = frames[frames.length - 1].t;

  const slider = h("input.replay-scrub", { type: "range", min: "0", max: String(end), step: "0.1", value: "0",
    "aria-label": t("replay.scrub"), oninput: () => timeline.seek(Number(slider.value)) });
  const clock = h("span.replay-clock");
  const playButton = h("button.primary.replay-play", { type: "button", onclick: () => (timeline.playing ? timeline.pause() : timeline.play()) });
  const speed = h("select.replay-speed", { "aria-label": t("replay.speed"), onchange: () => { timeline.speed = Number(speed.value); } },
    SPEEDS.map((n) => h("option", { value: String(n) }, `${n}×`)));
  const as = h("select.replay-as", { "aria-label": t("replay.as"),
    onchange: () => { location.hash = replayHref(replay.game, { seat: as.value ? Number(as.value) : null, at: Math.round(timeline.t) }); } },
  h("option", { value: "" }, t("replay.full")),
  replay.seats.map((s) => h("option", { value: String(s.seat), selected: s.seat === seat }, t("replay.as_seat", { seat: seatLabel(game, s.seat) }))));
  const step = (direction) => {
    const i = frameAt(frames, timeline.t) + direction;
    if (i >= 0 && i < frames.length) timeline.seek(frames[i].t);
  };
  // Departures and technical votes marked on the timeline: a click goes there.
  const marks = h("div.replay-marks", {}, events.filter((e) => MARKED.includes(e.event)).map((e) => h("button.replay-mark", {
    type: "button", class: e.event === "left" ? "left" : "tech", title: tell(e, game),
    "aria-label": `${clockTime(e.t)} ${tell(e, game)}`, style: `left: ${end ? (100 * e.t) / end : 0}%`,
    dataset: { t: String(e.t) }, onclick: () => timeline.seek(e.t),
  })));
  const table = h("div.replay-board");
  const departures = h("ol.replay-departures", { dataset: { departures: "" } });
  const log = h("ol.log.replay-log");

  mount(root, h("section.replay", { dataset: { game: String(replay.game) } },
    h("header.replay-head", {},
      h("h1", {}, t("replay.title", { game: replay.game })),
      h("a.button", { href: `#/games/${replay.game}` }, t("replay.game_page"))),
    h("div.replay-controls", {},
      h("button.replay-prev", { type: "button", "aria-label": t("replay.previous"), onclick: () => step(-1) }, "«"),
      playButton,
      h("button.replay-next", { type: "button", "aria-label": t("replay.next"), onclick: () => step(1) }, "»"),
      h("div.replay-track", {}, slider, marks), clock, speed, as),
    h("div.replay-main", {}, table,
      h("aside.replay-side", {}, h("h3", {}, t("replay.departures")), departures, h("h3", {}, t("table.log")), log))));

  let shownFrame = -1;
  let shownEvents = -1;
  function draw(now) {
    const i = frameAt(frames, now);
    slider.value = String(now);
    clock.textContent = `${clockTime(now)} / ${clockTime(end)}`;
    playButton.textContent = timeline.playing ? t("replay.pause") : t("replay.play");
    if (i === shownFrame) return;
    shownFrame = i;
    remount(table, board(game, frames[i].view));
    const count = frames[i].events;
    if (count === shownEvents) return;
    shownEvents = count;
    const seen = events.slice(0, count);
    remount(departures, seen.filter((e) => e.event === "left").map((e) => h("li", { dataset: { seat: String(e.seat), cause: e.cause } }, tell(e, game))));
    // In full, "Your card" lines would name the wrong "you": the board shows every role.
    const told = seat == null ? seen.filter((e) => !TO_ONE_SEAT.includes(e.event)) : seen;
    log.replaceChildren(...told.map((e) => [e, tell(e, game)]).filter(([, text]) => text)
      .map(([e, text]) => h("li", {}, h("time", {}, clockTime(e.t)), text)));
    log.scrollTop = log.scrollHeight;
  }
  const timeline = new Timeline(end, draw);
  timeline.seek(params.has("at") ? Number(params.get("at")) || 0 : 0);
  return () => timeline.pause();
}
