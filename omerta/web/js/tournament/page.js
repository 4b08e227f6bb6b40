// One tournament: your seats, the schedule with live tables, results,
// standings, and the director's tools (schedule, swap, start a round).

import { get, post } from "../api.js";
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { notify, showError } from "../notice.js";
import { me as signedIn } from "../session.js";
import { directorTools, replaceForm } from "./director.js";

const POLL_MS = 5000;

function when(iso) {
  return new Date(iso).toLocaleString();
}

function mySeats(me) {
  if (!me || !me.seats.length) return null;
  return h("section.my-seats", {},
    h("h2", {}, t("tournament.my_seats")),
    h("ul", {}, me.seats.map((s) => h("li", { dataset: { round: String(s.round) } },
      t("tournament.my_seat", { round: s.round, table: s.table, seat: s.seat })))));
}

function seatCell(seat, meId) {
  const name = seat.user_id === null ? t("lobby.bot") : seat.username;
  const points = seat.points ? ` (${seat.points.total})` : "";
  const cls = seat.user_id === meId ? "li.me" : "li";
  return h(cls, {}, `${seat.seat}. ${name}${seat.absent ? ` · ${t("tournament.absent")}` : ""}${points}`);
}

function tableBlock(table, meId) {
  const link = table.table_id
    ? h("a", { href: `#/table/${table.table_id}` }, t("tournament.open_table", { n: table.number }))
    : h("span", {}, t("tournament.table", { n: table.number }));
  const result = table.winner ? t(`tournament.winner.${table.winner}`) : t(`tournament.table_status.${table.status}`);
  return h("div.tournament-table", {},
    h("h4", {}, link, " · ", result),
    h("ol.seats", {}, table.seats.map((seat) => seatCell(seat, meId))));
}

function schedule(tournament, meId) {
  return h("section.schedule", {},
    h("h2", {}, t("tournament.schedule")),
    tournament.schedule.map((round) => h("details.round", { open: !round.started_at || undefined, dataset: { round: String(round.number) } },
      h("summary", {}, t("tournament.round", { n: round.number }), " · ", when(round.starts_at)),
      round.tables.length ? round.tables.map((table) => tableBlock(table, meId)) : h("p.hint", {}, t("tournament.no_schedule")))));
}

function standings(tournament) {
  return h("section.standings", {},
    h("h2", {}, t("tournament.standings")),
    h("div.table-scroll", {}, h("table", {},
      h("thead", {}, h("tr", {}, ["place", "player", "total", "games", "wins", "best_move"].map((k) => h("th", {}, t(`tournament.col.${k}`))))),
      h("tbody", {}, tournament.standings.map((row) => h("tr", {},
        h("td", {}, row.place), h("td", {}, row.username), h("td", {}, row.total),
        h("td", {}, row.games), h("td", {}, row.wins), h("td", {}, row.best_move)))))),
    h("p", {},
      h("a", { href: `/api/tournaments/${tournament.id}/export.csv`, download: "" }, t("tournament.export_csv")), " · ",
      h("a", { href: `/api/tournaments/${tournament.id}/export.json`, download: "" }, t("tournament.export_json"))));
}

function playerActions(tournament, refresh) {
  const me = tournament.me;
  if (!me) return h("p.hint", {}, h("a", { href: "#/signin" }, t("header.sign_in")));
  const act = (path) => post(`/api/tournaments/${tournament.id}/${path}`).then(refresh, showError);
  const buttons = [];
  if (!me.registered && tournament.status === "registration") {
    buttons.push(h("button.primary", { type: "button", dataset: { do: "register" }, onclick: () => act("register") }, t("tournament.register")));
  }
  if (me.registered && tournament.status === "registration") {
    buttons.push(h("button", { type: "button", dataset: { do: "withdraw" }, onclick: () => act("withdraw") }, t("tournament.withdraw")));
  }
  if (me.registered && !me.checked_in && tournament.status !== "finished") {
    buttons.push(h("button.primary", { type: "button", dataset: { do: "checkin" }, onclick: () => act("checkin").then(() => notify(t("tournament.checked_in"))) }, t("tournament.checkin")));
  }
  if (me.checked_in) buttons.push(h("span.hint", {}, t("tournament.checked_in")));
  return h("div.actions", {}, buttons);
}

export async function renderTournament(root, id) {
  let timer = null;
  let shown = "";
  const refresh = async () => {
    try {
      const { tournament } = await get(`/api/tournaments/${id}`);
      const text = JSON.stringify(tournament);
      if (text === shown) return;
      shown = text;
      const meId = tournament.me ? tournament.me.user_id : null;
      mount(root,
        h("h1", {}, tournament.name),
        h("p.hint", {}, t(`tournament.status.${tournament.status}`), " · ", t("tournament.directed_by", { name: tournament.director }),
          " · ", t("tournament.players", { n: tournament.players.length })),
        playerActions(tournament, refresh),
        mySeats(tournament.me),
        tournament.me && tournament.me.director ? directorTools(tournament, refresh) : null,
        tournament.me && !tournament.me.director && signedIn()?.is_moderator
          ? h("section.director", {}, replaceForm(tournament, refresh)) : null,
        schedule(tournament, meId),
        standings(tournament));
    } catch (error) {
      showError(error);
    }
  };
  await refresh();
  timer = setInterval(() => { if (!root.querySelector("form:focus-within")) refresh(); }, POLL_MS);
  return () => clearInterval(timer);
}
