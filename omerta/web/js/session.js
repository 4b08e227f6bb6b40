// Who is signed in. Pages read `me()`; sign in, up and out go through here.

import { get, post } from "./api.js";

let user = null;
const listeners = new Set();

export function me() {
  return user;
}

export function onSessionChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function set(next) {
  user = next;
  for (const listener of listeners) listener(user);
}

export async function loadSession() {
  try {
    set((await get("/api/me")).user);
  } catch {
    set(null);        // 401: not signed in (or the server is away: the lobby says so)
  }
}

export async function signIn(username, password) {
  set((await post("/api/login", { username, password })).user);
}

export async function signUp(username, password) {
  set((await post("/api/register", { username, password })).user);
}

export async function signOut() {
  await post("/api/logout");
  set(null);
}
