// What the moderator pages share: loading a page of the moderation API
// (docs/api.md, "Moderation"), how cases, votes and people are named, and
// the pager under the queue and the audit log.

import { ApiError, get } from "../api.js";
import { h, mount } from "../dom.js";
import { t, tMaybe } from "../i18n.js";

export function when(iso) {
  return iso ? new Date(iso).toLocaleString() : "—";
}

/** "#5 eve", or "#1 Bot" for a seat no person holds. */
export function person(p) {
  return t("seat.label", { n: p.seat, name: p.user || t("lobby.bot") });
}

export function caseTitle(c) {
  return c.vote ? t("mod.tech_case", { kind: t(`tech.${c.vote.kind}`) }) : t("mod.report");
}

/** The table and game a case is about: a vote's, or the reported game's. */
export function caseTable(c) {
  return c.vote ? c.vote.table : c.report.table;
}

export function caseGame(c) {
  return c.vote ? c.vote.game : c.report.game;
}

export function statusName(status) {
  return tMaybe(`mod.status.${status}`, {}, status);
}

export function statusBadge(c) {
  return h("span.badge", { class: `status-${c.status}` }, statusName(c.status));
}

export function flagBadge(c) {
  return c.flagged ? h("span.badge.flagged", {}, t("mod.flagged")) : null;
}

/** A vote was called in a speech (`day`, `last_word`, ...) or a voting round. */
function phaseName(phase) {
  return tMaybe(`speech_kind.${phase}`, {}, tMaybe(`phase.${phase}`, {}, t("phase.unknown")));
}

/** "Day 1, day speech: #8 kim called a technical defeat against #1 Bot." */
export function voteLine(vote) {
  return t("mod.vote_line", {
    day: vote.day, phase: phaseName(vote.phase), by: person(vote.caller),
    kind: t(`tech.${vote.kind}`), target: person(vote.target),
  });
}

/** "Passed: 6 of 10 voted yes." */
export function voteResult(vote) {
  return t(vote.passed ? "mod.passed" : "mod.failed", { yes: vote.yes, voters: vote.voters });
}

/** Show `path` in `root`: loading first, then `show(answer)`, or the
 * server's sentence (a translated apology for anything else). */
export async function load(root, path, show) {
  // Filters change faster than the server answers: only the latest request shows.
  root.dataset.path = path;
  mount(root, h("p.muted", {}, t("common.loading")));
  let answer;
  try {
    answer = await get(path);
  } catch (error) {
    if (!(error instanceof ApiError)) console.error(error);
    if (root.dataset.path === path) {
      mount(root, h("div.card.load-error", {}, h("p", {}, error instanceof ApiError ? error.message : t("error.unexpected"))));
    }
    return;
  }
  if (root.dataset.path === path) show(answer);
}

/** "Page 2 of 3" with the way back and on; nothing when one page holds all. */
export function pager({ page, per_page: perPage, total }, turn) {
  const pages = Math.max(1, Math.ceil(total / perPage));
  if (pages === 1) return null;
  return h("nav.pager", {},
    h("button", { type: "button", disabled: page <= 1, onclick: () => turn(page - 1) }, t("mod.previous")),
    h("span", {}, t("mod.page", { page, pages })),
    h("button", { type: "button", disabled: page >= pages, onclick: () => turn(page + 1) }, t("mod.next")));
}

export function query(params) {
  return new URLSearchParams(Object.entries(params).filter(([, value]) => value != null)).toString();
}

export function actionName(action) {
  return tMaybe(`mod.actions.${action}`, {}, action);
}

/** What an audit entry's details add: the sanction given or lifted, or
 * that an overturn voided the game's ranked result. */
export function entryDetails(entry) {
  const d = entry.details;
  if (entry.action === "sanction") {
    const kind = t(`mod.sanction.${d.kind}`);
    return d.ends_at ? `${kind}, ${t("mod.until", { when: when(d.ends_at) })}` : kind;
  }
  if (entry.action === "lift_sanction") return t(`mod.sanction.${d.kind}`);
  return d.voided ? t("mod.voided") : "";
}

/** The operator's own entries (granting the role) have no moderator. */
export function moderatorName(entry) {
  return entry.moderator || t("mod.operator");
}
