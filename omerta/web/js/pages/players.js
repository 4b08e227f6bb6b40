// A player's page (#/players/<name>, #/profile for your own): the rating
// with its uncertainty, a provisional badge, coins, experience, results
// by role and the games played; and the leaderboard (#/leaderboard).
// All read-only (docs/api.md, "Players and the leaderboard").

import { ApiError, get } from "../api.js";
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { go } from "../router.js";
import { me } from "../session.js";
import { roleName } from "../table/words.js";
import { replayHref } from "../replay/page.js";

const GAMES_PER_PAGE = 20;
const LEADERS_PER_PAGE = 50;

export function playerLink(name) {
  return h("a.player-link", { href: `#/players/${encodeURIComponent(name)}` }, name);
}

function provisional(on) {
  return on ? h("span.badge.provisional", { title: t("players.provisional_hint") }, t("players.provisional")) : null;
}

function when(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleString(document.documentElement.lang, { dateStyle: "medium", timeStyle: "short" });
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

function figures(player) {
  const item = (label, value, extra = null) => h("div.figure", {}, h("dt", {}, label), h("dd", {}, value, extra));
  return h("dl.figures", {},
    item(t("players.rating"), h("strong.rating", {}, String(player.rating)), provisional(player.provisional)),
    item(t("players.uncertainty"), t("players.mu_sigma", { mu: player.mu, sigma: player.sigma })),
    item(t("players.games"), String(player.games)),
    item(t("players.coins"), String(player.coins)),
    item(t("players.experience"), String(player.experience)));
}

function rolesTable(roles) {
  const names = Object.keys(roles);
  if (!names.length) return h("p.muted", {}, t("players.no_ranked_games"));
  return h("div.table-scroll", {}, h("table.grid.roles-table", {},
    h("thead", {}, h("tr", {}, [t("players.role"), t("players.games"), t("players.wins"), t("players.win_rate")].map((x) => h("th", {}, x)))),
    h("tbody", {}, names.map((role) => h("tr", {},
      h("td", {}, roleName(role)), h("td.num", {}, String(roles[role].games)), h("td.num", {}, String(roles[role].wins)),
      h("td.num", {}, `${Math.round(roles[role].win_rate * 100)}%`))))));
}

function gamesTable(games) {
  if (!games.length) return h("p.muted", {}, t("players.no_games"));
  return h("div.table-scroll", {}, h("table.grid.games-table", {},
    h("thead", {}, h("tr", {}, ["players.when", "players.role", "players.result", "players.rating_change", "players.coins", "players.experience", "players.game"]
      .map((key) => h("th", {}, t(key))))),
    h("tbody", {}, games.map((g) => h("tr", { dataset: { game: String(g.game) } },
      h("td", {}, when(g.ended_at)),
      h("td", {}, roleName(g.role)),
      h("td", { class: `result ${g.result}` }, t(`players.results.${g.result}`), g.voided ? h("span.badge", {}, t("players.voided")) : null,
        g.ranked ? null : h("span.badge", {}, t("lobby.practice"))),
      h("td.num", {}, g.rating_change == null ? "—" : signed(g.rating_change)),
      h("td.num", {}, String(g.coins)),
      h("td.num", {}, String(g.experience)),
      h("td", {}, h("a", { href: `#/games/${g.game}` }, t("players.open_game")), " · ",
        h("a.replay-link", { href: replayHref(g.game, { seat: g.seat }) }, t("replay.open"))))))));
}

function pager(page, hasNext, to) {
  return h("nav.pager", {},
    page > 1 ? h("a.button", { href: to(page - 1) }, t("mod.previous")) : null,
    h("span.muted", {}, t("players.page", { page })),
    hasNext ? h("a.button", { href: to(page + 1) }, t("mod.next")) : null);
}

export async function renderPlayer(root, rawName, rawPage) {
  const name = decodeURIComponent(rawName);
  const page = Number(rawPage) || 1;
  let player;
  let games;
  try {
    const base = `/api/players/${encodeURIComponent(name)}`;
    [{ player }, { games }] = await Promise.all([get(base), get(`${base}/games?page=${page}&per_page=${GAMES_PER_PAGE}`)]);
  } catch (error) {
    mount(root, h("p.card", {}, error instanceof ApiError && error.status === 404 ? t("players.not_found", { name }) : t("error.unexpected")));
    return;
  }
  const mine = me() && me().username.toLowerCase() === player.username.toLowerCase();
  mount(root, h("section.player-page", {},
    h("header.player-head", {}, h("h1", {}, player.username), mine ? h("span.badge", {}, t("players.you")) : null,
      h("a.button", { href: "#/leaderboard" }, t("header.leaderboard"))),
    h("div.card", {}, figures(player)),
    h("h2", {}, t("players.by_role")),
    rolesTable(player.roles),
    h("h2", {}, t("players.history")),
    gamesTable(games),
    pager(page, games.length === GAMES_PER_PAGE, (n) => `#/players/${encodeURIComponent(player.username)}/${n}`)));
}

export function renderProfile(root) {
  const user = me();
  if (!user) {
    mount(root, h("div.card.waiting", {}, h("p", {}, t("players.sign_in")), h("a.button.primary", { href: "#/signin" }, t("header.sign_in"))));
    return;
  }
  go(`#/players/${encodeURIComponent(user.username)}`);
}

export async function renderLeaderboard(root, rawPage) {
  const page = Number(rawPage) || 1;
  let board;
  try {
    board = await get(`/api/leaderboard?page=${page}&per_page=${LEADERS_PER_PAGE}`);
  } catch {
    mount(root, h("p.card", {}, t("error.unexpected")));
    return;
  }
  const mine = me()?.username;
  mount(root, h("section.leaderboard", {},
    h("h1", {}, t("header.leaderboard")),
    board.refreshed_at ? h("p.muted", {}, t("players.refreshed", { when: when(board.refreshed_at) })) : null,
    board.players.length
      ? h("div.table-scroll", {}, h("table.grid.leaders", {},
        h("thead", {}, h("tr", {}, ["players.rank", "players.player", "players.rating", "players.games"].map((key) => h("th", {}, t(key))))),
        h("tbody", {}, board.players.map((row) => h("tr", { class: row.username === mine ? "me" : "" },
          h("td.num", {}, String(row.rank)),
          h("td", {}, playerLink(row.username), provisional(row.provisional)),
          h("td.num", {}, String(row.rating)),
          h("td.num", {}, String(row.games)))))))
      : h("p.muted", {}, t("players.no_leaders")),
    pager(page, page * LEADERS_PER_PAGE < board.total, (n) => `#/leaderboard/${n}`)));
}
