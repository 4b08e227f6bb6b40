// Every text the client shows comes from web/i18n/<lang>.json through t().

import { load, save } from "./storage.js";

export const LANGUAGES = ["en", "uk", "pl"];
const FALLBACK = "en";
let strings = {};
let fallback = {};
let lang = FALLBACK;
let plurals = new Intl.PluralRules(FALLBACK);

function browserLanguage() {
  for (const tag of navigator.languages || [navigator.language]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return FALLBACK;
}

async function fetchStrings(code) {
  const response = await fetch(`/web/i18n/${code}.json`);
  if (!response.ok) throw new Error(`no translation ${code}`);
  return response.json();
}

/** Load the chosen language (a saved switch wins over the browser's). */
export async function loadLanguage() {
  const saved = load("language");
  lang = LANGUAGES.includes(saved) ? saved : browserLanguage();
  fallback = await fetchStrings(FALLBACK);
  strings = lang === FALLBACK ? fallback : await fetchStrings(lang).catch(() => fallback);
  plurals = new Intl.PluralRules(lang);
  document.documentElement.lang = lang;
}

export function currentLanguage() {
  return lang;
}

export function chooseLanguage(code) {
  save("language", code);
}

function lookup(table, key) {
  return key.split(".").reduce((node, part) => (node == null ? undefined : node[part]), table);
}

/** The text for `key`, with {name} replaced from `params`; a key whose
 * entry is an object of plural forms picks one by `params.count`. */
export function t(key, params = {}) {
  let text = lookup(strings, key) ?? lookup(fallback, key);
  if (text && typeof text === "object") text = text[plurals.select(params.count ?? 0)] ?? text.other;
  if (typeof text !== "string") return key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** t() only when the key exists: for names that come from the server
 * (phases, reasons) where an unknown one falls back to `otherwise`. */
export function tMaybe(key, params, otherwise) {
  return lookup(strings, key) ?? lookup(fallback, key) ? t(key, params) : otherwise;
}
