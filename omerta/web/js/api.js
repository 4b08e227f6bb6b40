// The HTTP API (docs/api.md): JSON in and out, the CSRF header on every
// unsafe request. A failure is an ApiError whose message is the server's
// `error` sentence (translated when it comes with a `code` the client
// knows), or a translated one when the server could not say.

import { t } from "./i18n.js";
import { knownRefusal } from "./refusal.js";

export class ApiError extends Error {
  constructor(status, message, rule = null, code = null) {
    super(message);
    this.status = status;
    this.rule = rule;
    this.code = code;
  }
}

function csrfCookie() {
  const found = document.cookie.match(/(?:^|; )omerta_csrf=([^;]*)/);
  return found ? decodeURIComponent(found[1]) : null;
}

async function csrfToken() {
  const cookie = csrfCookie();
  if (cookie) return cookie;
  const answer = await request("GET", "/api/csrf");
  return answer.csrf;
}

async function request(method, path, body, headers = {}) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? headers : { ...headers, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch {
    throw new ApiError(0, t("error.network"));
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    throw new ApiError(response.status, t("error.unexpected"));
  }
  if (!response.ok) {
    const message = knownRefusal(data) ?? (data && typeof data.error === "string" ? data.error : t("error.unexpected"));
    throw new ApiError(response.status, message, data && data.rule, data && data.code);
  }
  return data;
}

export function get(path) {
  return request("GET", path);
}

export async function post(path, body = {}) {
  return request("POST", path, body, { "X-CSRF-Token": await csrfToken() });
}
