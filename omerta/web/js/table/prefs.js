// What a player keeps between games on this browser: the volume of each
// player they hear, and private notes on the players at a table.

import { load, save } from "../storage.js";

const DEFAULT_VOLUME = 1;

export function volumeOf(player) {
  const value = load(`volume.${player}`);
  return typeof value === "number" && value >= 0 && value <= 1 ? value : DEFAULT_VOLUME;
}

export function setVolume(player, value) {
  save(`volume.${player}`, value === DEFAULT_VOLUME ? null : value);
}

export function notesFor(tableId) {
  const notes = load(`notes.${tableId}`, {});
  return notes && typeof notes === "object" ? notes : {};
}

export function setNote(tableId, seat, text) {
  const notes = notesFor(tableId);
  if (text.trim()) notes[seat] = text;
  else delete notes[seat];
  save(`notes.${tableId}`, Object.keys(notes).length ? notes : null);
}
