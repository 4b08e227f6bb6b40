// The table at one moment, from a view (`omerta.table.views`): the seats
// with whatever roles the view holds, who has left, fouls, the speaker,
// the nominees, the vote, the technical vote and the checks. Shared by the
// replay viewer and the delayed stream (omerta/web/js/watch/).

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { phaseTitle, roleName, seatLabel, teamOf } from "../table/words.js";

/** Lines that speak to the seat that received them ("Your card: …"): a
 * full reveal leaves them out of its log, the board shows every role. */
export const TO_ONE_SEAT = ["role", "team"];

function seatTile(game, view, row) {
  const ballot = view.vote ? view.vote.ballots[String(row.seat)] : undefined;
  const marks = [
    view.speaker === row.seat ? h("span.badge.speaking", {}, t("replay.speaking")) : null,
    view.nominees.includes(row.seat) ? h("span.badge", {}, t("replay.nominated")) : null,
    row.fouls ? h("span.badge", {}, t("replay.fouls", { count: row.fouls })) : null,
    ballot !== undefined && ballot !== null
      ? h("span.badge", {}, typeof ballot === "boolean" ? t(ballot ? "replay.lift_yes" : "replay.lift_no") : t("replay.voted_for", { n: ballot }))
      : null,
  ];
  return h("li.scene-seat", {
    class: [row.alive ? "" : "gone", row.role ? `team-${teamOf(row.role)}` : ""].join(" "),
    dataset: { seat: String(row.seat), alive: String(row.alive), role: row.role || "" },
  },
  h("span.scene-num", {}, String(row.seat)),
  h("span.scene-name", {}, game.names[row.seat] || ""),
  h("span.scene-role", {}, row.role ? roleName(row.role) : "?"),
  row.alive ? null : h("span.badge.left", {}, t("replay.left")),
  ...marks);
}

function checksOf(game, view) {
  // The full reveal holds every checker's checks; a seat's view its own.
  const entries = Object.entries(view.checks || {});
  if (!entries.length) return null;
  const lines = typeof entries[0][1] === "object"
    ? entries.flatMap(([by, found]) => Object.entries(found).map(([target, result]) => [Number(by), Number(target), result]))
    : entries.map(([target, result]) => [view.seat, Number(target), result]);
  return h("div.scene-panel", {}, h("h3", {}, t("replay.checks")),
    h("ul", {}, lines.map(([by, target, result]) => h("li", {}, t("story.check",
      { by: seatLabel(game, by), target: seatLabel(game, target), result: t(`check.${result}`) })))));
}

function voteOf(game, view) {
  const vote = view.vote;
  if (!vote) return null;
  return h("div.scene-panel", { dataset: { vote: vote.round } }, h("h3", {}, t(`replay.round.${vote.round === "lift" ? "lift" : "vote"}`)),
    vote.candidates.length ? h("p", {}, t("replay.candidates", { seats: vote.candidates.map((s) => seatLabel(game, s)).join(", ") })) : null);
}

function techOf(game, view) {
  const tech = view.tech;
  if (!tech) return null;
  return h("div.scene-panel.tech", {}, h("h3", {}, t("story.tech_call",
    { by: seatLabel(game, tech.by), target: seatLabel(game, tech.target), kind: t(`tech.${tech.kind}`) })));
}

/** `game` is { names: seat -> player name }. */
export function board(game, view) {
  return h("div.scene", {},
    h("div.scene-head", {},
      h("h2.scene-phase", {}, view.winner ? t("phase.over") : phaseTitle(view)),
      view.winner ? h("p.scene-winner", { dataset: { winner: view.winner } }, t("story.game_over", { winner: t(`winner.${view.winner}`) })) : null),
    h("ol.scene-seats", {}, view.seats.map((row) => seatTile(game, view, row))),
    voteOf(game, view), techOf(game, view), checksOf(game, view));
}
