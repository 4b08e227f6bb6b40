// The audit log, newest first, a page at a time (GET /api/moderation/audit):
// every decision, sanction and change of the moderator role.

import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { actionName, entryDetails, load, moderatorName, pager, when } from "./common.js";

function entryRow(e) {
  return h("tr", {},
    h("td", {}, when(e.at)),
    h("td", {}, moderatorName(e)),
    h("td", {}, actionName(e.action)),
    h("td", {}, e.user || "—"),
    h("td", {}, e.case ? h("a", { href: `#/mod/case/${e.case}` }, `#${e.case}`) : "—"),
    h("td", {}, e.reason),
    h("td", {}, entryDetails(e)));
}

function entriesTable(entries) {
  const heads = ["mod.when", "mod.moderator", "mod.action", "mod.target", "mod.case", "mod.reason", "mod.details"];
  return h("table.grid.audit", {},
    h("thead", {}, h("tr", {}, heads.map((key) => h("th", {}, t(key))))),
    h("tbody", {}, entries.map(entryRow)));
}

export function renderAudit(root, page = 1) {
  load(root, `/api/moderation/audit?page=${page}`, (answer) => mount(root,
    answer.entries.length ? entriesTable(answer.entries) : h("p.muted", {}, t("mod.audit_empty")),
    pager(answer, (next) => renderAudit(root, next))));
}
