// The small labels on seat tiles: nominee order, votes (open ones as they
// come, closed ones after the count, your own at once), the lift vote, and
// the night choices this seat may see (its own, its team's shot), and in
// the draw who has picked a card.

import { t } from "../i18n.js";
import { isNight } from "./words.js";

/** {marks: seat -> [{text, secret}], counted: the votes event of this phase, if any}.
 * Night choices are secret: they show only while the card key is held. */
export function tileMarks(game, view) {
  const marks = {};
  const add = (seat, text, secret = false) => (marks[seat] ||= []).push({ text, secret });
  const news = game.sincePhase();
  if (view.phase === "draw") {
    for (const e of game.list("picked")) add(e.seat, t("mark.picked"));
  } else if (isNight(view)) {
    for (const e of news.filter((e) => e.event === "night_action")) add(e.target, t(`mark.${e.action}`, { by: e.by }), true);
  } else {
    view.nominees.forEach((seat, i) => add(seat, t("mark.nominee", { n: i + 1 })));
  }
  const counted = news.filter((e) => e.event === "votes").pop() || null;
  // During a vote the view holds the ballots this seat may see: all of
  // them in open voting, only its own in closed voting.
  const ballots = view.vote ? view.vote.ballots : counted?.ballots || {};
  const lift = view.vote ? view.vote.round === "lift" : counted?.round === "lift";
  for (const [voter, choice] of Object.entries(ballots)) {
    add(voter, lift ? t(choice ? "mark.lift_yes" : "mark.lift_no") : t("mark.voted", { n: choice }));
  }
  return { marks, counted };
}
