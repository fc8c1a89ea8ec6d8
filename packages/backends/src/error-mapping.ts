import { BackendError, redactSecrets, type ErrorCode } from "@afw/contracts";
import { findConnectRefusal } from "./address-policy.js";
import { parseJsonBounded } from "./json-limits.js";
import { asRecord, nonEmptyString } from "./reply-utils.js";

/** What an error is about: which backend, which flow, what the adapter was doing. */
export interface ErrorContext {
  /** Backend instance id. */
  backendId: string;
  /** Backend kind, used in messages (`flowise`, `langflow`). */
  kind: string;
  /** The platform flow id, when the call was about one flow. */
  flowId?: string | undefined;
  /** What the adapter was doing, e.g. `execute`, `discover flows`. */
  operation: string;
  /** Secrets that must never appear in a message (API keys, tokens). */
  secrets?: readonly string[];
}

const MAX_MESSAGE_LENGTH = 300;

/** `<kind> backend '<id>': <operation>[ of flow <id>]`, the start of every adapter error message. */
function subject(context: ErrorContext): string {
  return `${context.kind} backend '${context.backendId}': ${context.operation}${context.flowId !== undefined ? ` of flow ${context.flowId}` : ""}`;
}

/** A {@link BackendError} about `context`: the message `<subject> <what>`, `details` with the operation and `extra`. */
function contextError(
  context: ErrorContext,
  code: ErrorCode,
  what: string,
  isRetryable: boolean,
  options: { statusCode?: number | undefined; cause?: unknown; extra?: Record<string, unknown> } = {},
): BackendError {
  return new BackendError(code, `${subject(context)} ${what}`, {
    statusCode: options.statusCode,
    isRetryable,
    backendId: context.backendId,
    flowId: context.flowId,
    cause: options.cause,
    details: { operation: context.operation, ...options.extra },
  });
}

/**
 * A message taken from a backend made safe to show: secrets redacted in every encoding (see
 * `redactSecrets` of `@afw/contracts`), whitespace collapsed, cut to a readable length.
 */
export function cleanMessage(message: string, secrets: readonly string[] = []): string {
  const text = redactSecrets(message, secrets).replace(/\s+/g, " ").trim();
  return text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : text;
}

/**
 * The message in a platform's error value: a string (JSON text of an object too), FastAPI's list of validation problems,
 * or the first message field of an object (Flowise `{message}` and auth `{error}`, FastAPI `{detail}`, Langflow's
 * APIException `{message, traceback, description, …}`).
 */
function messageOf(value: unknown): string | undefined {
  if (typeof value === "string") {
    const trimmed = value.trim();
    if (!trimmed.startsWith("{")) return trimmed || undefined;
    try {
      return messageOf(parseJsonBounded(trimmed));
    } catch {
      return trimmed;
    }
  }
  if (Array.isArray(value)) {
    // FastAPI 422: [{loc, msg, type}]
    const parts = value
      .map((item) => {
        const record = asRecord(item);
        if (!record) return typeof item === "string" ? item : undefined;
        const location = Array.isArray(record["loc"]) ? (record["loc"] as unknown[]).map(String).join(".") : undefined;
        const msg = typeof record["msg"] === "string" ? record["msg"] : undefined;
        return msg ? (location ? `${location}: ${msg}` : msg) : undefined;
      })
      .filter((part): part is string => Boolean(part));
    return parts.length ? parts.join("; ") : undefined;
  }
  const record = asRecord(value);
  for (const key of ["message", "detail", "description", "error", "msg"]) {
    const found = record?.[key] === undefined ? undefined : messageOf(record[key]);
    if (found) return found;
  }
  return undefined;
}

/**
 * Extracts a human-readable message from a platform error body: Flowise `{statusCode, success, message, stack}`, Flowise
 * auth `{error}`, FastAPI `{detail}` where `detail` may be a string, a list of validation problems, an object or a JSON
 * *string* (`{message, traceback, …}`).
 * @example
 * ```ts
 * errorMessageFromBody('{"detail":"{\\"message\\":\\"boom\\",\\"traceback\\":\\"...\\"}"}') // "boom"
 * ```
 */
export function errorMessageFromBody(body: string): string | undefined {
  const trimmed = body.trim();
  if (!trimmed) return undefined;
  let parsed: unknown;
  try {
    parsed = parseJsonBounded(trimmed);
  } catch {
    // Plain text (e.g. a proxy's HTML page): keep a short first line, never a whole page.
    return trimmed.startsWith("<") ? undefined : trimmed.split("\n")[0];
  }
  return messageOf(parsed);
}

/** Flowise answers a prediction with a wrong or missing API key with 500 "…buildChatflow - Unauthorized". */
const UNAUTHORIZED_PATTERN = /\bunauthori[sz]ed\b|invalid or missing api key|api key must be passed/i;

/** Messages that mean the flow does not exist (Flowise 400 "Invalid Chatflow ID", Langflow 400 bad UUID). */
const NOT_FOUND_PATTERN = /not found|badly formed hexadecimal uuid|invalid uuid|is not a valid uuid|invalid (chat)?flow id/i;

/** Flowise wraps a missing chatflow into a 500 on some routes ("…checkIfChatflowIsValidForStreaming - Chatflow x not found"). */
const WRAPPED_NOT_FOUND_PATTERN = /\b(chat)?flow\b[^.]*\bnot found\b/i;

function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * Maps a non-2xx HTTP reply to a {@link BackendError} with a contracts code, `statusCode` and `isRetryable`: 401/403
 * auth, 404 flow not found, 408/504 timeout, 429 rate limited, 409/425/5xx unavailable (retryable), other 4xx bad response.
 * @example
 * ```ts
 * const error = errorFromStatus(429, '{"message":"Too many requests"}', null, { backendId: "f", kind: "flowise", operation: "execute" });
 * error.code // "BACKEND_RATE_LIMITED"
 * ```
 */
export function errorFromStatus(statusCode: number, body: string, retryAfter: string | null, context: ErrorContext): BackendError {
  const rawMessage = errorMessageFromBody(body);
  const platformMessage = rawMessage ? cleanMessage(rawMessage, context.secrets) : undefined;
  const notFound =
    statusCode === 404 ||
    (context.flowId !== undefined && rawMessage !== undefined && ((statusCode === 400 && NOT_FOUND_PATTERN.test(rawMessage)) || (statusCode >= 500 && WRAPPED_NOT_FOUND_PATTERN.test(rawMessage))));
  const code: ErrorCode =
    statusCode === 401 || statusCode === 403 || (statusCode >= 500 && rawMessage !== undefined && UNAUTHORIZED_PATTERN.test(rawMessage))
      ? "BACKEND_AUTH_FAILED"
      : notFound
        ? context.flowId !== undefined ? "FLOW_NOT_FOUND" : "BACKEND_BAD_RESPONSE"
        : statusCode === 408 || statusCode === 504
          ? "BACKEND_TIMEOUT"
          : statusCode === 429
            ? "BACKEND_RATE_LIMITED"
            : statusCode === 409 || statusCode === 425 || statusCode >= 500
              ? "BACKEND_UNAVAILABLE"
              : "BACKEND_BAD_RESPONSE";
  const retryAfterMs = parseRetryAfter(retryAfter);
  const isRetryable = code === "BACKEND_TIMEOUT" || code === "BACKEND_RATE_LIMITED" || code === "BACKEND_UNAVAILABLE";
  return contextError(context, code, `failed with HTTP ${statusCode}${platformMessage ? `: ${platformMessage}` : ""}`, isRetryable, {
    statusCode,
    extra: { ...(platformMessage ? { platformMessage } : {}), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) },
  });
}

/**
 * Maps an error event received inside a stream (HTTP 200) to a {@link BackendError}; `data` is the event's data (a
 * message, or an object with one, e.g. Langflow's `{error}` or `{text}`). Flowise reports auth failures this way too
 * (`…buildChatflow - Unauthorized`).
 */
export function errorFromStreamEvent(data: unknown, context: ErrorContext): BackendError {
  const message = messageOf(data) ?? nonEmptyString(asRecord(data)?.["text"]) ?? (data === undefined || data === null ? "" : JSON.stringify(data));
  const safe = cleanMessage(message, context.secrets);
  const isAuth = UNAUTHORIZED_PATTERN.test(message);
  const isNotFound = /\bnot found\b/i.test(message) && /flow/i.test(message);
  const code: ErrorCode = isAuth ? "BACKEND_AUTH_FAILED" : isNotFound ? "FLOW_NOT_FOUND" : "BACKEND_UNAVAILABLE";
  const extra = { platformMessage: safe, midStream: true };
  return contextError(context, code, `failed mid-stream: ${safe || "error event"}`, code === "BACKEND_UNAVAILABLE", { extra });
}

/** The Node (`E…`) or undici (`UND_ERR_…`) network error code in `error` or its causes. */
function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (code.startsWith("E") || code.startsWith("UND_ERR"))) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Why a request's signal fired. */
export type AbortReason = "caller" | "timeout" | undefined;

/**
 * Maps anything a request or body read threw to a {@link BackendError}: an address refused by the connection policy (e.g.
 * a host name that now resolves to a loopback or cloud-metadata address) -> `FORBIDDEN` (not retryable), the caller's abort -> `ABORTED` (not retryable),
 * the adapter's timeout -> `BACKEND_TIMEOUT`, a network failure -> `BACKEND_UNAVAILABLE` (both retryable).
 */
export function errorFromException(error: unknown, abortReason: AbortReason, timeoutMs: number, context: ErrorContext): BackendError {
  if (BackendError.isInstance(error)) return error;
  const refusal = findConnectRefusal(error);
  if (refusal) {
    const { host, address } = refusal;
    const reason = cleanMessage(refusal.reason, context.secrets);
    const what = `refused: connecting to ${host} (${address}) is not allowed by the connection policy: ${reason}`;
    return contextError(context, "FORBIDDEN", what, false, { cause: refusal, extra: { host, address, reason } });
  }
  if (abortReason === "caller") return contextError(context, "ABORTED", "was aborted by the caller", false, { cause: error });
  if (abortReason === "timeout") {
    return contextError(context, "BACKEND_TIMEOUT", `timed out after ${timeoutMs} ms`, true, { cause: error, extra: { timeoutMs } });
  }
  const code = networkCode(error);
  const reason = code ?? (error instanceof Error ? cleanMessage(error.message, context.secrets) : "network error");
  return contextError(context, "BACKEND_UNAVAILABLE", `failed: ${reason}`, true, { cause: error, extra: code ? { networkCode: code } : {} });
}

/** A `BACKEND_BAD_RESPONSE` error: the reply could not be parsed or did not fit the expected shape. */
export function badResponse(reason: string, context: ErrorContext, statusCode?: number, cause?: unknown, isRetryable = true): BackendError {
  const what = `returned a bad reply: ${cleanMessage(reason, context.secrets)}`;
  return contextError(context, "BACKEND_BAD_RESPONSE", what, isRetryable, { statusCode, cause });
}
