// The middle of the table: what is happening, what you may do about it.
// Only actions legal for you now (view.actions) get a button.

import { h } from "../dom.js";
import { t, tMaybe } from "../i18n.js";
import { tell } from "./story.js";
import { isNight, seatLabel, teamOf } from "./words.js";

const KINDS = ["foul", "defeat", "removal"];

function key(letter) {
  return h("kbd", {}, letter);
}

function situation(game, view) {
  const me = view.seat;
  const mine = view.seats.find((s) => s.seat === me);
  const who = (seat) => seatLabel(game, seat);
  switch (view.phase) {
    case "draw":
      return t(view.actions.includes("pick") ? "stage.draw_pick" : "stage.draw_wait");
    case "meeting":
      return t("stage.meeting");
    case "vote":
    case "revote":
      if (view.vote?.calling != null) return t("stage.calling", { seat: who(view.vote.calling) });
      return t("stage.vote", { seats: view.vote.candidates.map(who).join(", ") });
    case "lift":
      return t("stage.lift", { seats: view.vote.candidates.map(who).join(", ") });
    case "over":
      return "";
    default:
      break;
  }
  if (view.speaker != null) {
    const kind = t(`speech_kind.${view.speech_kind}`);
    return view.speaker === me ? t("stage.your_speech", { kind }) : t("stage.speaks", { seat: who(view.speaker), kind });
  }
  if (!mine?.alive && me != null) return t("stage.you_are_out");
  const turn = tMaybe(`night_turn.${view.phase}`, {}, null);
  if (view.actions.length) return tMaybe(`stage.your_turn.${view.phase}`, {}, turn || "");
  return turn || t("stage.wait");
}

function candidateButtons(game, view, act) {
  if (!view.actions.includes("vote")) return null;
  const choices = view.vote.calling != null ? [view.vote.calling] : view.vote.candidates;
  return h("div.choice-row", {}, choices.map((seat) =>
    h("button.primary", { type: "button", dataset: { vote: String(seat) }, onclick: () => act("vote", { target: seat }) },
      t("stage.vote_for", { seat: seatLabel(game, seat) }))));
}

/** Who voted for whom: as the ballots come in open voting, after the
 * count (the `votes` event) in closed voting. */
function ballotsBoard(game, view, lastVotes) {
  const vote = view.vote;
  const live = Boolean(vote) && view.settings.voting === "open";
  const ballots = live ? vote.ballots : vote ? null : lastVotes?.ballots;
  if (!ballots || !Object.keys(ballots).length) return null;
  const round = live ? vote.round : lastVotes.round;
  const title = h("h3", {}, t(live ? "stage.ballots_live" : "stage.ballots_counted"));
  if (round === "lift") {
    const yes = Object.entries(ballots).filter(([, b]) => b).map(([v]) => seatLabel(game, Number(v)));
    return h("div.board", {}, title,
      h("p", {}, yes.length ? t("stage.lift_yes", { seats: yes.join(", ") }) : t("stage.lift_none")));
  }
  const byTarget = {};
  for (const [voter, target] of Object.entries(ballots)) (byTarget[target] ||= []).push(Number(voter));
  const candidates = live ? vote.candidates : Object.keys(lastVotes.counts).map(Number);
  return h("div.board", {}, title,
    h("ul", {}, candidates.map((seat) => h("li", {},
      h("strong", {}, seatLabel(game, seat)),
      h("span.count", {}, String((byTarget[seat] || []).length)),
      h("span.voters", {}, (byTarget[seat] || []).sort((a, b) => a - b).join(", "))))));
}

function techPanel(game, view, act) {
  const tech = view.tech;
  if (!tech) return null;
  const canVote = view.actions.includes("tech_vote");
  return h("div.tech", {},
    h("h3", {}, t("stage.tech_title", { kind: t(`tech.${tech.kind}`) })),
    h("p", {}, t("stage.tech_text", { by: seatLabel(game, tech.by), target: seatLabel(game, tech.target), kind: t(`tech.${tech.kind}`) })),
    canVote ? h("div.choice-row", {},
      h("button.primary", { type: "button", onclick: () => act("tech_vote", { yes: true }) }, t("common.yes"), key("Y")),
      h("button", { type: "button", onclick: () => act("tech_vote", { yes: false }) }, t("common.no"), key("N")))
      : h("p.muted", {}, tech.your_ballot != null ? t(tech.your_ballot ? "stage.tech_you_yes" : "stage.tech_you_no") : t("stage.tech_wait")));
}

/** The cards of the draw, numbered 1–10 like everything on screen (0–9 on
 * the wire). A taken card shows who took it and cannot be clicked. */
function drawCards(game, view, act) {
  const takenBy = new Map(game.list("picked").map((e) => [e.card, e.seat]));
  const canPick = view.actions.includes("pick");
  return h("div.cards", {}, Array.from({ length: view.seats.length }, (_, card) => {
    const by = takenBy.get(card);
    const taken = by !== undefined;
    return h("button.draw-card", { type: "button", class: taken ? "taken" : "", disabled: !canPick || taken,
      dataset: { card: String(card + 1), keep: `card-${card}` },
      "aria-label": taken ? t("stage.card_taken", { n: card + 1, seat: seatLabel(game, by) }) : t("stage.card", { n: card + 1 }),
      onclick: () => act("pick", { card }) },
    h("span.card-no", {}, String(card + 1)),
    taken ? h("span.card-by", {}, t("seat.bare", { n: by })) : null);
  }));
}

function actionBar(view, act, tech) {
  const a = view.actions;
  const buttons = [];
  if (a.includes("end_speech")) buttons.push(h("button.primary", { type: "button", dataset: { action: "end_speech", keep: "end_speech" }, onclick: () => act("end_speech") }, t("action.end_speech"), key("E")));
  if (a.includes("interject")) buttons.push(h("button", { type: "button", dataset: { action: "interject", keep: "interject" }, onclick: () => act("interject") }, t("action.interject"), key("I")));
  if (a.includes("lift")) {
    buttons.push(h("button.primary", { type: "button", dataset: { action: "lift-yes" }, onclick: () => act("lift", { yes: true }) }, t("action.lift_yes"), key("Y")),
      h("button", { type: "button", dataset: { action: "lift-no" }, onclick: () => act("lift", { yes: false }) }, t("action.lift_no"), key("N")));
  }
  if (a.includes("tech_call")) {
    buttons.push(tech.kind
      ? h("span.tech-pick", {}, t("stage.tech_pick", { kind: t(`tech.${tech.kind}`) }),
        h("button.link", { type: "button", onclick: () => tech.choose(null) }, t("common.cancel")))
      : h("details.tech-menu", { dataset: { keep: "tech-menu" } },
        h("summary", {}, t("action.tech_call"), key("T")),
        h("div.menu", {}, KINDS.map((kind) => h("button", { type: "button", dataset: { tech: kind }, onclick: () => tech.choose(kind) }, t(`tech.${kind}`))))));
  }
  return buttons.length ? h("div.action-bar", {}, buttons) : null;
}

/** What the table has just learnt, on the stage (not only in the log):
 * the night's result, a departure, a cancelled vote; and on day 1, unless
 * the table says otherwise, that nobody leaves by vote (V7). */
function news(game, view) {
  if (isNight(view) || view.phase === "draw") return null;
  const today = [];
  for (let i = game.events.length - 1; i >= 0; i--) {
    const event = game.events[i].event;
    if (event.event === "phase" && event.phase === "day") break;
    if (["morning", "left", "vote_cancelled"].includes(event.event)) today.unshift(event);
  }
  const lines = today.map((event) => tell(event, game)).filter(Boolean);
  if (view.day === 1 && !view.settings.break_at_zero) lines.push(t("stage.day_one"));
  return lines.length ? h("div.news", { role: "status" }, lines.map((line) => h("p", {}, line))) : null;
}

/** The day's speaking order from the speaker on: the day speeches go
 * round the living seats from the day's first speaker (D1). */
function speakingOrder(game, view) {
  if (view.speech_kind !== "day" || view.speaker == null) return null;
  const firstToday = game.events.slice().reverse().find((item) => item.event.event === "phase" && item.event.phase === "day");
  const started = firstToday ? game.events.slice(game.events.indexOf(firstToday)).map((item) => item.event)
    .find((e) => e.event === "speech" && e.kind === "day") : null;
  const first = started ? started.seat : view.speaker;
  const seats = view.seats.map((s) => s.seat);
  const living = new Set(view.seats.filter((s) => s.alive).map((s) => s.seat));
  const after = [];
  for (let i = 1; i < seats.length; i++) {
    const seat = seats[(seats.indexOf(view.speaker) + i) % seats.length];
    if (seat === first) break;
    if (living.has(seat)) after.push(seat);
  }
  return h("div.order", {}, h("span", {}, t("stage.order")),
    h("span.chip.now", {}, seatLabel(game, view.speaker)),
    after.map((seat) => h("span.chip", {}, seatLabel(game, seat))));
}

/** B1: the seats ticked for a best move, kept while the stage is redrawn. */
const bestMoveChoice = new Set();

/** The first player shot at night names up to three seats during the last word. */
function bestMovePanel(game, view, act) {
  if (!view.actions.includes("best_move")) {
    bestMoveChoice.clear();
    return null;
  }
  const seats = view.seats.filter((s) => s.alive && s.seat !== view.seat).map((s) => s.seat);
  const tick = (seat) => (event) => {
    if (event.target.checked && bestMoveChoice.size >= 3) event.target.checked = false;
    else if (event.target.checked) bestMoveChoice.add(seat);
    else bestMoveChoice.delete(seat);
  };
  const name = () => {
    if (bestMoveChoice.size) act("best_move", { targets: [...bestMoveChoice].sort((a, b) => a - b) });
  };
  return h("div.best-move", {},
    h("h3", {}, t("stage.best_move_title")),
    h("p", {}, t("stage.best_move_text")),
    h("div.choice-row", {}, seats.map((seat) => h("label.chip", {},
      h("input", { type: "checkbox", checked: bestMoveChoice.has(seat), dataset: { best: String(seat) }, onchange: tick(seat) }),
      seatLabel(game, seat)))),
    h("button.primary", { type: "button", dataset: { action: "best_move" }, onclick: name }, t("action.best_move")));
}

/** The middle panel for `view`: what is going on (`parts`) and the buttons
 * for what you may do (`actions`). `hint` says what a seat click does. */
export function renderStage({ game, view, act, tech, hint, lastVotes, pending }) {
  const parts = [isNight(view) ? h("div.moon", { "aria-hidden": "true" }) : null, h("p.situation", {}, situation(game, view))];
  const role = view.seats.find((s) => s.seat === view.seat)?.role;
  if (view.phase === "meeting" && role && teamOf(role) === "black") {
    parts.push(h("p.hint-line.secret-line", {}, t(`stage.meeting_black.${view.settings.agreement}`)));
  }
  parts.push(news(game, view), speakingOrder(game, view));
  if (pending) parts.push(pending);
  if (hint) parts.push(h("p.hint-line", {}, hint));
  if (view.phase === "draw") parts.push(drawCards(game, view, act));
  const board = ballotsBoard(game, view, lastVotes);
  if (view.nominees.length && !view.vote && !board && !isNight(view)) {
    parts.push(h("div.nominees", {}, h("span", {}, t("stage.nominees")),
      view.nominees.map((seat) => h("span.chip", {}, seatLabel(game, seat)))));
  }
  if (view.vote && view.vote.round !== "lift") parts.push(candidateButtons(game, view, act));
  parts.push(board, techPanel(game, view, act), bestMovePanel(game, view, act));
  return { parts, actions: actionBar(view, act, tech) };
}
