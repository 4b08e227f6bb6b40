// Moderator pages: the review queue, one case (its votes and a timeline of
// the game), the decision form, the audit log. Only for moderators.
//
// PENDING (issue 6): the moderation API does not exist yet. These pages are
// built against this expected shape; every route is moderator-only (403
// otherwise) and CSRF-protected like the rest of the API.
//   GET  /api/mod/queue        -> {"cases": [Case]}                 open cases, oldest first
//   GET  /api/mod/cases/{id}   -> {"case": Case & {"ballots": {"3": true, ...},
//                                  "players": [{"seat": 3, "user": "bob", "role": "mafia", "past_fouls": 1}],
//                                  "events": [SCRIPTS.md event, ...]}}   the game's events around the vote
//   POST /api/mod/cases/{id}/decision  {"decision": "uphold" | "overturn" | "sanction",
//                                  "sanction": "warning" | "suspension" | "ban", "days": 7, "reason": "..."}
//                              -> {"case": Case}
//   GET  /api/mod/audit        -> {"entries": [{"id": 1, "at": "...", "moderator": "mia", "action": "overturn",
//                                  "target": "bob", "case": 4, "reason": "..."}]}
//   Case: {"id": 4, "kind": "tech_vote" | "report", "status": "open" | "decided", "table": 12, "game": 3,
//          "created_at": "...", "tech_kind": "foul" | "defeat" | "removal", "by": {"seat": 5, "user": "al"},
//          "target": {"seat": 3, "user": "bob"}, "passed": true, "day": 2, "phase": "day_speech",
//          "flagged": false, "reason": "report text, for reports"}

import { ApiError, get, post } from "../api.js";
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { notify, showError } from "../notice.js";
import { go } from "../router.js";
import { me } from "../session.js";
import { clockTime, tell } from "../table/story.js";
import { roleName } from "../table/words.js";

const DECISIONS = ["uphold", "overturn", "sanction"];
const SANCTIONS = ["warning", "suspension", "ban"];

function when(iso) {
  return iso ? new Date(iso).toLocaleString() : "";
}

function person(p) {
  return p ? t("seat.label", { n: p.seat, name: p.user || t("lobby.bot") }) : "—";
}

function caseTitle(c) {
  return c.kind === "report" ? t("mod.report") : t("mod.tech_case", { kind: t(`tech.${c.tech_kind}`) });
}

async function load(root, path, show) {
  mount(root, h("p.muted", {}, t("common.loading")));
  try {
    show(await get(path));
  } catch (error) {
    mount(root, error instanceof ApiError && error.status === 404
      ? h("div.card.pending", {}, h("span.badge.pending", {}, t("mod.pending_badge")), h("p", {}, t("mod.pending")))
      : h("div.card", {}, h("p", {}, error instanceof ApiError ? error.message : t("error.unexpected"))));
  }
}

function queue(root) {
  load(root, "/api/mod/queue", ({ cases }) => mount(root,
    cases.length ? h("table.grid.queue", {},
      h("thead", {}, h("tr", {}, ["mod.case", "mod.table", "mod.target", "mod.by", "mod.opened", ""].map((k) => h("th", {}, k ? t(k) : "")))),
      h("tbody", {}, cases.map((c) => h("tr", {},
        h("td", {}, caseTitle(c), c.flagged ? h("span.badge.pending", {}, t("mod.flagged")) : null),
        h("td", {}, t("lobby.table_title", { id: c.table })),
        h("td", {}, person(c.target)),
        h("td", {}, person(c.by)),
        h("td", {}, when(c.created_at)),
        h("td", {}, h("a.button", { href: `#/mod/case/${c.id}` }, t("mod.open")))))))
      : h("p.muted", {}, t("mod.queue_empty"))));
}

function decisionForm(c) {
  const reason = h("textarea", { name: "reason", rows: 3, required: true });
  const days = h("input", { type: "number", name: "days", min: "1", max: "3650", value: "7" });
  const sanction = h("select", { name: "sanction" }, SANCTIONS.map((s) => h("option", { value: s }, t(`mod.sanction.${s}`))));
  const daysLabel = h("label", { hidden: true }, h("span", {}, t("mod.days")), days);
  const sanctionRow = h("div.sanction-row", { hidden: true },
    h("label", {}, h("span", {}, t("mod.sanction_kind")), sanction), daysLabel);
  const form = h("form.card.decision", {
    onchange: () => {
      sanctionRow.hidden = new FormData(form).get("decision") !== "sanction";
      daysLabel.hidden = sanction.value !== "suspension";
    },
    onsubmit: async (e) => {
      e.preventDefault();
      const data = new FormData(form);
      const body = { decision: data.get("decision"), reason: reason.value.trim() };
      if (body.decision === "sanction") {
        body.sanction = sanction.value;
        if (sanction.value === "suspension") body.days = Number(days.value);
      }
      try {
        await post(`/api/mod/cases/${c.id}/decision`, body);
        notify(t("mod.decided"));
        go("#/mod");
      } catch (error) {
        showError(error);
      }
    },
  },
    h("h2", {}, t("mod.decision")),
    h("div.segmented", {}, DECISIONS.map((d, i) => h("label", {},
      h("input", { type: "radio", name: "decision", value: d, checked: i === 0 }), h("span", {}, t(`mod.decide.${d}`))))),
    sanctionRow,
    h("label", {}, h("span", {}, t("mod.reason")), reason),
    h("button.primary", { type: "submit" }, t("mod.submit")));
  return form;
}

function caseView(root, id) {
  load(root, `/api/mod/cases/${id}`, ({ case: c }) => {
    const game = { names: Object.fromEntries((c.players || []).map((p) => [p.seat, p.user || t("lobby.bot")])) };
    mount(root,
      h("p", {}, h("a", { href: "#/mod" }, t("mod.back"))),
      h("h1", {}, caseTitle(c)),
      h("p.muted", {}, t("mod.case_meta", { table: c.table, game: c.game, day: c.day ?? "—", when: when(c.created_at) })),
      c.reason ? h("blockquote", {}, c.reason) : null,
      h("div.mod-grid", {},
        h("div.card", {},
          h("h2", {}, t("mod.votes")),
          h("p", {}, t("mod.vote_summary", { by: person(c.by), target: person(c.target), result: t(c.passed ? "mod.passed" : "mod.failed") })),
          h("table.grid", {}, h("tbody", {}, (c.players || []).map((p) => h("tr", {},
            h("td", {}, person(p)),
            h("td", {}, p.role ? roleName(p.role) : "—"),
            h("td", {}, c.ballots && String(p.seat) in c.ballots ? t(c.ballots[p.seat] ? "common.yes" : "common.no") : "—"),
            h("td", {}, t("mod.past_fouls", { count: p.past_fouls ?? 0 }))))))),
        c.status === "open" ? decisionForm(c) : h("div.card", {}, h("p", {}, t("mod.already_decided")))),
      h("h2", {}, t("mod.timeline")),
      h("ol.story", {}, (c.events || []).map((e) => ({ e, text: tell(e, game) })).filter((x) => x.text)
        .map(({ e, text }) => h("li", {}, h("time", {}, clockTime(e.t)), text))));
  });
}

function audit(root) {
  load(root, "/api/mod/audit", ({ entries }) => mount(root,
    entries.length ? h("table.grid", {},
      h("thead", {}, h("tr", {}, ["mod.when", "mod.moderator", "mod.action", "mod.target", "mod.case", "mod.reason"].map((k) => h("th", {}, t(k))))),
      h("tbody", {}, entries.map((e) => h("tr", {},
        h("td", {}, when(e.at)), h("td", {}, e.moderator), h("td", {}, t(`mod.decide.${e.action}`)),
        h("td", {}, e.target || "—"), h("td", {}, e.case ? h("a", { href: `#/mod/case/${e.case}` }, `#${e.case}`) : "—"),
        h("td", {}, e.reason || "")))))
      : h("p.muted", {}, t("mod.audit_empty"))));
}

export function renderModeration(root, page, id) {
  const user = me();
  if (!user || !user.is_moderator) {
    mount(root, h("div.card", {}, h("p", {}, t("mod.only_moderators"))));
    return;
  }
  const content = h("div.mod-content");
  mount(root, h("section.moderation", {},
    h("nav.tabs", {},
      h("a", { href: "#/mod", class: page ? "" : "active" }, t("mod.queue")),
      h("a", { href: "#/mod/audit", class: page === "audit" ? "active" : "" }, t("mod.audit"))),
    content));
  if (page === "case" && id) caseView(content, id);
  else if (page === "audit") audit(content);
  else queue(content);
}
