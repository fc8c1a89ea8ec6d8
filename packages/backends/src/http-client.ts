import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Agent as UndiciAgent } from "undici";
import type { z } from "zod";
import { AfwError, BackendError, formatZodError } from "@afw/contracts";
import { checkedLookup, checkLiteralHost, type ConnectPolicy, type HostLookup } from "./connect-policy.js";
import { badResponse, errorFromException, errorFromStatus, type AbortReason, type ErrorContext } from "./error-mapping.js";
import { parseJsonBounded } from "./json-limits.js";

/** Configuration of an {@link HttpClient}. */
export interface HttpClientConfig {
  backendId: string;
  kind: string;
  baseURL: string;
  /** Extra headers sent with every request (configured by the user). */
  headers: Record<string, string>;
  /** Authentication headers (kept apart so they can be left off public routes if needed). */
  authHeaders: Record<string, string>;
  /**
   * `fetch` used for every request. When omitted, whole-body JSON requests
   * ({@link HttpClient.requestJson}) go through `node:http`/`node:https` with keep-alive agents
   * (a fraction of `fetch`'s CPU per call) and streamed replies through `globalThis.fetch`.
   * @default undefined (`node:http` for JSON, `globalThis.fetch` for streams)
   */
  fetch?: typeof globalThis.fetch | undefined;
  /**
   * Checked on every new connection against the address actually connected to (after DNS
   * resolution, and for IP-literal hosts before the request): a refused address fails the call
   * with a non-retryable `FORBIDDEN` `BackendError` before any byte is sent. With a policy,
   * streamed replies go through `undici`'s `fetch` with a checked `lookup` instead of
   * `globalThis.fetch`. Cannot be combined with a custom {@link HttpClientConfig.fetch}.
   * @default undefined (every address)
   */
  connectPolicy?: ConnectPolicy | undefined;
  /**
   * Host-name resolver used for new connections (tests inject one to simulate DNS answers).
   * @default `dns.lookup`
   */
  lookup?: HostLookup | undefined;
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

/** Most same-origin redirects followed for one request. */
const MAX_REDIRECTS = 5;

/** Largest error body read to build a message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * A small `fetch` wrapper shared by the adapters: URL building, headers, timeouts combined with
 * the caller's `AbortSignal`, bounded body reads, and error mapping to `BackendError`.
 */
export class HttpClient {
  /** The `lookup` of new connections: the configured one, checked by the policy when there is one. */
  private readonly connectLookup: HostLookup | undefined;

  /** @throws AfwError `CONFIG_INVALID` when both `connectPolicy` and `fetch` are given (the policy could not be enforced). */
  constructor(readonly config: HttpClientConfig) {
    if (config.connectPolicy && config.fetch) {
      throw new AfwError("CONFIG_INVALID", `backend '${config.backendId}': a connection policy cannot be enforced through a custom fetch; leave one of them out`, {
        details: { backendId: config.backendId },
      });
    }
    this.connectLookup = config.connectPolicy ? checkedLookup(config.connectPolicy, config.lookup) : config.lookup;
  }

  /** Refuses an IP-literal URL host the policy does not allow (sockets do not look literals up). */
  private checkLiteral(url: URL, context: ErrorContext): void {
    if (!this.config.connectPolicy) return;
    const refusal = checkLiteralHost(this.config.connectPolicy, url.hostname);
    if (refusal) throw errorFromException(refusal, undefined, 0, context);
  }

  /** The `fetch` of {@link HttpClient.open}: the configured one, `undici`'s with a checked lookup, or the global one. */
  private async streamFetch(): Promise<typeof globalThis.fetch> {
    if (this.config.fetch) return this.config.fetch;
    if (!this.connectLookup) return globalThis.fetch;
    // Loaded on first use: backends without a policy never pay for it.
    const undici = await import("undici");
    const dispatcher = (this.undiciAgent ??= new undici.Agent({ connect: { lookup: this.connectLookup } }));
    return ((input: string, init?: RequestInit) => undici.fetch(input, { ...(init as Record<string, unknown>), dispatcher })) as unknown as typeof globalThis.fetch;
  }

  private undiciAgent: UndiciAgent | undefined;

  /** Error context for an operation. */
  context(operation: string, flowId?: string): ErrorContext {
    return { backendId: this.config.backendId, kind: this.config.kind, operation, flowId, secrets: this.config.secrets };
  }

  /** Builds the absolute URL of `path` with `query`. */
  url(path: string, query?: HttpRequestOptions["query"]): string {
    return this.urlObject(path, query).toString();
  }

  /** Headers (defaults, configured, auth unless anonymous, per call) and the JSON body of a request. */
  private requestHeadersAndBody(options: HttpRequestOptions, defaults: Record<string, string> = {}): { headers: Record<string, string>; body: string | undefined } {
    const headers: Record<string, string> = {
      accept: "application/json",
      ...defaults,
      ...this.config.headers,
      ...(options.anonymous ? {} : this.config.authHeaders),
      ...options.headers,
    };
    if (options.json === undefined) return { headers, body: undefined };
    headers["content-type"] = "application/json";
    return { headers, body: JSON.stringify(options.json) };
  }

  private urlObject(path: string, query?: HttpRequestOptions["query"]): URL {
    const url = new URL(this.config.baseURL + path);
    if (query) {
      for (const [key, value] of Object.entries(query)) {
        if (value !== undefined) url.searchParams.set(key, String(value));
      }
    }
    return url;
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
    const request = this.requestHeadersAndBody(options);
    const headers = request.headers;
    let body = request.body;
    try {
      // Redirects are followed by hand, within the backend's origin only: a reply must not send
      // the API key (or the gateway) to another host.
      let url = this.url(options.path, options.query);
      let method: string = options.method;
      const send = await this.streamFetch();
      for (let redirects = 0; ; redirects++) {
        this.checkLiteral(new URL(url), context);
        const response = await send(url, { method, headers, body, signal: scope.signal, redirect: "manual" });
        const location = response.status >= 300 && response.status < 400 ? response.headers.get("location") : null;
        if (location === null) return { response, scope, context };
        await response.body?.cancel().catch(() => undefined);
        const target = new URL(location, url);
        if (target.origin !== new URL(url).origin) {
          throw badResponse(`refusing to follow a redirect to another origin (${target.origin})`, context, response.status, undefined, false);
        }
        if (redirects >= MAX_REDIRECTS) throw badResponse(`more than ${MAX_REDIRECTS} redirects`, context, response.status, undefined, false);
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
          delete headers["content-type"];
        }
        url = target.toString();
      }
    } catch (error) {
      if (BackendError.isInstance(error)) {
        scope.abort();
        throw error;
      }
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
      if (!response.body) {
        scope.clear();
        return "";
      }
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
      const whole = text + decoder.decode();
      // The body is complete: the connection is already released, only the timer needs stopping.
      scope.clear();
      return whole;
    } catch (error) {
      scope.abort();
      throw errorFromException(error, scope.abortReason, scope.timeoutMs, context);
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
  async requestJson<S extends z.ZodType>(options: HttpRequestOptions, schema: S, maxBytes: number): Promise<{ data: z.infer<S>; status: number }> {
    if (!this.config.fetch) {
      const reply = await this.nativeText(options, maxBytes);
      return { data: parseJsonWith(schema, reply.text, reply.context, reply.status), status: reply.status };
    }
    const open = await this.open(options);
    if (!open.response.ok) await this.throwForStatus(open);
    const text = await this.readText(open, maxBytes);
    return { data: parseJsonWith(schema, text, open.context, open.response.status), status: open.response.status };
  }

  private agents: { http?: HttpAgent; https?: HttpsAgent } = {};

  /** Closes the idle keep-alive connections of the `node:http` path. */
  close(): void {
    this.agents.http?.destroy();
    this.agents.https?.destroy();
    this.agents = {};
    void this.undiciAgent?.destroy().catch(() => undefined);
    this.undiciAgent = undefined;
  }

  /**
   * A whole-body request over `node:http(s)`: same headers, timeout (headers and body), caller
   * abort, size bound, same-origin redirects, status and error mapping as the `fetch` path.
   */
  private async nativeText(options: HttpRequestOptions, maxBytes: number): Promise<{ text: string; status: number; context: ErrorContext }> {
    const context = this.context(options.operation, options.flowId);
    const signal = options.signal;
    if (signal?.aborted) throw errorFromException(signal.reason, "caller", options.timeoutMs, context);
    // As fetch does (some proxies refuse requests without one); no accept-encoding: small JSON
    // replies cost less CPU uncompressed (compressed ones are still decoded).
    const request = this.requestHeadersAndBody(options, { "user-agent": "node" });
    const headers = request.headers;
    let body = request.body;
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
    const deadline = Date.now() + options.timeoutMs;
    let url = this.urlObject(options.path, options.query);
    let method: string = options.method;
    for (let redirects = 0; ; redirects++) {
      const reply = await this.nativeExchange(url, method, headers, body, Math.max(1, deadline - Date.now()), options.timeoutMs, signal, maxBytes, context);
      if (reply.location === undefined) return { text: reply.text, status: reply.status, context };
      // Redirects are followed within the backend's origin only (as the fetch path).
      const target = new URL(reply.location, url);
      if (target.origin !== url.origin) throw badResponse(`refusing to follow a redirect to another origin (${target.origin})`, context, reply.status, undefined, false);
      if (redirects >= MAX_REDIRECTS) throw badResponse(`more than ${MAX_REDIRECTS} redirects`, context, reply.status, undefined, false);
      if (reply.status === 303 || ((reply.status === 301 || reply.status === 302) && method === "POST")) {
        method = "GET";
        body = undefined;
        delete headers["content-type"];
        delete headers["content-length"];
      }
      url = target;
    }
  }

  /** One request/response over `node:http(s)`; a redirect resolves with its `location`. */
  private nativeExchange(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number,
    reportedTimeoutMs: number,
    signal: AbortSignal | undefined,
    maxBytes: number,
    context: ErrorContext,
  ): Promise<{ text: string; status: number; location?: string }> {
    const secure = url.protocol === "https:";
    if (!secure && url.protocol !== "http:") return Promise.reject(errorFromException(new Error(`unsupported protocol ${url.protocol}`), undefined, reportedTimeoutMs, context));
    try {
      this.checkLiteral(url, context);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    // Agents key their idle sockets by host and port, so a kept-alive socket is only reused for the
    // host whose resolved address was checked when it connected.
    const agentOptions = { keepAlive: true, ...(this.connectLookup ? { lookup: this.connectLookup } : {}) };
    const agent = secure ? (this.agents.https ??= new HttpsAgent(agentOptions)) : (this.agents.http ??= new HttpAgent(agentOptions));
    const send = secure ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      let abortReason: AbortReason;
      let settled = false;
      let request: ClientRequest | undefined;
      /** Keep-alive sockets found closed by the server: each pooled socket may be stale, a fresh one ends the retries. */
      let staleSockets = 0;
      const finish = (error: unknown, value?: { text: string; status: number; location?: string }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (error === undefined) resolve(value!);
        else reject(errorFromException(error, signal?.aborted ? "caller" : abortReason, reportedTimeoutMs, context));
      };
      const onAbort = () => {
        abortReason = "caller";
        request?.destroy(signal?.reason instanceof Error ? signal.reason : new Error("aborted by the caller"));
        finish(signal?.reason ?? new Error("aborted by the caller"));
      };
      const timer = setTimeout(() => {
        abortReason = "timeout";
        const error = new Error(`timed out after ${timeoutMs} ms`);
        request?.destroy(error);
        finish(error);
      }, timeoutMs);
      timer.unref?.();
      signal?.addEventListener("abort", onAbort, { once: true });
      const onResponse = (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location) {
          response.resume();
          finish(undefined, { text: "", status, location: response.headers.location });
          return;
        }
        const ok = status >= 200 && status < 300;
        const limit = ok ? maxBytes : MAX_ERROR_BODY_BYTES;
        const encoding = response.headers["content-encoding"];
        const declared = Number(response.headers["content-length"]);
        if (ok && !encoding && Number.isFinite(declared) && declared > maxBytes) {
          response.destroy();
          finish(tooLarge(maxBytes, context, status));
          return;
        }
        const stream = decoded(response, encoding);
        const chunks: Buffer[] = [];
        let received = 0;
        let tooBig = false;
        stream.on("data", (chunk: Buffer) => {
          received += chunk.byteLength;
          if (received > limit) {
            tooBig = true;
            response.destroy();
            if (stream !== response) stream.destroy();
            // As the fetch path: an error body too large to read is left out of the message.
            finish(ok ? tooLarge(maxBytes, context, status) : errorFromStatus(status, "", headerValue(response.headers, "retry-after"), context));
            return;
          }
          chunks.push(chunk);
        });
        stream.once("error", (error) => {
          if (ok || tooBig) finish(error);
          else finish(errorFromStatus(status, "", headerValue(response.headers, "retry-after"), context));
        });
        stream.once("end", () => {
          const text = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
          if (ok) finish(undefined, { text, status });
          else finish(errorFromStatus(status, text, headerValue(response.headers, "retry-after"), context));
        });
        // The connection closed before the body ended (reset mid-body).
        response.once("close", () => {
          if (!response.complete) finish(Object.assign(new Error("the connection closed mid-reply"), { code: "ECONNRESET" }));
        });
      };
      const start = () => {
        try {
          request = send(url, { method, headers, agent }, onResponse);
        } catch (error) {
          finish(error);
          return;
        }
        const current = request;
        current.once("error", (error: NodeJS.ErrnoException) => {
          // A keep-alive socket the server had already closed: nothing was processed, send again. Every
          // idle socket of the pool may be stale (they idled out together), so this repeats until a
          // request goes out on a fresh connection (bounded).
          if (!settled && current.reusedSocket && error.code === "ECONNRESET" && staleSockets < MAX_STALE_SOCKET_RETRIES && abortReason === undefined) {
            staleSockets++;
            start();
            return;
          }
          finish(error);
        });
        current.end(body);
      };
      start();
    });
  }
}

/** Most reused keep-alive sockets one request skips after the server closed them while idle. */
const MAX_STALE_SOCKET_RETRIES = 16;

function headerValue(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

/** The body stream of `response`, decompressed when the server sent an encoding. */
function decoded(response: IncomingMessage, encoding: string | undefined): Readable {
  const kind = encoding?.trim().toLowerCase();
  const decoder = kind === "gzip" || kind === "x-gzip" ? createGunzip() : kind === "deflate" ? createInflate() : kind === "br" ? createBrotliDecompress() : undefined;
  if (!decoder) return response;
  response.once("error", (error) => decoder.destroy(error));
  return response.pipe(decoder);
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
    value = parseJsonBounded(text);
  } catch (error) {
    throw badResponse(`reply is not JSON (${text.length} chars)`, context, statusCode, error);
  }
  const result = schema.safeParse(value);
  if (!result.success) throw badResponse(`unexpected reply shape: ${formatZodError(result.error)}`, context, statusCode, result.error);
  return result.data;
}

/**
 * Iterates the body of an open reply chunk by chunk. The scope's timer is re-armed to
 * `idleTimeoutMs` (`firstReadTimeoutMs` until a first byte arrived) before every read (silence longer than that is a `BACKEND_TIMEOUT`), the total
 * size is bounded by `maxBytes`, and the request is always released when iteration stops (end,
 * error, or the consumer leaving early), which closes the socket of an unfinished reply.
 *
 * @throws BackendError `ABORTED`, `BACKEND_TIMEOUT`, `BACKEND_UNAVAILABLE` (connection lost) or `BACKEND_BAD_RESPONSE` (too large).
 */
export async function* iterateBody(open: OpenResponse, idleTimeoutMs: number, maxBytes: number, firstReadTimeoutMs = idleTimeoutMs): AsyncGenerator<Uint8Array, void, undefined> {
  const { response, scope, context } = open;
  if (!response.body) return;
  const reader = response.body.getReader();
  let received = 0;
  let finished = false;
  try {
    for (;;) {
      const waitMs = received === 0 ? firstReadTimeoutMs : idleTimeoutMs;
      scope.resetTimer(waitMs);
      let result: Awaited<ReturnType<typeof reader.read>>;
      try {
        result = await reader.read();
      } catch (error) {
        throw errorFromException(error, scope.abortReason, waitMs, context);
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
