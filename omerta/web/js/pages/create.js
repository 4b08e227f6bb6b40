// The form that creates a table with every docs/rules.md §3 setting.
// City mode needs an account, as does every table: the form is for signed-in players.

import { post } from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { showError } from "../notice.js";
import { CHOICES, CITY_TURNS, SWITCHES, TURN_SECONDS } from "../settings.js";
import { readWatch, watchFields } from "../watch/settings.js";

function choiceGroup(name, values, checked, label) {
  return h("fieldset.choices", {},
    h("legend", {}, t(`settings.${name}.label`)),
    h("div.segmented", {}, values.map((value) => h("label", {},
      h("input", { type: "radio", name, value: String(value), checked: value === checked }),
      h("span", {}, label(value))))),
    h("small.hint", {}, t(`settings.${name}.hint`)));
}

function toggle(name) {
  return h("label.switch-row", {},
    h("input", { type: "checkbox", name }),
    h("span", {}, h("strong", {}, t(`settings.${name}.label`)), h("small.hint", {}, t(`settings.${name}.hint`))));
}

function secondsInput(name, label) {
  return h("label.turn", {}, h("span", {}, label),
    h("input", { type: "number", name, min: String(TURN_SECONDS.min), max: String(TURN_SECONDS.max),
      value: String(TURN_SECONDS.default), step: "1", required: true }));
}

function cityFields() {
  const perTurn = h("div.turns", { hidden: true },
    CITY_TURNS.map((turn) => secondsInput(`turn_${turn}`, t(`role_turn.${turn}`))));
  const oneTimer = secondsInput("night_turn_seconds", t("settings.night_turn_seconds.label"));
  const eachOwn = h("input", { type: "checkbox", name: "per_turn",
    onchange: (e) => { perTurn.hidden = !e.target.checked; oneTimer.hidden = e.target.checked; } });
  const mafia = choiceGroup("mafia_count", CHOICES.mafia_count, 2, String);
  const seats = choiceGroup("seats", CHOICES.seats, 10, String);
  // M1: three Mafia by default at twelve seats, until the creator picks a number.
  let mafiaTouched = false;
  mafia.addEventListener("change", () => { mafiaTouched = true; });
  seats.addEventListener("change", (e) => {
    if (mafiaTouched) return;
    const count = e.target.value === "12" ? "3" : "2";
    mafia.querySelector(`input[value="${count}"]`).checked = true;
  });
  return h("fieldset.city", { hidden: true },
    h("legend", {}, t("create.city_settings")),
    seats, mafia,
    choiceGroup("speech_seconds", CHOICES.speech_seconds, 60, (s) => t("common.seconds", { seconds: s })),
    h("fieldset.choices", {},
      h("legend", {}, t("settings.night_turn_seconds.label")),
      oneTimer,
      h("label.switch-row", {}, eachOwn, h("span", {}, t("create.per_turn"))),
      perTurn,
      h("small.hint", {}, t("settings.night_turn_seconds.hint"))));
}

function readSettings(form) {
  const data = new FormData(form);
  const ruleset = data.get("ruleset");
  const settings = {
    voting: data.get("voting"),
    agreement: data.get("agreement"),
    ...Object.fromEntries(SWITCHES.map((name) => [name, data.has(name)])),
  };
  if (ruleset === "city") {
    settings.seats = Number(data.get("seats"));
    settings.mafia_count = Number(data.get("mafia_count"));
    settings.speech_seconds = Number(data.get("speech_seconds"));
    settings.night_turn_seconds = data.has("per_turn")
      ? Object.fromEntries(CITY_TURNS.map((turn) => [turn, Number(data.get(`turn_${turn}`))]))
      : Number(data.get("night_turn_seconds"));
  }
  return { ruleset, settings, watch: readWatch(data) };
}

/** The create-table form; `created(table)` runs after the server made it. */
export function createTableForm(created) {
  const city = cityFields();
  const submit = h("button.primary", { type: "submit" }, t("create.submit"));
  const form = h("form.card.create", {
    onsubmit: async (e) => {
      e.preventDefault();
      submit.disabled = true;
      try {
        created((await post("/api/tables", readSettings(form))).table);
      } catch (error) {
        showError(error);
      } finally {
        submit.disabled = false;
      }
    },
  },
    h("h2", {}, t("create.title")),
    choiceGroup("ruleset", ["classic", "city"], "classic", (r) => t(`ruleset.${r}`)),
    choiceGroup("voting", CHOICES.voting, "closed", (v) => t(`settings.voting.${v}`)),
    choiceGroup("agreement", CHOICES.agreement, "silent", (v) => t(`settings.agreement.${v}`)),
    SWITCHES.map(toggle),
    city,
    watchFields(),
    submit);
  form.addEventListener("change", (e) => {
    if (e.target.name !== "ruleset") return;
    city.hidden = e.target.value !== "city";
    city.querySelectorAll("input").forEach((input) => { input.disabled = city.hidden; });
  });
  city.querySelectorAll("input").forEach((input) => { input.disabled = true; });
  return form;
}
