// Post-game numbers per seat, from the game's events: nominations made and
// received, votes cast (and how many hit the black team), votes received,
// checks made and their results, and how each player left, each with the
// day or night it happened.

import { periods } from "./reveal.js";
import { teamOf } from "./words.js";

export function gameStats(events, roles) {
  const seats = Object.keys(roles).map(Number).sort((a, b) => a - b);
  const stats = Object.fromEntries(seats.map((seat) => [seat, {
    seat, role: roles[seat], nominated: [], nominatedBy: [], votes: [], votesOnBlack: 0,
    votesReceived: 0, checks: [], left: null,
  }]));
  for (const { event, when } of periods(events)) {
    if (event.event === "nominated" && stats[event.by]) {
      stats[event.by].nominated.push({ seat: event.target, when });
      stats[event.target]?.nominatedBy.push({ seat: event.by, when });
    } else if (event.event === "votes" && event.round !== "lift") {
      for (const [voter, target] of Object.entries(event.ballots)) {
        const row = stats[voter];
        if (!row) continue;
        row.votes.push({ seat: target, when });
        if (teamOf(roles[target]) === "black") row.votesOnBlack += 1;
        if (stats[target]) stats[target].votesReceived += 1;
      }
    } else if (event.event === "check" && stats[event.by]) {
      stats[event.by].checks.push({ target: event.target, result: event.result, when });
    } else if (event.event === "left" && stats[event.seat]) {
      const atDawn = ["shot", "killed"].includes(event.cause) && when.kind === "day";
      stats[event.seat].left = { cause: event.cause, when: atDawn ? { kind: "night", n: when.n } : when };
    } else if (event.event === "morning") {
      // A city night's dead leave without a public cause (M11): the
      // morning still says they did not live to the end.
      for (const seat of event.dead) if (stats[seat] && !stats[seat].left) stats[seat].left = { cause: "night", when: { kind: "night", n: when.n } };
    }
  }
  return seats.map((seat) => stats[seat]);
}
