// The table page: wires the socket, the game record, the tiles, the middle
// panel, the card, the clocks, the log, cues, shortcuts and media together.

import { ApiError, get } from "../api.js";
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { MediaPeer } from "../media/peer.js";
import { hide as hideNotice, notify } from "../notice.js";
import { me } from "../session.js";
import { HiddenCard } from "./card.js";
import { Clocks } from "./clock.js";
import { cue } from "./cues.js";
import { playedGame, renderEnd, renderSummary } from "./end.js";
import { Game } from "./game.js";
import { tileMarks } from "./marks.js";
import { SeatTiles } from "./seats.js";
import { bindShortcuts, shortcutList } from "./shortcuts.js";
import { TableSocket } from "./socket.js";
import { renderStage } from "./stage.js";
import { clockTime, isSecret, tell } from "./story.js";
import { targetAction, targetsFor } from "./targets.js";
import { waitForStart } from "./waiting.js";
import { isNight, phaseTitle, seatLabel } from "./words.js";

const VOTE_PHASES = ["vote", "revote", "lift"];

function openGame(table) {
  const user = me();
  const game = new Game(table.id, user && user.username);
  game.names = Object.fromEntries(table.seats.map((seat) => [seat.seat, seat.bot ? t("lobby.bot") : seat.user]));
  return game;
}

/** A finished game: the end screen from this browser's record, or a
 * summary; either way with the player's history entry of it, if any. */
async function showFinished(root, table, game) {
  const played = await playedGame(table);
  mount(root, game.over ? renderEnd(game, played) : renderSummary(played));
}

export async function renderTable(root, id) {
  let table;
  try {
    table = (await get(`/api/tables/${Number(id)}`)).table;
  } catch (error) {
    mount(root, h("p.card", {}, error instanceof ApiError && error.status === 404 ? t("table.not_found") : t("error.unexpected")));
    return null;
  }
  if (!me()) {
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
  const body = h("div.stage-body");
  const actions = h("div.stage-actions");
  const log = h("ol.log", { "aria-live": "polite" });
  const help = h("details.help", {}, h("summary", {}, t("table.shortcuts")), shortcutList());
  const sound = h("button.sound", { type: "button", hidden: true, onclick: () => { tiles.playAll(); sound.hidden = true; } }, t("table.enable_sound"));
  mount(root, h("section.table-page", { dataset: { table: String(table.id) } },
    h("div.ring", {}, tiles.top,
      h("div.stage", {}, h("div.stage-head", {}, phase, clocks.root), body,
        h("div.stage-foot", {}, actions, card.root, sound, status)),
      tiles.bottom),
    h("aside.side", {}, h("h3", {}, t("table.log")), log, help)));

  const tech = { kind: null, choose(kind) { tech.kind = kind; render(); } };
  let live = false;               // cues only for what happens while we watch
  let lastActions = [];
  let ended = false;
  let previewing = false;
  let resynced = false;

  const socket = new TableSocket(table.id, {
    last: () => game.last,
    receive,
    status: (state) => {
      status.className = `conn ${state}`;
      status.textContent = t(`table.connection.${state}`);
      if (state !== "open") live = false;
    },
    retry: stillPlaying,
  });
  const peer = new MediaPeer({
    send: (message) => socket.send(message),
    onStream: (seat, stream) => tiles.setStream(seat, stream).catch(() => { sound.hidden = false; }),
    onError: (text) => notify(text, "error"),
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

  function receive(message) {
    if (message.type === "hello") {
      game.setSeat(message.seat);
      if (message.seat != null) peer.attach();
    } else if (message.type === "event") {
      const event = game.addEvent(message);
      if (event) told(event);
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
      notify(message.rule ? t("error.with_rule", { error: message.error, rule: message.rule }) : message.error, "error");
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

  function render() {
    const view = game.view;
    if (view.phase === "over") return end(table);
    document.body.classList.toggle("night", isNight(view));
    if (tech.kind && !view.actions.includes("tech_call")) tech.kind = null;
    const action = tech.kind ? "tech_call" : targetAction(view);
    const targets = action ? targetsFor(action, view) : new Set();
    const mine = view.seats.find((s) => s.seat === view.seat);
    const speaking = new Set(view.gate.audio);
    if (view.seat != null && (view.speaker === view.seat || view.interjector === view.seat)) speaking.add(view.seat);
    const visible = new Set(view.gate.video);
    if (view.seat != null) visible.add(view.seat);
    const causes = Object.fromEntries(game.list("left").map((e) => [e.seat, e.cause]));
    const { marks, counted } = tileMarks(game, view);
    const actionLabel = action ? t(`target.${action}`) : "";
    tiles.update(view, { live: speaking, visible, marks, targets, actionLabel, causes });
    phase.textContent = phaseTitle(view);
    card.setRole(mine?.role || null);
    const hint = action ? t("stage.click_hint", { action: actionLabel }) : view.seat == null ? t("stage.spectator") : null;
    const stage = renderStage({ game, view, act, tech, hint, lastVotes: counted });
    mount(body, ...stage.parts);
    mount(actions, stage.actions);
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

  for (const item of game.events) told(item.event);
  const ticker = setInterval(() => clocks.tick(), 200);
  const unbind = bindShortcuts({
    endSpeech: () => game.view?.actions.includes("end_speech") && act("end_speech"),
    interject: () => game.view?.actions.includes("interject") && act("interject"),
    seat: pick,
    yes: () => yesNo(true),
    no: () => yesNo(false),
    tech: () => { const menu = actions.querySelector("details.tech-menu"); if (menu) menu.open = !menu.open; },
    card: (held) => card.peek(held),
    help: () => { help.open = !help.open; },
  });

  function stop() {
    socket.close();
    peer.close();
    clearInterval(ticker);
    unbind();
    card.peek(false);
    document.body.classList.remove("night");
  }
  return () => { if (!ended) stop(); };
}
