// The end of the game: who won and why, every role, the numbers of the
// game (nominations, votes, checks), the whole story of it and, for its
// players, a way to report it to the moderators.

import { get } from "../api.js";
import { h } from "../dom.js";
import { t, tMaybe } from "../i18n.js";
import { reportControl } from "./report.js";
import { gameStats } from "./stats.js";
import { clockTime, tell } from "./story.js";
import { roleName, seatLabel, teamOf } from "./words.js";

function seats(game, list) {
  return list.length ? list.map((seat) => seatLabel(game, seat)).join(", ") : "—";
}

function statsTable(game, roles) {
  const rows = gameStats(game.events.map((item) => item.event), roles);
  return h("table.grid.stats", {},
    h("thead", {}, h("tr", {},
      ["stats.seat", "stats.role", "stats.nominated", "stats.nominated_by", "stats.votes", "stats.votes_on_black", "stats.votes_received", "stats.checks", "stats.left"]
        .map((key) => h("th", {}, t(key))))),
    h("tbody", {}, rows.map((row) => h("tr", { class: teamOf(row.role) },
      h("td", {}, seatLabel(game, row.seat)),
      h("td", {}, h(`span.role-badge.${teamOf(row.role)}`, {}, roleName(row.role))),
      h("td", {}, seats(game, row.nominated)),
      h("td", {}, seats(game, row.nominatedBy)),
      h("td", {}, seats(game, row.votes)),
      h("td.num", {}, `${row.votesOnBlack} / ${row.votes.length}`),
      h("td.num", {}, String(row.votesReceived)),
      h("td", {}, row.checks.length ? row.checks.map((c) => `${seatLabel(game, c.target)}: ${t(`check.${c.result}`)}`).join(", ") : "—"),
      h("td", {}, row.left ? t(`table.out.${row.left.cause}`) : t("stats.stayed"))))));
}

function header(winner, reason, role) {
  const result = !role || winner === "draw" ? null : teamOf(role) === winner ? "win" : "loss";
  return h("header.end-head", { class: winner },
    h("h1", {}, t(`end.winner.${winner}`)),
    h("p.reason", {}, tMaybe(`end.reason.${reason}`, {}, t("end.reason.other"))),
    result ? h("p.result", { class: result }, t(`end.${result}`)) : null,
    h("a.button.primary", { href: "#/" }, t("end.back")));
}

/** Only a player who sat in the game may report it, and only such a player
 * has it in their history: a spectator sees no report control. */
function reportFor(played) {
  return played ? reportControl(played.game) : null;
}

/** The end screen from the whole game as this seat received it; `played`
 * is the player's history entry of it, if any. */
export function renderEnd(game, played) {
  const { winner, reason, roles } = game.over;
  const story = game.events
    .map((item) => ({ t: item.event.t, text: tell(item.event, game) }))
    .filter((line) => line.text);
  return h("section.end", {},
    header(winner, reason, game.seat != null ? roles[game.seat] : null),
    h("div.end-roles", {}, Object.keys(roles).map(Number).sort((a, b) => a - b).map((seat) =>
      h("div.end-role", { class: teamOf(roles[seat]), dataset: { seat: String(seat) } },
        h("span.seat-no", {}, String(seat)),
        h("span.name", {}, game.names[seat] || t("seat.bare", { n: seat })),
        h("span.role", {}, roleName(roles[seat]))))),
    reportFor(played),
    h("h2", {}, t("end.stats")),
    statsTable(game, roles),
    h("h2", {}, t("end.story")),
    h("ol.story", {}, story.map((line) => h("li", {}, h("time", {}, clockTime(line.t)), line.text))));
}

/** The signed-in player's history entry of the game at `table`, or null
 * when they did not play it (a spectator) or it was abandoned. */
export async function playedGame(table) {
  try {
    return (await get("/api/me/games")).games.find((g) => g.table === table.id) || null;
  } catch {
    return null;      // the history cannot be read: show the game without it
  }
}

/** A finished game this browser did not keep: what the player's history says. */
export function renderSummary(played) {
  if (!played) {
    return h("section.end", {}, h("header.end-head", {}, h("h1", {}, t("end.finished")),
      h("a.button.primary", { href: "#/" }, t("end.back"))));
  }
  return h("section.end", {}, header(played.winner, played.reason, played.role),
    h("p.muted", {}, t("end.summary_only")),
    reportFor(played));
}
