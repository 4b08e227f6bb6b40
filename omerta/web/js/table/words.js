// Names for what the table shows: seats with their players, roles, phases.

import { t, tMaybe } from "../i18n.js";

/** "#4 alice": a seat and who sits there. */
export function seatLabel(game, seat) {
  const name = game.names[seat];
  return name ? t("seat.label", { n: seat, name }) : t("seat.bare", { n: seat });
}

export function roleName(role) {
  return tMaybe(`role.${role}`, {}, role);
}

export function teamOf(role) {
  return ["don", "mafia"].includes(role) ? "black" : role === "maniac" ? "maniac" : "red";
}

const NIGHT_PHASES = ["meeting", "shot", "checks", "putana", "mafia", "maniac", "doctor", "commissar", "don", "night"];

export function isNight(view) {
  return NIGHT_PHASES.includes(view.phase);
}

/** "Day 2 · Vote", "Night 3 · The shot". */
export function phaseTitle(view) {
  const phase = tMaybe(`phase.${view.phase}`, {}, t("phase.unknown"));
  if (view.phase === "draw" || view.phase === "over") return phase;
  const when = isNight(view) ? t("common.night", { n: view.night }) : t("common.day", { n: view.day });
  return `${when} · ${phase}`;
}
