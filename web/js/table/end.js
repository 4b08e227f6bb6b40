// The end of the game: who won and why, every role, the numbers of the
// game (nominations, votes, checks) and the whole story of it.

import { get } from "../api.js";
import { h } from "../dom.js";
import { t, tMaybe } from "../i18n.js";
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

/** The end screen from the whole game as this seat received it. */
export function renderEnd(game) {
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
    h("h2", {}, t("end.stats")),
    statsTable(game, roles),
    h("h2", {}, t("end.story")),
    h("ol.story", {}, story.map((line) => h("li", {}, h("time", {}, clockTime(line.t)), line.text))));
}

/** A finished game this browser did not keep: what the player's history says. */
export async function renderSummary(table) {
  let entry = null;
  try {
    entry = (await get("/api/me/games")).games.find((g) => g.table === table.id) || null;
  } catch {
    // not in the history (abandoned, or not this player's game)
  }
  if (!entry) {
    return h("section.end", {}, h("header.end-head", {}, h("h1", {}, t("end.finished")),
      h("a.button.primary", { href: "#/" }, t("end.back"))));
  }
  return h("section.end", {}, header(entry.winner, entry.reason, entry.role),
    h("p.muted", {}, t("end.summary_only")));
}
