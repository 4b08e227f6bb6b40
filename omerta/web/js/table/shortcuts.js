// Keyboard shortcuts at the table. Keys typed into a text field are left alone.
//   E end speech · I interject · 1–9, 0 (10), - (11), = (12) name a seat,
//   then Enter clicks it at once and Escape takes it back
//   Y / N yes or no (lift vote, technical vote) · T technical vote · hold C: your card · ? help

import { h } from "../dom.js";
import { t } from "../i18n.js";

const SEAT_KEYS = { 0: 10, "-": 11, "=": 12 };

const SHORTCUTS = [
  ["E", "shortcut.end_speech"], ["I", "shortcut.interject"], ["1–9, 0, -, =", "shortcut.seat"],
  ["Enter / Esc", "shortcut.confirm_undo"],
  ["Y / N", "shortcut.yes_no"], ["T", "shortcut.tech"], ["C", "shortcut.card"], ["?", "shortcut.help"],
];

export function shortcutList() {
  return h("dl.shortcuts", {}, SHORTCUTS.map(([keys, label]) => [h("dt", {}, h("kbd", {}, keys)), h("dd", {}, t(label))]));
}

/** `on` holds endSpeech, interject, seat(n), confirm, undo, yes, no, tech,
 * card(held), help. confirm and undo say whether they did anything (Enter
 * on a focused button is otherwise that button's). Returns the remover. */
export function bindShortcuts(on) {
  function typing(e) {
    return e.target.closest && e.target.closest("input, textarea, select, [contenteditable]");
  }
  function down(e) {
    if (typing(e) || e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key.toLowerCase();
    const seat = /^[1-9]$/.test(key) ? Number(key) : SEAT_KEYS[key];
    const handlers = { e: on.endSpeech, i: on.interject, y: on.yes, n: on.no, t: on.tech, "?": on.help };
    if (key === "enter" || key === "escape") {
      if (!(key === "enter" ? on.confirm() : on.undo())) return;
    } else if (key === "c") {
      if (!e.repeat) on.card(true);
    } else if (seat) {
      on.seat(seat);
    } else if (handlers[key]) {
      handlers[key]();
    } else {
      return;
    }
    e.preventDefault();
  }
  function up(e) {
    if (e.key.toLowerCase() === "c") on.card(false);
  }
  const blur = () => on.card(false);
  window.addEventListener("keydown", down);
  window.addEventListener("keyup", up);
  window.addEventListener("blur", blur);
  return () => {
    window.removeEventListener("keydown", down);
    window.removeEventListener("keyup", up);
    window.removeEventListener("blur", blur);
  };
}
