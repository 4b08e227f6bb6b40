// A table's watch settings on the create form (docs/api.md, "Watching"):
// who may watch live, and the delayed stream with its delay.

import { h } from "../dom.js";
import { t } from "../i18n.js";

const DELAY = { min: 30, max: 3600, default: 180 };

export function watchFields() {
  return h("fieldset.choices.watch-settings", {},
    h("legend", {}, t("watch.spectators")),
    h("div.segmented", {}, ["signed_in", "anyone"].map((value) => h("label", {},
      h("input", { type: "radio", name: "spectators", value, checked: value === "signed_in" }),
      h("span", {}, t(`watch.${value}`))))),
    h("label.switch-row", {}, h("input", { type: "checkbox", name: "stream" }), h("span", {}, t("watch.stream"))),
    h("label.turn", {}, h("span", {}, t("watch.stream_seconds")),
      h("input", { type: "number", name: "stream_delay", min: String(DELAY.min), max: String(DELAY.max),
        value: String(DELAY.default), step: "1", required: true })));
}

/** The `watch` field of POST /api/tables, from the form's data. */
export function readWatch(data) {
  return {
    spectators: data.get("spectators") || "signed_in",
    stream: data.has("stream"),
    stream_delay: Number(data.get("stream_delay")) || DELAY.default,
  };
}
