// The director's tools on a tournament page: invite, generate the
// schedule, see what a swap costs and make it, start a round now.

import { post } from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { notify, showError } from "../notice.js";

function playerSelect(name, tournament) {
  return h("select", { name, required: true },
    tournament.players.map((p) => h("option", { value: String(p.user_id) }, p.username)));
}

function roundSelect(tournament) {
  const waiting = tournament.schedule.filter((r) => !r.started_at);
  return h("select", { name: "round", required: true },
    waiting.map((r) => h("option", { value: String(r.number) }, t("tournament.round", { n: r.number }))));
}

function describeCost(cost) {
  const changed = Object.entries(cost.changed);
  if (!changed.length) return t("tournament.swap_free");
  return changed.map(([key, [before, after]]) => `${key}: ${JSON.stringify(before)} → ${JSON.stringify(after)}`).join("; ");
}

/** Before a round: another player, or a bot, takes a player's seat
 * (the director's, and moderators'). Null when no round waits. */
export function replaceForm(tournament, refresh) {
  if (!tournament.schedule.some((r) => r.tables.length && !r.started_at)) return null;
  const by = h("select", { name: "by", "aria-label": t("tournament.replace_by") },
    h("option", { value: "" }, t("tournament.a_bot")),
    tournament.players.map((p) => h("option", { value: String(p.user_id) }, p.username)));
  const form = h("form.inline", {
    onsubmit: (e) => {
      e.preventDefault();
      const data = new FormData(form);
      const body = { round: Number(data.get("round")), player: Number(data.get("player")), by: data.get("by") ? Number(data.get("by")) : null };
      post(`/api/tournaments/${tournament.id}/replace`, body)
        .then(() => { notify(t("tournament.replaced")); refresh(); }, showError);
    },
  }, roundSelect(tournament), playerSelect("player", tournament), by,
  h("button", { type: "submit", dataset: { do: "replace" } }, t("tournament.replace")));
  return h("div", {}, h("h3", {}, t("tournament.replace")), form);
}

export function directorTools(tournament, refresh) {
  const base = `/api/tournaments/${tournament.id}`;
  const call = (path, body) => post(`${base}/${path}`, body).catch((error) => { showError(error); throw error; });
  const tools = [];
  if (tournament.status === "registration") {
    const invite = h("form.inline", {
      onsubmit: (e) => {
        e.preventDefault();
        call("invite", { username: new FormData(invite).get("username") }).then(refresh, () => {});
      },
    }, h("input", { name: "username", required: true, placeholder: t("tournament.username"), "aria-label": t("tournament.username") }),
    h("button", { type: "submit" }, t("tournament.invite")));
    tools.push(invite);
  }
  if (tournament.status === "registration" || tournament.status === "scheduled") {
    tools.push(h("button.primary", { type: "button", dataset: { do: "generate" }, onclick: () => call("schedule").then(refresh, () => {}) },
      t("tournament.generate")));
  }
  if (tournament.schedule.some((r) => r.tables.length && !r.started_at)) {
    const out = h("p.hint.swap-cost", {});
    const swap = h("form.inline", {}, roundSelect(tournament), playerSelect("a", tournament), playerSelect("b", tournament));
    const read = (apply) => {
      const data = new FormData(swap);
      return { round: Number(data.get("round")), a: Number(data.get("a")), b: Number(data.get("b")), apply };
    };
    swap.append(
      h("button", { type: "button", dataset: { do: "swap-cost" }, onclick: () => call("swap", read(false)).then((r) => { out.textContent = describeCost(r.cost); }, () => {}) }, t("tournament.swap_cost")),
      h("button", { type: "button", dataset: { do: "swap" }, onclick: () => call("swap", read(true)).then(() => { notify(t("tournament.swapped")); refresh(); }, () => {}) }, t("tournament.swap")));
    const next = tournament.schedule.find((r) => !r.started_at);
    tools.push(h("div", {}, h("h3", {}, t("tournament.swap")), swap, out));
    if (next) {
      tools.push(h("button", { type: "button", dataset: { do: "start-round" }, onclick: () => call(`rounds/${next.number}/start`).then(refresh, () => {}) },
        t("tournament.start_now", { n: next.number })));
    }
  }
  const replacing = replaceForm(tournament, refresh);
  if (replacing) tools.push(replacing);
  if (tournament.measures) {
    const m = tournament.measures;
    tools.push(h("p.hint", {}, t("tournament.measures", { games: `${m.games_min}–${m.games_max}`, seat: m.seat_max, pairs: `${m.pair_min}–${m.pair_max}` })));
  }
  return h("section.director", {}, h("h2", {}, t("tournament.director")), tools);
}
