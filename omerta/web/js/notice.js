// One line at the top of the screen for errors and short news. Texts are
// either a translation or the server's own `error` sentence, never an object.

import { ApiError } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

let timer = null;

export function notify(text, kind = "info", seconds = 6) {
  const bar = document.getElementById("notice");
  bar.replaceChildren(
    h("span.notice-text", {}, text),
    h("button.notice-close", { type: "button", "aria-label": t("common.close"), onclick: hide }, "×"),
  );
  bar.className = `notice ${kind}`;
  bar.hidden = false;
  clearTimeout(timer);
  if (seconds) timer = setTimeout(hide, seconds * 1000);
}

/** An ApiError shows the server's sentence; anything else is our bug,
 * logged for developers and shown as a translated apology. */
export function showError(error) {
  if (!(error instanceof ApiError)) console.error(error);
  notify(error instanceof ApiError ? error.message : t("error.unexpected"), "error");
}

export function hide() {
  document.getElementById("notice").hidden = true;
}
