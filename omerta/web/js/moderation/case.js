// One case (GET /api/moderation/cases/{id}): the vote and its ballots,
// the other votes at the table, the abuse flag's evidence, the players'
// records, the game's events around the vote, and the forms to decide it
// and to sanction its players.

import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { clockTime, tell } from "../table/story.js";
import {
  actionName, caseGame, caseTable, caseTitle, entryDetails, flagBadge, load, moderatorName, person, statusBadge,
  statusName, voteLine, voteResult, when,
} from "./common.js";
import { decisionForm, sanctionForm } from "./forms.js";
import { replayHref } from "../replay/page.js";

// These lines speak to the seat that received them ("Your card: ..."); a
// moderator reads every audience, so they would name the wrong "you".
const TO_ONE_SEAT = ["role", "team"];

function header(c) {
  return [
    h("p", {}, h("a", { href: "#/mod" }, t("mod.back"))),
    h("h1", {}, caseTitle(c), " ", statusBadge(c), " ", flagBadge(c),
      c.vote?.practice ? h("span.badge.practice", { title: t("mod.practice_hint") }, t("mod.practice")) : null),
    h("p.muted", {}, t("mod.case_meta", { table: caseTable(c), game: caseGame(c) ?? "—", when: when(c.opened_at) })),
    caseGame(c) != null
      ? h("p", {}, h("a.button.replay-link", { href: replayHref(caseGame(c), { at: c.vote ? Math.floor(c.vote.called_at) : null }) },
        t(c.vote ? "replay.at_vote" : "replay.open")))
      : null,
  ];
}

function reportCard(report) {
  return h("div.card.report", {},
    h("h2", {}, t("mod.report_reason")),
    h("p.muted", {}, t("mod.reported_by", { name: report.reporter, when: when(report.created_at) })),
    h("blockquote", {}, report.reason));
}

function voteCard(vote) {
  return h("div.card.vote", {},
    h("h2", {}, t("mod.votes")),
    h("p", {}, voteLine(vote)),
    h("p", {}, voteResult(vote)),
    h("table.grid.ballots", {},
      h("thead", {}, h("tr", {}, h("th", {}, t("mod.voter")), h("th", {}, t("mod.ballot")))),
      h("tbody", {}, vote.ballots.map((b) => h("tr", {},
        h("td", {}, person(b)), h("td", {}, t(b.yes ? "common.yes" : "common.no")))))));
}

function otherVotes(detail) {
  const others = detail.table_votes.filter((v) => v.id !== detail.case.vote.id);
  return h("div.card.other-votes", {},
    h("h2", {}, t("mod.other_votes")),
    others.length
      ? h("ul", {}, others.map((v) => h("li", {}, voteLine(v), " ", voteResult(v))))
      : h("p.muted", {}, t("mod.no_other_votes")));
}

/** Why the case is flagged: the earlier votes at other tables with the group. */
function patternCard(detail) {
  return h("div.card.pattern", {},
    h("h2", {}, t("mod.flagged")),
    h("p", {}, t("mod.group", { names: detail.group.join(", ") })),
    h("ul", {}, detail.pattern.map((v) => h("li", {},
      t("mod.pattern_vote", { table: v.table, when: when(v.recorded_at) }), " ", voteLine(v)))));
}

function sanctionLine(s) {
  const period = s.lifted_at ? t("mod.lifted", { when: when(s.lifted_at) })
    : s.ends_at ? t("mod.until", { when: when(s.ends_at) })
      : t("mod.since", { when: when(s.starts_at) });
  return t("mod.sanction_line", { kind: t(`mod.sanction.${s.kind}`), reason: s.reason, period });
}

function playersCard(players) {
  return h("div.card.players", {},
    h("h2", {}, t("mod.players")),
    h("table.grid", {},
      h("thead", {}, h("tr", {}, ["mod.target", "mod.fouls", "mod.sanctions"].map((key) => h("th", {}, t(key))))),
      h("tbody", {}, players.map((p) => h("tr", { dataset: { user: p.user } },
        h("td", {}, p.user),
        h("td", {}, t("mod.past_fouls", { count: p.fouls.length }), p.fouls.length
          ? h("ul", {}, p.fouls.map((f) => h("li", {}, t("mod.foul_line", { table: f.table, status: statusName(f.status) }))))
          : null),
        h("td", {}, p.sanctions.length
          ? h("ul", {}, p.sanctions.map((s) => h("li", {}, sanctionLine(s))))
          : h("span.muted", {}, t("mod.no_sanctions"))))))));
}

/** Who sat where, as far as the votes tell: every living human votes (T2). */
function seatNames(detail) {
  const people = detail.table_votes.flatMap((v) => [v.caller, v.target, ...v.ballots]);
  return Object.fromEntries(people.map((p) => [p.seat, p.user || t("lobby.bot")]));
}

function timelineBody(detail) {
  const around = detail.window;
  if (!around) return h("p.muted", {}, t(detail.record_open ? "mod.timeline_report" : "mod.timeline_closed"));
  if (around.error) return h("p.muted", {}, around.error);
  const game = { names: seatNames(detail) };
  return h("ol.story", {}, around.events
    .filter((e) => !TO_ONE_SEAT.includes(e.event))
    .map((e) => ({ e, text: tell(e, game) }))
    .filter(({ text }) => text)
    .map(({ e, text }) => h("li", {}, h("time", {}, clockTime(e.t)), " ", text)));
}

function timeline(detail) {
  return h("section.card.timeline", {},
    h("h2", {}, t(detail.case.vote ? "mod.timeline" : "mod.timeline_game")),
    timelineBody(detail),
    detail.record_open
      ? h("p", {}, h("a.button", { href: detail.script, download: `table-${detail.table}.ndjson` }, t("mod.script")))
      : null);
}

function decisionItem(entry) {
  const details = entryDetails(entry);
  return h("li", {},
    t("mod.decision_line", { when: when(entry.at), moderator: moderatorName(entry), action: actionName(entry.action), reason: entry.reason }),
    details ? h("span.muted", {}, ` · ${details}`) : null);
}

function decisions(entries) {
  return h("section.card.decisions", {},
    h("h2", {}, t("mod.decisions")),
    entries.length ? h("ul", {}, entries.map(decisionItem)) : h("p.muted", {}, t("mod.no_decisions")));
}

function decided(c) {
  return h("div.card.decided", {},
    h("h2", {}, t("mod.decision")),
    h("p", {}, t("mod.already_decided", { status: statusName(c.status), by: c.decided_by, when: when(c.decided_at) })));
}

function caseParts(detail, reload) {
  const c = detail.case;
  const evidence = c.vote ? [voteCard(c.vote), otherVotes(detail)] : [reportCard(c.report)];
  if (detail.pattern.length) evidence.push(patternCard(detail));
  const actions = [c.status === "open" ? decisionForm(c, reload) : decided(c)];
  if (detail.players.length) actions.push(sanctionForm(c.id, detail.players, reload));
  return [
    ...header(c),
    h("div.mod-grid", {}, h("div.mod-column", {}, evidence), h("div.mod-column", {}, actions)),
    timeline(detail),
    playersCard(detail.players),
    decisions(detail.decisions),
  ];
}

export function renderCase(root, id) {
  const show = () => load(root, `/api/moderation/cases/${id}`, (detail) => mount(root, caseParts(detail, show)));
  show();
}
