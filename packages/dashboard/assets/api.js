/**
 * The page's access to the gateway: JSON endpoints, downloads and the live feed, all with the
 * bearer token in an `Authorization` header (never in a URL). The live feed is read with fetch
 * streaming, not EventSource, which cannot send headers.
 */
import { createParser } from "eventsource-parser";

const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.getAttribute("content") ?? "";
export const apiPath = meta("afw-api-path") || "/api";
export const redacted = meta("afw-redacted") === "true";
const TOKEN_KEY = "afw.dashboard.token";

/** The token and who to tell when the gateway answers 401 (set by the app). */
export const session = { token: "", onUnauthorized: () => {}, onAuthorized: () => {} };

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function headers(extra = {}) {
  return session.token ? { Accept: "application/json", ...extra, Authorization: `Bearer ${session.token}` } : { Accept: "application/json", ...extra };
}

/** Fetches `{apiPath}{path}?params` (JSON), with `body` as a JSON POST. @throws ApiError */
export async function api(path, { params = {}, method = "GET", body = undefined } = {}) {
  const query = new URLSearchParams(Object.entries(params).map(([key, value]) => [key, String(value)]));
  const init = { method, headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }), cache: /** @type {const} */ ("no-store"), credentials: /** @type {const} */ ("same-origin") };
  const response = await fetch(`${apiPath}${path}${query.size ? `?${query}` : ""}`, body === undefined ? init : { ...init, body: JSON.stringify(body) });
  if (response.status === 401) session.onUnauthorized();
  const json = await response.json().catch(() => undefined);
  if (!response.ok) throw new ApiError(response.status, String(json?.error?.code ?? "HTTP_ERROR"), String(json?.error?.message ?? `HTTP ${response.status}`));
  session.onAuthorized();
  return json;
}

/** Downloads `{apiPath}{path}?params` as `filename`; resolves to its size in bytes. */
export async function download(path, params, filename, accept) {
  const response = await fetch(`${apiPath}${path}?${new URLSearchParams(params)}`, { headers: headers({ Accept: accept }), cache: "no-store", credentials: "same-origin" });
  if (!response.ok) throw new ApiError(response.status, "HTTP_ERROR", `HTTP ${response.status}`);
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const link = Object.assign(document.createElement("a"), { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return blob.size;
}

/**
 * Reads the live feed once, calling `onFrame(name, payload)` per frame. Resolves `unauthorized`,
 * `unavailable` (no live feed on this gateway) or `closed`; rejects on network errors.
 */
export async function streamEvents(signal, onFrame, onRetry) {
  const response = await fetch(`${apiPath}/events`, { headers: headers({ Accept: "text/event-stream" }), cache: "no-store", signal });
  if (response.status === 401) {
    session.onUnauthorized();
    return "unauthorized";
  }
  if (response.status === 501) return "unavailable";
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
  session.onAuthorized();
  const parser = createParser({
    onRetry,
    onEvent({ event = "message", data }) {
      try {
        onFrame(event, JSON.parse(data));
      } catch {
        // a frame that is not JSON is ignored
      }
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return "closed";
    parser.feed(value);
  }
}

/** The token from `#token=` (then removed from the address bar) or this tab's storage. */
export function initialToken() {
  const match = /^#(?:.*&)?token=([^&]*)/.exec(location.hash);
  if (match) {
    history.replaceState(null, "", `${location.pathname}${location.search}`);
    try {
      return decodeURIComponent(match[1] ?? "");
    } catch {
      return "";
    }
  }
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? "";
  } catch {
    return "";
  }
}

/** Keeps the token in this tab's storage (when allowed). */
export function storeToken(token) {
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // storage may be disabled; the token then lives for this page only
  }
}
