// The lobby: open tables (polled), sitting down and standing up, bots,
// and the way back to a game you are playing.

import { ApiError, get, post } from "../api.js";
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { notify, showError } from "../notice.js";
import { go } from "../router.js";
import { me } from "../session.js";
import { describeSettings } from "../settings.js";
import { load, save } from "../storage.js";
import { createTableForm } from "./create.js";
import { playerLink } from "./players.js";

const POLL_MS = 3000;

function seatedAt(table, user) {
  return Boolean(user) && table.seats.some((seat) => seat.user === user.username);
}

/** Remember the table you sit at, so the lobby can take you back to it. */
function rememberTable(table) {
  save("table", table ? table.id : null);
}

async function act(path, after) {
  try {
    after((await post(path)).table);
  } catch (error) {
    showError(error);
  }
}

function enter(table) {
  rememberTable(table);
  if (table.status === "playing") go(`#/table/${table.id}`);
}

function seatDots(table) {
  const taken = table.seats.length;
  return h("div.seat-dots", { "aria-hidden": "true" },
    Array.from({ length: table.seats_total }, (_, i) => h(`span.dot${i < taken ? ".taken" : ""}`)));
}

/** `elsewhere`: the player sits at another table now, so the server would
 * refuse a seat here (one live seat per account): no button offers it. */
function tableCard(table, refresh, elsewhere) {
  const user = me();
  const mine = seatedAt(table, user);
  const players = table.seats.map((seat) => (seat.bot ? t("lobby.bot") : playerLink(seat.user)));
  const buttons = [];
  if (user && !mine && !elsewhere) {
    buttons.push(h("button.primary", { type: "button", dataset: { do: "sit" }, onclick: () => act(`/api/tables/${table.id}/sit`, (next) => { enter(next); refresh(); }) },
      t("lobby.sit")));
  }
  if (mine) {
    buttons.push(h("button", { type: "button", dataset: { do: "stand" }, onclick: () => act(`/api/tables/${table.id}/stand`, () => { rememberTable(null); refresh(); }) },
      t("lobby.stand")));
  }
  if (user && table.creator === user.username) {
    buttons.push(h("button", { type: "button", dataset: { do: "bots" }, onclick: () => act(`/api/tables/${table.id}/bots`, (next) => { enter(next); refresh(); }) },
      t("lobby.fill_bots")));
  }
  return h("article.card.table-card", { dataset: { table: String(table.id) }, class: mine ? "mine" : "" },
    h("header", {},
      h("h3", {}, t("lobby.table_title", { id: table.id })),
      h("span.badge", { class: table.ruleset }, t(`ruleset.${table.ruleset}`)),
      h("span.badge", { class: table.ranked ? "ranked" : "practice" }, t(table.ranked ? "lobby.ranked" : "lobby.practice"))),
    h("p.meta", {}, t("lobby.created_by", { name: table.creator })),
    h("div.seats-line", {}, seatDots(table),
      h("span.count", {}, t("lobby.seats_taken", { taken: table.seats_taken, total: table.seats_total }))),
    players.length ? h("p.players", {}, players.flatMap((who, i) => (i ? [", ", who] : [who]))) : h("p.players.empty", {}, t("lobby.no_players")),
    h("ul.settings", {}, describeSettings(table.ruleset, table.settings).map((text) => h("li", {}, text))),
    h("div.buttons", {}, buttons));
}

/** A table you sat at that has started (maybe filled by others): take
 * the player there, or show the way back. */
async function checkMyTable(banner) {
  const id = load("table");
  if (!id || !me()) return mount(banner);
  try {
    const { table } = await get(`/api/tables/${id}`);
    if (!seatedAt(table, me()) || table.status === "finished" || table.status === "abandoned") {
      rememberTable(null);
      return mount(banner);
    }
    if (table.status === "playing") {
      mount(banner, h("div.card.return", {},
        h("span", {}, t("lobby.your_game", { id })),
        h("a.button.primary", { href: `#/table/${id}` }, t("lobby.return"))));
    } else {
      mount(banner);
    }
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) rememberTable(null);
    mount(banner);
  }
}

export function renderLobby(root) {
  const list = h("div.table-list", { "aria-live": "polite" });
  const banner = h("div.banner");
  let stopped = false;
  let shown = [];
  let timer = null;

  async function refresh() {
    clearTimeout(timer);
    try {
      const { tables } = await get("/api/tables");
      if (stopped) return;
      const user = me();
      // My open table filled up since the last look: the game has started.
      const wasMine = shown.find((table) => seatedAt(table, user));
      if (wasMine && !tables.some((table) => table.id === wasMine.id)) {
        const { table } = await get(`/api/tables/${wasMine.id}`);
        if (stopped) return;       // the page was left while we asked
        if (table.status === "playing") return enter(table);
      }
      shown = tables;
      await checkMyTable(banner);         // forgets a remembered table that is over
      if (stopped) return;
      const seatedSomewhere = tables.some((table) => seatedAt(table, user)) || Boolean(load("table"));
      mount(list, tables.length ? tables.map((table) => tableCard(table, refresh, seatedSomewhere && !seatedAt(table, user)))
        : h("p.empty", {}, t("lobby.no_tables")));
    } catch (error) {
      if (!stopped) showError(error);
    }
    if (!stopped) timer = setTimeout(refresh, POLL_MS);
  }

  const side = me()
    ? createTableForm((table) => { notify(t("lobby.created", { id: table.id })); refresh(); })
    : h("div.card.welcome", {},
      h("h2", {}, t("lobby.welcome_title")),
      h("p", {}, t("lobby.welcome_text")),
      h("div.buttons", {},
        h("a.button.primary", { href: "#/signup" }, t("auth.sign_up")),
        h("a.button", { href: "#/signin" }, t("auth.sign_in"))));

  mount(root, h("section.lobby", {},
    h("div.lobby-main", {}, banner, h("h1", {}, t("lobby.title")), list),
    h("aside.lobby-side", {}, side)));
  refresh();
  return () => { stopped = true; clearTimeout(timer); };
}
