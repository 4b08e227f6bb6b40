// The review queue: cases oldest first, filtered by status and by the
// abuse flag, a page at a time (GET /api/moderation/cases). Practice
// tables' votes are left out unless asked for, and marked as practice.

import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { caseTable, caseTitle, flagBadge, load, pager, person, query, statusBadge, statusName, when } from "./common.js";

const STATUSES = ["open", "upheld", "overturned", "dismissed", "all"];

// Kept while the app runs, so coming back from a case shows the same page.
const filters = { status: "open", flagged: false, practice: false, page: 1 };

function raisedBy(c) {
  return c.vote ? person(c.vote.caller) : c.report.reporter;
}

function caseRow(c) {
  return h("tr", {},
    h("td", {}, caseTitle(c), " ", flagBadge(c),
      c.vote?.practice ? h("span.badge.practice", { title: t("mod.practice_hint") }, t("mod.practice")) : null),
    h("td", {}, t("lobby.table_title", { id: caseTable(c) })),
    h("td", {}, c.vote ? person(c.vote.target) : "—"),
    h("td", {}, raisedBy(c)),
    h("td", {}, when(c.opened_at)),
    h("td", {}, statusBadge(c)),
    h("td", {}, h("a.button", { href: `#/mod/case/${c.id}` }, t("mod.open"))));
}

function casesTable(cases) {
  const heads = ["mod.case", "mod.table", "mod.target", "mod.by", "mod.opened", "mod.status_label", ""];
  return h("table.grid.queue", {},
    h("thead", {}, h("tr", {}, heads.map((key) => h("th", {}, key ? t(key) : "")))),
    h("tbody", {}, cases.map(caseRow)));
}

function filterBar(refresh) {
  const change = (next) => { Object.assign(filters, next, { page: 1 }); refresh(); };
  return h("form.filters", { onsubmit: (e) => e.preventDefault() },
    h("label", {}, h("span", {}, t("mod.status_label")),
      h("select", { name: "status", onchange: (e) => change({ status: e.target.value }) },
        STATUSES.map((s) => h("option", { value: s, selected: s === filters.status }, statusName(s))))),
    h("label.check", {},
      h("input", { type: "checkbox", name: "flagged", checked: filters.flagged, onchange: (e) => change({ flagged: e.target.checked }) }),
      t("mod.flagged_only")),
    h("label.check", {},
      h("input", { type: "checkbox", name: "practice", checked: filters.practice, onchange: (e) => change({ practice: e.target.checked }) }),
      t("mod.include_practice")));
}

export function renderQueue(root) {
  const list = h("div.queue-list");
  const refresh = () => {
    const params = { status: filters.status, flagged: filters.flagged ? "true" : null,
      practice: filters.practice ? "true" : null, page: filters.page };
    load(list, `/api/moderation/cases?${query(params)}`, (answer) => {
      // Decisions shrink the queue: a page past its end starts over.
      if (!answer.cases.length && filters.page > 1) {
        filters.page = 1;
        refresh();
        return;
      }
      mount(list,
        answer.cases.length ? casesTable(answer.cases) : h("p.muted", {}, t("mod.queue_empty")),
        pager(answer, (page) => { filters.page = page; refresh(); }));
    });
  };
  mount(root, filterBar(refresh), list);
  refresh();
}
