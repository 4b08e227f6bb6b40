// The game's events told as sentences, for the log beside the table and
// the record on the end screen.

import { t, tMaybe } from "../i18n.js";
import { roleName, seatLabel } from "./words.js";

function list(game, seats) {
  return seats.map((seat) => seatLabel(game, seat)).join(", ");
}

function voteCounts(game, event) {
  return Object.entries(event.counts || {})
    .filter(([, count]) => count > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([seat, count]) => t("story.count", { seat: seatLabel(game, Number(seat)), count }))
    .join(", ");
}

const TELL = {
  role: (e, g) => t("story.role", { role: roleName(e.role) }),
  team: (e, g) => t("story.team", { seats: list(g, Object.keys(e.roles).map(Number)) }),
  picked: (e, g) => t("story.picked", { seat: seatLabel(g, e.seat) }),
  phase: (e) => tMaybe(`story.phase.${e.phase}`, { n: e.night ?? e.day }, null),
  speech: (e, g) => t(`story.speech.${e.kind}`, { seat: seatLabel(g, e.seat) }),
  speech_end: (e, g) => (e.early ? t("story.speech_end_early", { seat: seatLabel(g, e.seat) }) : null),
  nominated: (e, g) => t("story.nominated", { by: seatLabel(g, e.by), target: seatLabel(g, e.target) }),
  interjection: (e, g) => t("story.interjection", { seat: seatLabel(g, e.seat), count: e.left }),
  calling: (e, g) => t("story.calling", { seat: seatLabel(g, e.candidate) }),
  ballot: (e, g) => (e.round === "lift"
    ? t(e.yes ? "story.ballot_lift_yes" : "story.ballot_lift_no", { voter: seatLabel(g, e.voter) })
    : t("story.ballot", { voter: seatLabel(g, e.voter), target: seatLabel(g, e.target) })),
  votes: (e, g) => (e.round === "lift"
    ? t("story.votes_lift", { yes: Object.values(e.ballots).filter(Boolean).length, count: Object.keys(e.ballots).length })
    : t(`story.votes.${e.round}`, { counts: voteCounts(g, e) })),
  left: (e, g) => t(`story.left.${e.cause}`, { seat: seatLabel(g, e.seat) }),
  morning: (e, g) => (e.dead.length ? t("story.morning", { seats: list(g, e.dead) }) : t("story.morning_none")),
  night_action: (e, g) => t(`story.night_action.${e.action}`, { by: seatLabel(g, e.by), target: seatLabel(g, e.target) }),
  check: (e, g) => t("story.check", { by: seatLabel(g, e.by), target: seatLabel(g, e.target), result: t(`check.${e.result}`) }),
  tech_call: (e, g) => t("story.tech_call", { by: seatLabel(g, e.by), target: seatLabel(g, e.target), kind: t(`tech.${e.kind}`) }),
  tech_ballot: (e, g) => t(e.yes ? "story.tech_ballot_yes" : "story.tech_ballot_no", { voter: seatLabel(g, e.voter) }),
  tech_vote: (e, g) => t(e.passed ? "story.tech_passed" : "story.tech_failed",
    { kind: t(`tech.${e.kind}`), target: seatLabel(g, e.target), yes: e.yes, needed: e.needed }),
  foul: (e, g) => t("story.foul", { seat: seatLabel(g, e.seat), count: e.count }),
  vote_cancelled: () => t("story.vote_cancelled"),
  best_move: (e, g) => t("story.best_move", { seat: seatLabel(g, e.seat), seats: list(g, e.targets) }),
  game_over: (e) => t("story.game_over", { winner: t(`winner.${e.winner}`) }),
};

/** Events only this seat (or its team) receives: they tell its role, so
 * the log shows them only while the player holds the card key. */
const SECRET = ["role", "team", "night_action", "check"];

export function isSecret(event) {
  return SECRET.includes(event.event);
}

/** One sentence for `event`, or null for events not worth a line. */
export function tell(event, game) {
  const teller = TELL[event.event];
  return teller ? teller(event, game) : null;
}

/** "12:40" style game time (minutes:seconds since the start). */
export function clockTime(seconds) {
  const whole = Math.max(0, Math.floor(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}
