// The end of the game: who won and why, every role, what happened each
// night and each day (reveal.js), the numbers of the game with the day of
// each, the whole story of it and, for its players, a way to report it to
// the moderators. The same page is the game's own page (#/games/<id>).

import { get } from "../api.js";
import { h, mount } from "../dom.js";
import { t, tMaybe } from "../i18n.js";
import { reportControl } from "./report.js";
import { periodLabel, revealSections } from "./reveal.js";
import { gameStats } from "./stats.js";
import { clockTime, tell } from "./story.js";
import { roleName, seatLabel, teamOf } from "./words.js";
import { replayHref } from "../replay/page.js";

function dated(game, list) {
  return list.length ? list.map((item) => `${seatLabel(game, item.seat)} (${periodLabel(item.when)})`).join(", ") : "—";
}

function statsTable(game, events, roles) {
  const rows = gameStats(events, roles);
  return h("div.table-scroll", {}, h("table.grid.stats", {},
    h("thead", {}, h("tr", {},
      ["stats.seat", "stats.role", "stats.nominated", "stats.nominated_by", "stats.votes", "stats.votes_on_black", "stats.votes_received", "stats.checks", "stats.left"]
        .map((key) => h("th", {}, t(key))))),
    h("tbody", {}, rows.map((row) => h("tr", { class: teamOf(row.role), dataset: { seat: String(row.seat) } },
      h("td", {}, seatLabel(game, row.seat)),
      h("td", {}, h(`span.role-badge.${teamOf(row.role)}`, {}, roleName(row.role))),
      h("td", {}, dated(game, row.nominated)),
      h("td", {}, dated(game, row.nominatedBy)),
      h("td", {}, dated(game, row.votes)),
      h("td.num", {}, `${row.votesOnBlack} / ${row.votes.length}`),
      h("td.num", {}, String(row.votesReceived)),
      h("td", {}, row.checks.length ? row.checks.map((c) => `${seatLabel(game, c.target)}: ${t(`check.${c.result}`)} (${periodLabel(c.when)})`).join(", ") : "—"),
      h("td.fate", {}, row.left ? `${t(`table.out.${row.left.cause}`)} (${periodLabel(row.left.when)})` : t("stats.stayed")))))));
}

function header(story) {
  const { winner, reason } = story;
  const role = story.seat != null ? story.roles[story.seat] : null;
  const result = !role || winner === "draw" ? null : teamOf(role) === winner ? "win" : "loss";
  return h("header.end-head", { class: winner },
    h("h1", {}, t(`end.winner.${winner}`)),
    h("p.reason", {}, tMaybe(`end.reason.${reason}`, {}, t("end.reason.other"))),
    result ? h("p.result", { class: result }, t(`end.${result}`)) : null,
    story.gameId ? h("a.button", { href: `#/games/${story.gameId}` }, t("end.game_page")) : null,
    story.gameId ? h("a.button.replay-link", { href: replayHref(story.gameId, { seat: story.seat }) }, t("replay.open")) : null,
    h("a.button.primary", { href: "#/" }, t("end.back")));
}

function playerName(story, seat) {
  const name = story.players[seat];
  if (!name) return h("span.name", {}, story.names[seat] || t("seat.bare", { n: seat }));
  return h("a.name", { href: `#/players/${encodeURIComponent(name)}` }, name);
}

/** B1: each best move named in the game and which named seats were black
 * (the end of the game tells it), or nothing. */
function bestMoves(game, events) {
  const over = events.find((e) => e.event === "game_over");
  if (!over?.best_move?.length) return [];
  const seats = (list) => (list.length ? list.map((seat) => seatLabel(game, seat)).join(", ") : "—");
  return [h("h2", {}, t("end.best_move")),
    h("ul.best-moves", {}, over.best_move.map((named) => h("li", { dataset: { seat: String(named.seat) } },
      t("end.best_move_line", { seat: seatLabel(game, named.seat), seats: seats(named.targets), black: seats(named.black) }))))];
}

/** Only a player who sat in the game may report it, and only such a player
 * has it in their history: a spectator sees no report control. */
function reportFor(played) {
  return played ? reportControl(played.game) : null;
}

/** The whole game: `story` holds winner, reason, roles (seat -> role),
 * names (seat -> shown name), players (seat -> username, people only),
 * events, the viewer's seat, and the game's id; `played` is the viewer's
 * history entry of it, if any. */
export function renderStory(story, played) {
  const game = { names: story.names };
  const lines = story.events
    .map((event) => ({ t: event.t, text: tell(event, game) }))
    .filter((line) => line.text);
  const { roles } = story;
  return h("section.end", {},
    header(story),
    h("div.end-roles", {}, Object.keys(roles).map(Number).sort((a, b) => a - b).map((seat) =>
      h("div.end-role", { class: teamOf(roles[seat]), dataset: { seat: String(seat) } },
        h("span.seat-no", {}, String(seat)),
        playerName(story, seat),
        h("span.role", {}, roleName(roles[seat]))))),
    reportFor(played),
    ...bestMoves(game, story.events),
    ...revealSections(game, story.events),
    h("h2", {}, t("end.stats")),
    statsTable(game, story.events, roles),
    h("details.whole-story", {}, h("summary", {}, t("end.story")),
      h("ol.story", {}, lines.map((line) => h("li", {}, h("time", {}, clockTime(line.t)), line.text)))));
}

/** The game's whole story from the server, shaped for renderStory. */
function fromServer(found, seat, names) {
  const players = Object.fromEntries(found.players.filter((p) => p.user).map((p) => [p.seat, p.user]));
  const shown = { ...Object.fromEntries(found.players.map((p) => [p.seat, p.user || t("lobby.bot")])), ...names };
  return { winner: found.winner, reason: found.reason, seat,
    roles: Object.fromEntries(found.players.map((p) => [p.seat, p.role])),
    names: shown, players, events: found.events, gameId: found.id };
}

/** The end screen of the game at `table` as `game` (this browser's record
 * of it) knows it, told in full from the server when it can be read. */
export async function renderEnd(root, table, game) {
  const played = await playedGame(table);
  let found = null;
  try {
    found = (await get(`/api/tables/${table.id}/game`)).game;
  } catch {
    found = null;        // not recorded (abandoned) or unreachable: what this browser saw
  }
  if (found) return mount(root, renderStory(fromServer(found, game.seat ?? played?.seat ?? null, game.names), played));
  const over = game.over;
  if (!over) return mount(root, renderSummary(played));
  const players = Object.fromEntries(table.seats.filter((s) => s.user).map((s) => [s.seat, s.user]));
  return mount(root, renderStory({ winner: over.winner, reason: over.reason, roles: over.roles, seat: game.seat,
    names: game.names, players, events: game.events.map((item) => item.event), gameId: played?.game }, played));
}

/** The game page, #/games/<id>: the same story for anyone. */
export async function renderGamePage(root, id) {
  let found;
  try {
    found = (await get(`/api/games/${Number(id)}`)).game;
  } catch {
    mount(root, h("p.card", {}, t("end.not_found")));
    return;
  }
  const played = await playedGame({ id: found.table });
  mount(root, renderStory(fromServer(found, played?.seat ?? null, {}), played));
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
  return h("section.end", {}, header({ winner: played.winner, reason: played.reason, seat: played.seat,
    roles: { [played.seat]: played.role }, gameId: played.game }),
  h("p.muted", {}, t("end.summary_only")),
  reportFor(played));
}
