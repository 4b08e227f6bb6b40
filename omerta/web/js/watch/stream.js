// The delayed stream of a table, #/stream/<id> (and its OBS overlay,
// #/stream/<id>/overlay): every role and night action, each moment only
// once the table's delay has passed (the server holds it back; docs/api.md,
// "Watching").

import { ApiError, get } from "../api.js";
import { h, mount, remount } from "../dom.js";
import { t } from "../i18n.js";
import { TO_ONE_SEAT, board } from "../replay/board.js";
import { clockTime, tell } from "../table/story.js";

const RETRY_MS = 2000;

export function streamHref(tableId, overlay = false) {
  return `#/stream/${tableId}${overlay ? "/overlay" : ""}`;
}

/** Reads the stream: `onView(view, receivedAt)`, `onEvent(event)`,
 * `onReset(delay)` on each (re)connection, `onEnd(text)` when it is over
 * or refused. Returns a function that stops it. */
function follow(tableId, { onView, onEvent, onReset, onEnd }) {
  let socket = null;
  let stopped = false;
  let retry = null;
  function open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}/api/tables/${tableId}/stream`);
    socket.onmessage = (message) => {
      const data = JSON.parse(message.data);
      if (data.type === "stream") onReset(data.delay);
      else if (data.type === "event") onEvent(data.event);
      else if (data.type === "view") onView(data.view, data.now, performance.now());
    };
    socket.onclose = (closed) => {
      if (stopped) return;
      if (closed.code === 1000) onEnd(t("watch.stream_over"));
      else retry = setTimeout(open, RETRY_MS);   // the server restarts or the link broke
    };
  }
  open();
  return () => {
    stopped = true;
    clearTimeout(retry);
    if (socket) socket.close();
  };
}

async function tableOf(root, id) {
  try {
    return (await get(`/api/tables/${Number(id)}`)).table;
  } catch (error) {
    mount(root, h("p.card", {}, error instanceof ApiError && error.status === 404 ? t("table.not_found") : t("error.unexpected")));
    return null;
  }
}

function namesOf(table) {
  return { names: Object.fromEntries(table.seats.map((s) => [s.seat, s.bot ? t("lobby.bot") : s.user])) };
}

export async function renderStream(root, id) {
  const table = await tableOf(root, id);
  if (!table) return null;
  const game = namesOf(table);
  const status = h("p.stream-status", {}, t("watch.stream_waiting"));
  const scene = h("div.stream-scene");
  const log = h("ol.log.replay-log");
  mount(root, h("section.stream", { dataset: { table: String(table.id) } },
    h("header.stream-head", {}, h("h1", {}, t("watch.stream_title", { table: table.id })),
      h("a.button", { href: streamHref(table.id, true) }, t("watch.overlay"))),
    status,
    h("div.replay-main", {}, scene, h("aside.replay-side", {}, h("h3", {}, t("table.log")), log))));
  return follow(table.id, {
    onReset: (delay) => {
      status.textContent = t("watch.stream_delay", { delay });
      log.replaceChildren();
    },
    onEvent: (event) => {
      const text = TO_ONE_SEAT.includes(event.event) ? null : tell(event, game);
      if (!text) return;
      log.append(h("li", { dataset: { event: event.event } }, h("time", {}, clockTime(event.t)), text));
      log.scrollTop = log.scrollHeight;
    },
    onView: (view) => remount(scene, board(game, view)),
    onEnd: (text) => { status.textContent = text; },
  });
}

/** The OBS overlay: 1920x1080 on a transparent page, seats, roles, votes and the clock. */
export async function renderOverlay(root, id) {
  const table = await tableOf(root, id);
  if (!table) return null;
  document.documentElement.classList.add("overlay");
  document.body.classList.add("overlay");
  const game = namesOf(table);
  const timer = h("div.overlay-timer", { hidden: true });
  const scene = h("div.stream-scene");
  mount(root, h("div.overlay-frame", { dataset: { table: String(table.id) } }, timer, scene));
  let shown = null;
  const tick = setInterval(() => {
    if (!shown || shown.view.deadline == null || shown.view.winner) {
      timer.hidden = true;
      return;
    }
    const left = shown.view.deadline - shown.now - (performance.now() - shown.at) / 1000;
    timer.hidden = false;
    timer.textContent = clockTime(Math.max(0, left));
  }, 250);
  const stop = follow(table.id, {
    onReset: () => {},
    onEvent: () => {},
    onView: (view, now, at) => {
      shown = { view, now, at };
      remount(scene, board(game, view));
    },
    onEnd: () => {},
  });
  return () => {
    stop();
    clearInterval(tick);
    document.documentElement.classList.remove("overlay");
    document.body.classList.remove("overlay");
  };
}
