// The table page: wires the socket, the game record, the tiles, the middle
// panel, the card, the clocks, the log, cues, shortcuts and media together.

import { ApiError, get } from "../api.js";
import { h, mount, remount } from "../dom.js";
import { t } from "../i18n.js";
import { MediaPeer } from "../media/peer.js";
import { showMediaStatus, showUplink } from "../media/status.js";
import { hide as hideNotice, notify } from "../notice.js";
import { refusalText } from "../refusal.js";
import { me } from "../session.js";
import { HiddenCard } from "./card.js";
import { Clocks } from "./clock.js";
import { cue } from "./cues.js";
import { renderEnd } from "./end.js";
import { Game } from "./game.js";
import { tileMarks } from "./marks.js";
import { SeatTiles } from "./seats.js";
import { bindShortcuts, shortcutList } from "./shortcuts.js";
import { TableSocket } from "./socket.js";
import { renderStage } from "./stage.js";
import { clockTime, isSecret, tell } from "./story.js";
import { targetAction, targetsFor } from "./targets.js";
import { waitForStart } from "./waiting.js";
import { streamHref } from "../watch/stream.js";
import { isNight, phaseTitle, seatLabel } from "./words.js";

const VOTE_PHASES = ["vote", "revote", "lift"];
/** A seat's number key acts only after this long, or at once on Enter;
 * Escape takes it back: a key pressed by mistake is not a nomination. */
const KEY_UNDO_MS = 2500;

function openGame(table) {
  const user = me();
  const game = new Game(table.id, user && user.username);
  game.names = Object.fromEntries(table.seats.map((seat) => [seat.seat, seat.bot ? t("lobby.bot") : seat.user]));
  return game;
}

/** A finished game: the end screen from this browser's record, or a
 * summary; either way with the player's history entry of it, if any. */
function showFinished(root, table, game) {
  return renderEnd(root, table, game);
}

export async function renderTable(root, id) {
  let table;
  try {
    table = (await get(`/api/tables/${Number(id)}`)).table;
  } catch (error) {
    mount(root, h("p.card", {}, error instanceof ApiError && error.status === 404 ? t("table.not_found") : t("error.unexpected")));
    return null;
  }
  // A table anyone may watch opens to visitors who are not signed in (docs/api.md, "Watching").
  if (!me() && !(table.status !== "open" && table.watch?.spectators === "anyone")) {
    mount(root, h("div.card.waiting", {}, h("p", {}, t("table.sign_in")), h("a.button.primary", { href: "#/signin" }, t("header.sign_in"))));
    return null;
  }
  if (table.status === "open") return waitForStart(root, table, () => renderTable(root, id));
  if (table.status !== "playing") return showFinished(root, table, openGame(table));
  return playTable(root, table);
}

function playTable(root, table) {
  const game = openGame(table);
  const tiles = new SeatTiles(game, (seat) => pick(seat));
  tiles.build(table.seats.map((seat) => seat.seat).sort((a, b) => a - b));
  const card = new HiddenCard();
  const clocks = new Clocks(game);
  const phase = h("h2.phase");
  const status = h("span.conn");
  const watching = h("span.spectator-count", { hidden: true, "aria-live": "polite" });
  const watchNote = h("p.spectator-note", { hidden: true }, t("watch.spectator"),
    table.watch?.stream ? [" ", h("a", { href: streamHref(table.id) }, t("watch.stream_link"))] : null);
  const body = h("div.stage-body");
  const actions = h("div.stage-actions");
  const log = h("ol.log", { "aria-live": "polite" });
  const help = h("details.help", {}, h("summary", {}, t("table.shortcuts")), shortcutList());
  const sound = h("button.sound", { type: "button", hidden: true, onclick: () => { tiles.playAll(); sound.hidden = true; } }, t("table.enable_sound"));
  mount(root, h("section.table-page", { dataset: { table: String(table.id) } },
    h("div.ring", {}, tiles.top,
      h("div.stage", {}, h("div.stage-head", {}, phase, clocks.root), body,
        h("div.stage-foot", {}, actions, card.root, sound, watching, status)),
      tiles.bottom),
    h("aside.side", {}, watchNote, h("h3", {}, t("table.log")), log, help)));

  const tech = { kind: null, choose(kind) { tech.kind = kind; render(); } };
  let live = false;               // cues only for what happens while we watch
  let lastActions = [];
  let ended = false;
  let previewing = false;
  let resynced = false;
  let present = null;             // seats connected, once the server says (null: unknown)

  const socket = new TableSocket(table.id, {
    last: () => game.last,
    receive,
    status: (state) => {
      status.className = `conn ${state}`;
      status.textContent = t(`table.connection.${state}`);
      clocks.root.classList.toggle("stale", state !== "open");
      if (state !== "open") live = false;
    },
    retry: stillPlaying,
  });
  const peer = new MediaPeer({
    send: (message) => socket.send(message),
    onStream: (seat, stream) => tiles.setStream(seat, stream).catch(() => { sound.hidden = false; }),
    // A spectator without video (a full table, a server that has none for
    // spectators) still watches: no alarm for that.
    onError: (text) => { if (game.seat != null) notify(text, "error"); },
    onStatus: (seats) => showMediaStatus(tiles, seats),
    onUplink: (weak) => showUplink(tiles, game.seat, weak),
  });

  /** After the socket closed: reconnect while the table is being played. */
  async function stillPlaying() {
    if (ended) return false;
    try {
      const { table: now } = await get(`/api/tables/${table.id}`);
      if (now.status === "playing") return true;
      end(now);
      return false;
    } catch {
      return true;        // the server is away: keep trying
    }
  }

  function end(current) {
    if (ended) return;
    ended = true;
    stop();
    hideNotice();
    showFinished(root, current, game);
  }

  function act(name, args = {}) {
    if (!socket.act(name, args)) notify(t("table.offline"), "error");
  }

  function pick(seat) {
    const view = game.view;
    if (!view) return;
    if (tech.kind) {
      act("tech_call", { kind: tech.kind, target: seat });
      tech.kind = null;
      return;
    }
    const action = targetAction(view);
    if (action && targetsFor(action, view).has(seat)) act(action, { target: seat });
  }

  /** A number key names a seat: the click on it waits for Enter, Escape
   * or KEY_UNDO_MS. */
  let pending = null;
  function keySeat(seat) {
    const view = game.view;
    if (!view) return;
    const action = tech.kind ? "tech_call" : targetAction(view);
    if (!action || !targetsFor(action, view).has(seat)) return;
    undoKey();
    pending = { seat, action, timer: setTimeout(confirmKey, KEY_UNDO_MS) };
    render();
  }
  function confirmKey() {
    if (!pending) return false;
    const { seat } = pending;
    undoKey();
    pick(seat);
    render();
    return true;
  }
  function undoKey() {
    if (!pending) return false;
    clearTimeout(pending.timer);
    pending = null;
    if (game.view) render();
    return true;
  }
  function pendingLine() {
    if (!pending) return null;
    return h("div.pending", { role: "status" },
      h("span", {}, t("stage.pending", { action: t(`target.${pending.action}`), seat: seatLabel(game, pending.seat) })),
      h("button.primary", { type: "button", dataset: { keep: "confirm" }, onclick: confirmKey }, t("stage.confirm"), h("kbd", {}, "Enter")),
      h("button", { type: "button", dataset: { keep: "undo" }, onclick: undoKey }, t("stage.undo"), h("kbd", {}, "Esc")));
  }

  function receive(message) {
    if (message.type === "hello") {
      game.setSeat(message.seat);
      peer.attach();   // a spectator's connection only receives (the server offers no send slot)
      watchNote.hidden = message.seat != null;
    } else if (message.type === "event") {
      const event = game.addEvent(message);
      if (event) {
        told(event);
        soon();
      }
    } else if (message.type === "view") {
      if (!game.setView(message) && !resynced) {
        resynced = true;            // events are missing here: fetch them all, once
        game.reset();
        log.replaceChildren();
        socket.send({ type: "resume", last: 0 });
        return;
      }
      render();
      live = true;
    } else if (message.type === "error") {
      // The answer of a server that knows no pings to ours: it still says the link is up.
      if (message.code === "unknown_type" && message.id == null) return;
      notify(refusalText(message), "error");
    } else if (message.type === "presence") {
      // The seats with a connection now: the other people away show so.
      present = new Set(message.connected);
      if (game.view) render();
    } else if (message.type === "spectators") {
      watching.hidden = !message.count;
      watching.textContent = t("watch.count", { count: message.count });
    } else if (message.type === "media") {
      peer.receive(message).catch((error) => console.error(error));
    }
  }

  function told(event) {
    const text = tell(event, game);
    if (text) {
      log.append(h("li", { class: isSecret(event) ? "secret" : "" }, h("time", {}, clockTime(event.t)), text));
      log.scrollTop = log.scrollHeight;
    }
    const mine = game.seat;
    if (!live || mine == null) return;
    if (event.event === "speech" && event.seat === mine) cue("your_speech", { kind: t(`speech_kind.${event.kind}`) });
    else if (event.event === "nominated" && event.target === mine) cue("nominated", { by: seatLabel(game, event.by) });
    else if (event.event === "tech_call") cue("tech_vote", { kind: t(`tech.${event.kind}`), target: seatLabel(game, event.target) });
  }

  function cueForView(view) {
    const fresh = view.actions.filter((name) => !lastActions.includes(name));
    lastActions = view.actions;
    if (!live) return;
    if (VOTE_PHASES.includes(view.phase) && (fresh.includes("vote") || fresh.includes("lift"))) cue("vote_open");
    else if (isNight(view) && fresh.length) cue("your_turn");
  }

  /** Events change what the tiles and the stage show (a card taken, a
   * teammate's shot) even when no new view follows: draw again once a
   * burst of them has arrived. */
  let redraw = null;
  function soon() {
    if (game.view && !redraw) redraw = setTimeout(render, 60);
  }

  function render() {
    clearTimeout(redraw);
    redraw = null;
    if (ended) return;
    const view = game.view;
    if (view.phase === "over") return end(table);
    document.body.classList.toggle("night", isNight(view));
    // While you act at night your team and its choices show without the
    // card key: the Mafia choose their target together.
    document.body.classList.toggle("acting", isNight(view) && view.actions.length > 0);
    if (tech.kind && !view.actions.includes("tech_call")) tech.kind = null;
    const action = tech.kind ? "tech_call" : targetAction(view);
    const targets = action ? targetsFor(action, view) : new Set();
    if (pending && (pending.action !== action || !targets.has(pending.seat))) {
      clearTimeout(pending.timer);
      pending = null;
    }
    const mine = view.seats.find((s) => s.seat === view.seat);
    const speaking = new Set(view.gate.audio);
    if (view.seat != null && (view.speaker === view.seat || view.interjector === view.seat)) speaking.add(view.seat);
    const visible = new Set(view.gate.video);
    if (view.seat != null) visible.add(view.seat);
    const causes = Object.fromEntries(game.list("left").map((e) => [e.seat, e.cause]));
    const { marks, counted } = tileMarks(game, view);
    const actionLabel = action ? t(`target.${action}`) : "";
    const away = new Set(present ? view.seats.filter((s) => !s.bot && !present.has(s.seat) && s.seat !== view.seat).map((s) => s.seat) : []);
    tiles.update(view, { live: speaking, visible, marks, targets, actionLabel, causes, away });
    phase.textContent = phaseTitle(view);
    card.setRole(mine?.role || null);
    const hint = action ? t("stage.click_hint", { action: actionLabel }) : view.seat == null ? t("stage.spectator") : null;
    const stage = renderStage({ game, view, act, tech, hint, lastVotes: counted, pending: pendingLine() });
    remount(body, ...stage.parts);
    remount(actions, stage.actions);
    cueForView(view);
    if (view.seat != null && !previewing) {
      previewing = true;
      peer.localMedia().then((stream) => tiles.setStream(view.seat, stream, true)).catch(() => {});
    }
  }

  function yesNo(yes) {
    const actions = game.view?.actions || [];
    if (actions.includes("tech_vote")) act("tech_vote", { yes });
    else if (actions.includes("lift")) act("lift", { yes });
  }

  // One tab plays a seat: a newer tab of the same account takes over, and
  // this one lets go of the socket and the camera and says where the game is.
  const tabs = typeof BroadcastChannel === "function" ? new BroadcastChannel(`omerta.table.${table.id}.${me()?.username}`) : null;
  if (tabs) {
    tabs.postMessage("claim");
    tabs.onmessage = (e) => {
      if (e.data !== "claim" || ended) return;
      ended = true;
      stop();
      hideNotice();
      mount(root, h("div.card.waiting.other-tab", {}, h("p", {}, t("table.other_tab")),
        h("button.primary", { type: "button", onclick: () => location.reload() }, t("table.play_here"))));
    };
  }

  for (const item of game.events) told(item.event);
  const ticker = setInterval(() => clocks.tick(), 200);
  const unbind = bindShortcuts({
    endSpeech: () => game.view?.actions.includes("end_speech") && act("end_speech"),
    interject: () => game.view?.actions.includes("interject") && act("interject"),
    seat: keySeat,
    confirm: confirmKey,
    undo: undoKey,
    yes: () => yesNo(true),
    no: () => yesNo(false),
    tech: () => { const menu = actions.querySelector("details.tech-menu"); if (menu) menu.open = !menu.open; },
    card: (held) => card.peek(held),
    help: () => { help.open = !help.open; },
  });

  function stop() {
    socket.close();
    peer.close();
    tabs?.close();
    clearInterval(ticker);
    clearTimeout(redraw);
    if (pending) clearTimeout(pending.timer);
    unbind();
    card.peek(false);
    document.body.classList.remove("night", "acting");
  }
  return () => { if (!ended) stop(); };
}
