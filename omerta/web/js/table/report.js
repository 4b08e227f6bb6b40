// A player's report of a finished game to the moderators (POST /api/reports,
// docs/api.md "Moderation"). The server decides who may report and how
// often; a refusal is shown as its own sentence, in the form.

import { ApiError, post } from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";

// The server's limit on a reason (omerta.moderation.REASON_MAX); it counts
// the text once surrounding spaces are cut, so the raw text is sent as typed.
const REASON_MAX = 500;

function reasonField() {
  return h("label", {},
    h("span", {}, t("end.report.reason")),
    h("textarea", { name: "reason", rows: 3, maxlength: String(REASON_MAX), required: true }),
    h("span.hint", {}, t("end.report.limits", { max: REASON_MAX })));
}

function refusal(error) {
  if (!(error instanceof ApiError)) console.error(error);
  return error instanceof ApiError ? error.message : t("error.unexpected");
}

/** The report control for game `gameId`: one line until the player opens it. */
export function reportControl(gameId) {
  const answer = h("p.report-answer", { role: "status", hidden: true });
  const form = h("form.report-form", { onsubmit: (e) => { e.preventDefault(); file(); } },
    reasonField(),
    h("button.primary", { type: "submit" }, t("end.report.submit")),
    answer);

  /** Post once: the button waits for the answer, so a double click cannot
   * send a second report. */
  async function file() {
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      await post("/api/reports", { game: gameId, reason: form.elements.reason.value });
    } catch (error) {
      answer.className = "report-answer error";
      answer.textContent = refusal(error);
      answer.hidden = false;
      button.disabled = false;
      return;
    }
    form.replaceWith(h("p.report-answer.done", { role: "status" }, t("end.report.filed")));
  }

  return h("details.card.report-game", {}, h("summary", {}, t("end.report.open")), form);
}
