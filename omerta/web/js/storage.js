// Remembered preferences in localStorage, as JSON, under one prefix.
// A browser that refuses storage (private mode, quota) just forgets.

const PREFIX = "omerta.";

export function load(key, otherwise = null) {
  try {
    const raw = localStorage.getItem(PREFIX + key);
    return raw === null ? otherwise : JSON.parse(raw);
  } catch {
    return otherwise;
  }
}

export function save(key, value) {
  try {
    if (value === null || value === undefined) localStorage.removeItem(PREFIX + key);
    else localStorage.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    // storage full or disabled: the preference is not remembered
  }
}
