// A server's refusal in the player's language. The server names each
// refusal with a stable `code` and its `params` (docs/api.md, "Refusals");
// the text is the server's own English for developers, never shown at the
// table: a refusal without a code the client knows reads as a plain
// sentence, not as internal English or a rule number.

import { t, tMaybe } from "./i18n.js";

/** Cards and similar counters are numbered from 0 on the wire and from 1
 * on the screen (the draw shows cards 1–10). */
const COUNTED_FROM_ZERO = ["card"];

function shown(params) {
  const out = {};
  for (const [name, value] of Object.entries(params)) {
    if (COUNTED_FROM_ZERO.includes(name) && Number.isInteger(value)) out[name] = value + 1;
    else out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/** The translated sentence for a refusal `{code, params, error}`, or null
 * when its code is missing or not one the client knows. */
export function knownRefusal(message) {
  if (!message || typeof message.code !== "string" || !/^[a-z_]+$/.test(message.code)) return null;
  const params = message.params && typeof message.params === "object" ? message.params : {};
  const text = tMaybe(`refusal.${message.code}`, shown(params), null);
  return typeof text === "string" ? text : null;
}

/** What to show for a table refusal: its translation, or a plain sentence. */
export function refusalText(message) {
  if (message && message.error) console.info("refused:", message.error, message.rule || "");
  return knownRefusal(message) ?? t("refusal.other");
}
