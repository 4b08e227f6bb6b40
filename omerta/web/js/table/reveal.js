// After the game nothing is secret (docs/rules.md E4): the night told in
// order (shots, checks and their results, visits, heals, kills, who died),
// each day's nominations and a table per vote, and the fouls and technical
// votes. Built from the game's whole story (GET /api/tables/{id}/game).

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { tell } from "./story.js";
import { seatLabel } from "./words.js";

const NIGHT_EVENTS = ["night_action", "check"];
const DEPARTURES_AT_DAWN = ["shot", "killed"];

/** Each event with the period it happened in: {kind: "draw"|"day"|"night", n}. */
export function periods(events) {
  let now = { kind: "draw", n: 0 };
  return events.map((event) => {
    if (event.event === "phase") {
      if (event.night != null) now = { kind: "night", n: event.night };
      else if (event.phase !== "draw") now = { kind: "day", n: event.day };
    }
    return { event, when: now };
  });
}

/** "Day 2", "Night 3", or the draw. */
export function periodLabel(when) {
  if (when.kind === "night") return t("common.night", { n: when.n });
  if (when.kind === "day") return t("common.day", { n: when.n });
  return t("phase.draw");
}

function nights(game, timeline) {
  const byNight = new Map();
  const add = (n, event) => {
    if (!byNight.has(n)) byNight.set(n, []);
    byNight.get(n).push(event);
  };
  for (const { event, when } of timeline) {
    if (when.kind === "night" && NIGHT_EVENTS.includes(event.event)) add(when.n, event);
    // Dawn belongs to the night before it: who died, and of what.
    else if (when.kind === "day" && event.event === "morning") add(when.n, event);
    else if (when.kind === "day" && event.event === "left" && DEPARTURES_AT_DAWN.includes(event.cause)) add(when.n, event);
  }
  if (!byNight.size) return null;
  return h("section.reveal-nights", {}, h("h2", {}, t("reveal.nights")),
    [...byNight.entries()].map(([n, list]) => h("div.reveal-period", { dataset: { night: String(n) } },
      h("h3", {}, t("common.night", { n })),
      h("ul", {}, list.map((event) => [event, tell(event, game)]).filter(([, text]) => text)
        .map(([event, text]) => h("li", { class: event.event }, text))))));
}

function voteTable(game, votes) {
  if (votes.round === "lift") {
    const yes = Object.entries(votes.ballots).filter(([, b]) => b).map(([v]) => seatLabel(game, Number(v)));
    return h("p.lift-result", {}, t("reveal.lift", { count: yes.length, seats: yes.join(", ") || "—" }));
  }
  const voters = {};
  for (const [voter, target] of Object.entries(votes.ballots)) (voters[target] ||= []).push(Number(voter));
  return h("div.table-scroll", {}, h("table.grid.vote-table", {},
    h("thead", {}, h("tr", {}, h("th", {}, t("reveal.candidate")), h("th", {}, t("reveal.votes")), h("th", {}, t("reveal.voters")))),
    h("tbody", {}, Object.keys(votes.counts).map(Number).map((seat) => h("tr", {},
      h("td", {}, seatLabel(game, seat)),
      h("td.num", {}, String(votes.counts[seat] ?? 0)),
      h("td", {}, (voters[seat] || []).sort((a, b) => a - b).map((v) => seatLabel(game, v)).join(", ") || "—"))))));
}

function days(game, timeline) {
  const byDay = new Map();
  for (const { event, when } of timeline) {
    if (when.kind !== "day") continue;
    const wanted = ["nominated", "votes", "vote_cancelled"].includes(event.event)
      || (event.event === "left" && !DEPARTURES_AT_DAWN.includes(event.cause));
    if (!wanted) continue;
    if (!byDay.has(when.n)) byDay.set(when.n, []);
    byDay.get(when.n).push(event);
  }
  if (!byDay.size) return null;
  return h("section.reveal-days", {}, h("h2", {}, t("reveal.days")),
    [...byDay.entries()].map(([n, list]) => {
      const nominations = list.filter((e) => e.event === "nominated");
      return h("div.reveal-period", { dataset: { day: String(n) } },
        h("h3", {}, t("common.day", { n })),
        nominations.length ? h("p", {}, t("reveal.nominations", {
          list: nominations.map((e) => t("reveal.nomination", { by: seatLabel(game, e.by), target: seatLabel(game, e.target) })).join(", ") })) : null,
        list.filter((e) => e.event !== "nominated").map((e) => (e.event === "votes"
          ? h("div.vote-round", {}, h("h4", {}, t(`reveal.round.${e.round}`)), voteTable(game, e))
          : h("p", {}, tell(e, game)))));
    }));
}

function technical(game, timeline) {
  const lines = timeline.filter(({ event }) => ["tech_call", "tech_vote", "foul"].includes(event.event));
  return h("section.reveal-tech", {}, h("h2", {}, t("reveal.tech")),
    lines.length
      ? h("ul", {}, lines.map(({ event, when }) => h("li", {}, h("span.when", {}, periodLabel(when)), " ", tell(event, game))))
      : h("p.muted", {}, t("reveal.no_tech")));
}

/** The sections of the reveal for `events` (the whole game). */
export function revealSections(game, events) {
  const timeline = periods(events);
  return [nights(game, timeline), days(game, timeline), technical(game, timeline)];
}
