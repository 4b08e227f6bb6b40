// Post-game numbers per seat, computed from the events this seat received:
// nominations made and received, votes cast (and how many hit the black
// team), votes received, checks made and their results.

import { teamOf } from "./words.js";

export function gameStats(events, roles) {
  const seats = Object.keys(roles).map(Number).sort((a, b) => a - b);
  const stats = Object.fromEntries(seats.map((seat) => [seat, {
    seat, role: roles[seat], nominated: [], nominatedBy: [], votes: [], votesOnBlack: 0,
    votesReceived: 0, checks: [], left: null,
  }]));
  for (const event of events) {
    if (event.event === "nominated" && stats[event.by]) {
      stats[event.by].nominated.push(event.target);
      stats[event.target]?.nominatedBy.push(event.by);
    } else if (event.event === "votes" && event.round !== "lift") {
      for (const [voter, target] of Object.entries(event.ballots)) {
        const row = stats[voter];
        if (!row) continue;
        row.votes.push(target);
        if (teamOf(roles[target]) === "black") row.votesOnBlack += 1;
        if (stats[target]) stats[target].votesReceived += 1;
      }
    } else if (event.event === "check" && stats[event.by]) {
      stats[event.by].checks.push({ target: event.target, result: event.result });
    } else if (event.event === "left" && stats[event.seat]) {
      stats[event.seat].left = { cause: event.cause, t: event.t };
    }
  }
  return seats.map((seat) => stats[seat]);
}
