import type { z } from "zod";
import { formatZodError } from "@afw/contracts";
import { badResponse, errorFromException, errorFromStatus, type AbortReason, type ErrorContext } from "./error-mapping.js";

/** Configuration of an {@link HttpClient}. */
export interface HttpClientConfig {
  backendId: string;
  kind: string;
  baseURL: string;
  /** Extra headers sent with every request (configured by the user). */
  headers: Record<string, string>;
  /** Authentication headers (kept apart so they can be left off public routes if needed). */
  authHeaders: Record<string, string>;
  fetch: typeof globalThis.fetch;
  /** Values that must never appear in error messages. */
  secrets: readonly string[];
}

/** One HTTP request made by an adapter. */
export interface HttpRequestOptions {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  headers?: Record<string, string>;
  /** Time allowed until the reply headers arrive (and, for {@link HttpClient.requestJson}, the whole body). */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  operation: string;
  flowId?: string | undefined;
  /** Leave the authentication headers off. */
  anonymous?: boolean;
}

/**
 * Owns the abort machinery of one request: a resettable timer plus the caller's signal, combined
 * with `AbortSignal.any`. Knows why the request was aborted (caller vs timeout).
 */
export class RequestScope {
  readonly signal: AbortSignal;
  private readonly timeoutController = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private timeoutMsValue: number;
  private firedReason: AbortReason;
  private readonly callerSignal: AbortSignal | undefined;

  constructor(timeoutMs: number, callerSignal?: AbortSignal) {
    this.callerSignal = callerSignal;
    this.timeoutMsValue = timeoutMs;
    this.signal = callerSignal ? AbortSignal.any([callerSignal, this.timeoutController.signal]) : this.timeoutController.signal;
    this.startTimer(timeoutMs);
  }

  /** Why the signal fired: `caller`, `timeout`, or undefined when it did not. */
  get abortReason(): AbortReason {
    if (this.callerSignal?.aborted) return "caller";
    return this.firedReason;
  }

  /** The timeout currently armed, in ms. */
  get timeoutMs(): number {
    return this.timeoutMsValue;
  }

  /** Re-arms the timer (used between stream chunks). */
  resetTimer(timeoutMs: number = this.timeoutMsValue): void {
    this.startTimer(timeoutMs);
  }

  /** Aborts the request (releases the socket). Idempotent. */
  abort(): void {
    this.clear();
    if (!this.timeoutController.signal.aborted) this.timeoutController.abort(new DOMException("request released", "AbortError"));
  }

  /** Stops the timer; call when the request is complete. */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private startTimer(timeoutMs: number): void {
    this.clear();
    this.timeoutMsValue = timeoutMs;
    this.timer = setTimeout(() => {
      this.firedReason ??= "timeout";
      this.timeoutController.abort(new DOMException(`timed out after ${timeoutMs} ms`, "TimeoutError"));
    }, timeoutMs);
    this.timer.unref?.();
  }
}

/** A reply whose headers arrived, with the scope that must be released when done. */
export interface OpenResponse {
  response: Response;
  scope: RequestScope;
  context: ErrorContext;
}

/** Largest error body read to build a message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * A small `fetch` wrapper shared by the adapters: URL building, headers, timeouts combined with
 * the caller's `AbortSignal`, bounded body reads, and error mapping to `BackendError`.
 */
export class HttpClient {
  constructor(readonly config: HttpClientConfig) {}

  /** Error context for an operation. */
  context(operation: string, flowId?: string): ErrorContext {
    return { backendId: this.config.backendId, kind: this.config.kind, operation, flowId, secrets: this.config.secrets };
  }

  /** Builds the absolute URL of `path` with `query`. */
  url(path: string, query?: HttpRequestOptions["query"]): string {
    const url = new URL(this.config.baseURL + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  /**
   * Sends a request and resolves once the reply headers arrived. The caller must release
   * `scope` (or read the body with {@link HttpClient.readText}, which does).
   *
   * @throws BackendError `ABORTED`, `BACKEND_TIMEOUT` or `BACKEND_UNAVAILABLE` when no reply arrived.
   */
  async open(options: HttpRequestOptions): Promise<OpenResponse> {
    const context = this.context(options.operation, options.flowId);
    const scope = new RequestScope(options.timeoutMs, options.signal);
    if (options.signal?.aborted) {
      scope.abort();
      throw errorFromException(options.signal.reason, "caller", options.timeoutMs, context);
    }
    const headers: Record<string, string> = {
      accept: "application/json",
      ...this.config.headers,
      ...(options.anonymous ? {} : this.config.authHeaders),
      ...options.headers,
    };
    let body: string | undefined;
    if (options.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.json);
    }
    try {
      const response = await this.config.fetch(this.url(options.path, options.query), {
        method: options.method,
        headers,
        body,
        signal: scope.signal,
        redirect: "follow",
      });
      return { response, scope, context };
    } catch (error) {
      const reason = scope.abortReason;
      scope.abort();
      throw errorFromException(error, reason, scope.timeoutMs, context);
    }
  }

  /**
   * Reads a whole body as UTF-8 text, refusing more than `maxBytes` (checked on
   * `content-length` and while reading decompressed bytes). Releases the scope.
   *
   * @throws BackendError `BACKEND_BAD_RESPONSE` when the body is too large; timeout/abort/network errors as in {@link HttpClient.open}.
   */
  async readText(open: OpenResponse, maxBytes: number): Promise<string> {
    const { response, scope, context } = open;
    try {
      const declared = Number(response.headers.get("content-length"));
      if (Number.isFinite(declared) && declared > maxBytes && !response.headers.get("content-encoding")) {
        throw tooLarge(maxBytes, context, response.status);
      }
      if (!response.body) return "";
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let received = 0;
      let text = "";
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          received += value.byteLength;
          if (received > maxBytes) throw tooLarge(maxBytes, context, response.status);
          text += decoder.decode(value, { stream: true });
        }
      } catch (error) {
        await reader.cancel().catch(() => undefined);
        throw error;
      }
      return text + decoder.decode();
    } catch (error) {
      throw errorFromException(error, scope.abortReason, scope.timeoutMs, context);
    } finally {
      scope.abort();
    }
  }

  /** Throws the mapped error for a non-2xx reply (reads a bounded part of its body). */
  async throwForStatus(open: OpenResponse): Promise<never> {
    const { response } = open;
    let body = "";
    try {
      body = await this.readText(open, MAX_ERROR_BODY_BYTES);
    } catch {
      body = "";
    }
    throw errorFromStatus(response.status, body, response.headers.get("retry-after"), open.context);
  }

  /**
   * Sends a request, checks the status, reads the body (bounded), parses JSON and validates it
   * with `schema`.
   *
   * @throws BackendError mapped from the status, the exception, or `BACKEND_BAD_RESPONSE` for unparsable or schema-violating bodies.
   */
  async requestJson<S extends z.ZodType>(options: HttpRequestOptions, schema: S, maxBytes: number): Promise<{ data: z.infer<S>; response: Response }> {
    const open = await this.open(options);
    if (!open.response.ok) await this.throwForStatus(open);
    const text = await this.readText(open, maxBytes);
    return { data: parseJsonWith(schema, text, open.context, open.response.status), response: open.response };
  }
}

function tooLarge(maxBytes: number, context: ErrorContext, statusCode: number) {
  // Too large will stay too large: not worth a retry.
  return badResponse(`reply is larger than ${maxBytes} bytes`, context, statusCode, undefined, false);
}

/**
 * Parses `text` as JSON and validates it with `schema`.
 *
 * @throws BackendError `BACKEND_BAD_RESPONSE` when the text is not JSON or does not fit.
 */
export function parseJsonWith<S extends z.ZodType>(schema: S, text: string, context: ErrorContext, statusCode?: number): z.infer<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badResponse(`reply is not JSON (${text.length} chars)`, context, statusCode, error);
  }
  const result = schema.safeParse(value);
  if (!result.success) throw badResponse(`unexpected reply shape: ${formatZodError(result.error)}`, context, statusCode, result.error);
  return result.data;
}

/**
 * Iterates the body of an open reply chunk by chunk. The scope's timer is re-armed to
 * `idleTimeoutMs` before every read (silence longer than that is a `BACKEND_TIMEOUT`), the total
 * size is bounded by `maxBytes`, and the request is always released when iteration stops (end,
 * error, or the consumer leaving early), which closes the socket of an unfinished reply.
 *
 * @throws BackendError `ABORTED`, `BACKEND_TIMEOUT`, `BACKEND_UNAVAILABLE` (connection lost) or `BACKEND_BAD_RESPONSE` (too large).
 */
export async function* iterateBody(open: OpenResponse, idleTimeoutMs: number, maxBytes: number): AsyncGenerator<Uint8Array, void, undefined> {
  const { response, scope, context } = open;
  if (!response.body) return;
  const reader = response.body.getReader();
  let received = 0;
  let finished = false;
  try {
    for (;;) {
      scope.resetTimer(idleTimeoutMs);
      let result: Awaited<ReturnType<typeof reader.read>>;
      try {
        result = await reader.read();
      } catch (error) {
        throw errorFromException(error, scope.abortReason, idleTimeoutMs, context);
      }
      if (result.done) {
        finished = true;
        return;
      }
      received += result.value.byteLength;
      if (received > maxBytes) throw badResponse(`stream is larger than ${maxBytes} bytes`, context, response.status, undefined, false);
      scope.clear(); // the consumer's own time does not count as backend silence
      yield result.value;
    }
  } finally {
    scope.clear();
    if (!finished) await reader.cancel().catch(() => undefined);
    scope.abort();
  }
}
