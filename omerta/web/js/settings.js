// docs/rules.md §3 table settings: their choices, and how a table's read in words.

import { t } from "./i18n.js";

export const CITY_TURNS = ["putana", "mafia", "maniac", "doctor", "commissar", "don"];

export const CHOICES = {
  voting: ["closed", "open"],
  agreement: ["silent", "sound"],
  speech_seconds: [30, 45, 60, 90],
  mafia_count: [1, 2, 3],
  seats: [10, 11, 12],
};
export const SWITCHES = ["auto_deal", "break_at_zero", "lift_at_zero", "best_move"];
export const TURN_SECONDS = { min: 5, max: 30, default: 10 };

function nightTurns(value) {
  if (typeof value === "number") return t("settings.summary.night_turn_seconds", { seconds: value });
  return CITY_TURNS.map((turn) => `${t(`role_turn.${turn}`)} ${t("common.seconds", { seconds: value[turn] })}`)
    .join(", ");
}

/** The table's settings as short phrases, in a stable order. */
export function describeSettings(ruleset, settings) {
  const out = [
    t(`settings.summary.voting.${settings.voting}`),
    t(`settings.summary.agreement.${settings.agreement}`),
    t(settings.auto_deal ? "settings.summary.auto_deal" : "settings.summary.draw"),
  ];
  if (settings.break_at_zero) out.push(t("settings.summary.break_at_zero"));
  if (settings.lift_at_zero) out.push(t("settings.summary.lift_at_zero"));
  if (settings.best_move) out.push(t("settings.summary.best_move"));
  if (ruleset === "city") {
    out.push(t("settings.summary.seats", { count: settings.seats }),
      t("settings.summary.mafia_count", { count: settings.mafia_count }),
      t("settings.summary.speech_seconds", { seconds: settings.speech_seconds }),
      nightTurns(settings.night_turn_seconds));
  }
  return out;
}
