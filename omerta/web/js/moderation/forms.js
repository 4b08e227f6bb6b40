// The two forms of a case page: the decision (POST /api/moderation/cases/
// {id}/uphold, /overturn or /dismiss) and a sanction for one of its
// players (POST /api/moderation/sanctions). Each needs a reason; the
// server's refusal, if any, is shown as its sentence.

import { post } from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { notify, showError } from "../notice.js";

const SANCTIONS = ["warning", "suspension", "ban"];
const MAX_DAYS = 3650;

function reasonField() {
  return h("label", {}, h("span", {}, t("mod.reason")),
    h("textarea", { name: "reason", rows: 3, maxlength: "500", required: true }));
}

/** Post `body` once: the button waits for the answer, so a second click
 * cannot record a second decision. */
async function send(form, path, body, done) {
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    await post(path, body);
  } catch (error) {
    showError(error);
    button.disabled = false;
    return;
  }
  done();
}

/** A vote is upheld or overturned; a report is upheld or dismissed. */
export function decisionForm(c, done) {
  const choices = c.vote ? ["uphold", "overturn"] : ["uphold", "dismiss"];
  const form = h("form.card.decision", {
    onsubmit: (e) => {
      e.preventDefault();
      const data = new FormData(form);
      send(form, `/api/moderation/cases/${c.id}/${data.get("decision")}`, { reason: data.get("reason").trim() }, () => {
        notify(t("mod.decided"));
        done();
      });
    },
  },
    h("h2", {}, t("mod.decision")),
    h("p.muted", {}, t(c.vote ? "mod.decide_vote_hint" : "mod.decide_report_hint")),
    h("div.segmented", {}, choices.map((d) => h("label", {},
      h("input", { type: "radio", name: "decision", value: d, required: true }), h("span", {}, t(`mod.decide.${d}`))))),
    reasonField(),
    h("button.primary", { type: "submit" }, t("mod.submit")));
  return form;
}

/** Only a suspension has a number of days; the field is disabled (and so
 * neither checked nor sent) for the others. */
function daysField(kind) {
  const days = h("input", { type: "number", name: "days", min: "1", max: String(MAX_DAYS), value: "7", required: true });
  const label = h("label", {}, h("span", {}, t("mod.days")), days);
  const sync = () => {
    label.hidden = days.disabled = kind.value !== "suspension";
  };
  kind.addEventListener("change", sync);
  sync();
  return label;
}

/** A sanction for one of the case's players, linked to the case. */
export function sanctionForm(caseId, players, done) {
  const kind = h("select", { name: "kind" }, SANCTIONS.map((s) => h("option", { value: s }, t(`mod.sanction.${s}`))));
  const form = h("form.card.sanction", {
    onsubmit: (e) => {
      e.preventDefault();
      const data = new FormData(form);
      const body = { user: data.get("user"), kind: data.get("kind"), reason: data.get("reason").trim(), case: caseId };
      if (data.has("days")) body.days = Number(data.get("days"));
      send(form, "/api/moderation/sanctions", body, () => {
        notify(t("mod.sanctioned"));
        done();
      });
    },
  },
    h("h2", {}, t("mod.sanction_title")),
    h("div.sanction-row", {},
      h("label", {}, h("span", {}, t("mod.target")),
        h("select", { name: "user" }, players.map((p) => h("option", { value: p.user }, p.user)))),
      h("label", {}, h("span", {}, t("mod.sanction_kind")), kind),
      daysField(kind)),
    reasonField(),
    h("button.primary", { type: "submit" }, t("mod.sanction_submit")));
  return form;
}
