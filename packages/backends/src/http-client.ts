import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { request, type Agent, type Dispatcher } from "undici";
import type { z } from "zod";
import { BackendError, formatZodError } from "@afw/contracts";
import { createOutboundAgent, type ConnectPolicy, type HostLookup } from "./address-policy.js";
import { badResponse, errorFromException, errorFromStatus, type AbortReason, type ErrorContext } from "./error-mapping.js";
import { parseJsonBounded } from "./json-limits.js";

/** Configuration of an {@link HttpClient}. @internal */
export interface HttpClientConfig {
  backendId: string;
  kind: string;
  baseURL: string;
  /** Headers sent with every request: the user's, then the authentication headers. */
  headers: Record<string, string>;
  /** Checked on the address of every new connection (see `createOutboundAgent`); a refusal is a non-retryable `FORBIDDEN`. */
  connectPolicy?: ConnectPolicy | undefined;
  /** Host-name resolver of new connections. @default `dns.lookup` */
  lookup?: HostLookup | undefined;
  /** Values that must never appear in error messages. */
  secrets: readonly string[];
}

/** One HTTP request made by an adapter. @internal */
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
}

/**
 * The abort machinery of one request: a resettable timer plus the caller's signal. Knows why the
 * request was aborted (caller vs timeout). @internal
 */
export class RequestScope {
  private readonly controller = new AbortController();
  readonly signal: AbortSignal = this.controller.signal;
  private timer: NodeJS.Timeout | undefined;
  private firedReason: AbortReason;
  private readonly onCallerAbort = () => {
    this.firedReason ??= "caller";
    this.abort(this.callerSignal?.reason);
  };

  /** @param timeoutMs - the timeout armed now (and re-armed by {@link RequestScope.resetTimer}), in ms. */
  constructor(
    public timeoutMs: number,
    private readonly callerSignal?: AbortSignal,
  ) {
    callerSignal?.addEventListener("abort", this.onCallerAbort, { once: true });
    this.resetTimer(timeoutMs);
  }

  /** Why the signal fired: `caller`, `timeout`, or undefined when it did not. */
  get abortReason(): AbortReason {
    return this.callerSignal?.aborted ? "caller" : this.firedReason;
  }

  /** Re-arms the timer (used between stream chunks). */
  resetTimer(timeoutMs: number = this.timeoutMs): void {
    this.clear();
    this.timeoutMs = timeoutMs;
    this.timer = setTimeout(() => {
      this.firedReason ??= "timeout";
      this.abort(new DOMException(`timed out after ${timeoutMs} ms`, "TimeoutError"));
    }, timeoutMs);
    this.timer.unref?.();
  }

  /** Stops the timer (the consumer's own time between stream chunks does not count). */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The request is complete: stops the timer and forgets the caller's signal. */
  finish(): void {
    this.clear();
    this.callerSignal?.removeEventListener("abort", this.onCallerAbort);
  }

  /** Aborts the request (releases the socket of an unfinished reply). Idempotent. */
  abort(reason: unknown = new DOMException("request released", "AbortError")): void {
    this.finish();
    if (!this.signal.aborted) this.controller.abort(reason);
  }
}

/** A reply whose headers arrived, with the scope that must be released when done. @internal */
export interface OpenResponse {
  status: number;
  ok: boolean;
  /** A reply header (the first value when repeated), or null. */
  header(name: string): string | null;
  /** The body, decompressed when the server sent an encoding. */
  body: Readable;
  scope: RequestScope;
  context: ErrorContext;
}

/** Most same-origin redirects followed for one request. */
const MAX_REDIRECTS = 5;

/** Largest error body read to build a message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** Most reused keep-alive sockets one request skips after the server closed them while idle. */
const MAX_STALE_SOCKET_RETRIES = 16;

/** Socket errors that, on a reused connection, mean the server had closed it while idle. */
const STALE_SOCKET_CODES = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);

/**
 * The adapters' HTTP client: one `undici` agent (keep-alive pool, connection policy) and `undici.request` for every
 * call, whole-body JSON and streams alike.
 */
export class HttpClient {
  private readonly agent: Agent;
  /** New connections opened so far (a failed request that opened none ran on a reused socket). */
  private connections = 0;

  /** Headers of every request, built once: ours, then the user's, then the authentication headers. */
  private readonly baseHeaders: Readonly<Record<string, string>>;

  constructor(readonly config: HttpClientConfig) {
    // No accept-encoding: small JSON replies and streams cost less uncompressed (compressed ones are still decoded).
    this.baseHeaders = { accept: "application/json", "user-agent": "node", ...config.headers };
    this.agent = createOutboundAgent({ policy: config.connectPolicy, lookup: config.lookup, onConnect: () => this.connections++ });
  }

  /** Error context for an operation. */
  context(operation: string, flowId?: string): ErrorContext {
    return { backendId: this.config.backendId, kind: this.config.kind, operation, flowId, secrets: this.config.secrets };
  }

  /** The absolute URL of `path` with `query`, parsed once (the common request has no query). */
  private parsedUrl(path: string, query?: HttpRequestOptions["query"]): URL {
    const url = new URL(this.config.baseURL + path);
    if (query !== undefined) {
      for (const key in query) {
        const value = query[key];
        if (value !== undefined) url.searchParams.set(key, String(value));
      }
    }
    return url;
  }

  /**
   * Sends a request and resolves once the reply headers arrived. The caller must release
   * `scope` (or read the body with {@link HttpClient.readText} or `iterateBody`, which do).
   *
   * @throws BackendError `ABORTED`, `BACKEND_TIMEOUT`, `BACKEND_UNAVAILABLE` when no reply arrived, `FORBIDDEN` when the connection policy refused the address.
   */
  async open(options: HttpRequestOptions): Promise<OpenResponse> {
    const context = this.context(options.operation, options.flowId);
    if (options.signal?.aborted) throw errorFromException(options.signal.reason, "caller", options.timeoutMs, context);
    const scope = new RequestScope(options.timeoutMs, options.signal);
    // A copy per request: a redirect may drop `content-type` from it.
    const headers: Record<string, string> = options.headers === undefined ? { ...this.baseHeaders } : { ...this.baseHeaders, ...options.headers };
    let body: string | undefined;
    if (options.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.json);
    }
    try {
      // Redirects are followed by hand, within the backend's origin only: a reply must not send
      // the API key (or the gateway) to another host.
      let url = this.parsedUrl(options.path, options.query);
      let method: string = options.method;
      for (let redirects = 0; ; redirects++) {
        const reply = await this.send(url, method, headers, body, scope);
        const location = reply.statusCode >= 300 && reply.statusCode < 400 ? headerValue(reply.headers, "location") : null;
        if (location === null) return opened(reply, scope, context);
        await reply.body.dump().catch(() => undefined);
        const target = new URL(location, url);
        if (target.origin !== url.origin) throw badResponse(`refusing to follow a redirect to another origin (${target.origin})`, context, reply.statusCode, undefined, false);
        if (redirects >= MAX_REDIRECTS) throw badResponse(`more than ${MAX_REDIRECTS} redirects`, context, reply.statusCode, undefined, false);
        if (reply.statusCode === 303 || ((reply.statusCode === 301 || reply.statusCode === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
          delete headers["content-type"];
        }
        url = target;
      }
    } catch (error) {
      const reason = scope.abortReason;
      scope.abort();
      throw BackendError.isInstance(error) ? error : errorFromException(error, reason, scope.timeoutMs, context);
    }
  }

  /** One exchange; a keep-alive socket the server had closed while idle (nothing processed) is skipped, bounded. */
  private async send(url: URL, method: string, headers: Record<string, string>, body: string | undefined, scope: RequestScope): Promise<Dispatcher.ResponseData> {
    for (let stale = 0; ; stale++) {
      const before = this.connections;
      try {
        // The scope times the request (undici's own header and body timers are left off).
        return await request(url, { method: method as Dispatcher.HttpMethod, headers, body, signal: scope.signal, dispatcher: this.agent, headersTimeout: 0, bodyTimeout: 0 });
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        const reused = this.connections === before;
        if (!reused || stale >= MAX_STALE_SOCKET_RETRIES || scope.signal.aborted || typeof code !== "string" || !STALE_SOCKET_CODES.has(code)) throw error;
      }
    }
  }

  /**
   * Reads a whole body as UTF-8 text, refusing more than `maxBytes` (checked on
   * `content-length` and while reading decompressed bytes). Releases the scope.
   *
   * @throws BackendError `BACKEND_BAD_RESPONSE` when the body is too large; timeout/abort/network errors as in {@link HttpClient.open}.
   */
  async readText(open: OpenResponse, maxBytes: number): Promise<string> {
    const { scope, context, status } = open;
    try {
      const declared = Number(open.header("content-length"));
      if (Number.isFinite(declared) && declared > maxBytes && !open.header("content-encoding")) throw tooLarge(maxBytes, context, status);
      const chunks = await readBounded(open.body, maxBytes, () => tooLarge(maxBytes, context, status));
      scope.finish();
      return chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
    } catch (error) {
      const reason = scope.abortReason;
      scope.abort();
      throw errorFromException(error, reason, scope.timeoutMs, context);
    }
  }

  /** Throws the mapped error for a non-2xx reply (reads a bounded part of its body). */
  async throwForStatus(open: OpenResponse): Promise<never> {
    const body = await this.readText(open, MAX_ERROR_BODY_BYTES).catch(() => "");
    throw errorFromStatus(open.status, body, open.header("retry-after"), open.context);
  }

  /**
   * Sends a request, checks the status, reads the body (bounded), parses JSON and validates it with `schema`.
   * @throws BackendError mapped from the status, the exception, or `BACKEND_BAD_RESPONSE` for unparsable or
   * schema-violating bodies.
   */
  async requestJson<S extends z.ZodType>(options: HttpRequestOptions, schema: S, maxBytes: number): Promise<{ data: z.infer<S>; status: number }> {
    const open = await this.open(options);
    if (!open.ok) await this.throwForStatus(open);
    const text = await this.readText(open, maxBytes);
    return { data: parseJsonWith(schema, text, open.context, open.status), status: open.status };
  }

  /** Closes the pooled connections. */
  close(): void {
    void this.agent.destroy().catch(() => undefined);
  }
}

function headerValue(headers: Dispatcher.ResponseData["headers"], name: string): string | null {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

function opened(reply: Dispatcher.ResponseData, scope: RequestScope, context: ErrorContext): OpenResponse {
  const header = (name: string) => headerValue(reply.headers, name);
  return { status: reply.statusCode, ok: reply.statusCode >= 200 && reply.statusCode < 300, header, body: decoded(reply.body, header("content-encoding")), scope, context };
}

/** The body stream, decompressed when the server sent an encoding. */
function decoded(body: Readable, encoding: string | null): Readable {
  const kind = encoding?.trim().toLowerCase();
  const decoder = kind === "gzip" || kind === "x-gzip" ? createGunzip() : kind === "deflate" ? createInflate() : kind === "br" ? createBrotliDecompress() : undefined;
  if (!decoder) return body;
  body.once("error", (error) => decoder.destroy(error));
  decoder.once("close", () => body.destroy());
  return body.pipe(decoder);
}

/** Reads a whole stream (listeners, not async iteration: a fraction of its CPU per small body), failing past `maxBytes`. */
function readBounded(body: Readable, maxBytes: number, tooBig: () => Error): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    body.on("data", (chunk: Buffer) => {
      received += chunk.byteLength;
      if (received <= maxBytes) return void chunks.push(chunk);
      body.destroy();
      reject(tooBig());
    });
    body.once("end", () => resolve(chunks));
    body.once("error", reject);
    // Every reply closes after its end: the error (and its stack) only for one that closed before.
    body.once("close", () => body.readableEnded || reject(Object.assign(new Error("the connection closed mid-reply"), { code: "ECONNRESET" })));
  });
}

function tooLarge(maxBytes: number, context: ErrorContext, statusCode: number) {
  // Too large will stay too large: not worth a retry.
  return badResponse(`reply is larger than ${maxBytes} bytes`, context, statusCode, undefined, false);
}

/**
 * Parses `text` as JSON and validates it with `schema`.
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
 * Iterates the body of an open reply chunk by chunk.
 * @throws BackendError `ABORTED`, `BACKEND_TIMEOUT`, `BACKEND_UNAVAILABLE` (connection lost) or `BACKEND_BAD_RESPONSE`
 * (too large).
 */
export async function* iterateBody(open: OpenResponse, idleTimeoutMs: number, maxBytes: number, firstReadTimeoutMs = idleTimeoutMs): AsyncGenerator<Uint8Array, void, undefined> {
  const { body, scope, context } = open;
  const chunks = (body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  let received = 0;
  let finished = false;
  try {
    for (;;) {
      const waitMs = received === 0 ? firstReadTimeoutMs : idleTimeoutMs;
      scope.resetTimer(waitMs);
      let result: IteratorResult<Buffer>;
      try {
        result = await chunks.next();
      } catch (error) {
        throw errorFromException(error, scope.abortReason, waitMs, context);
      }
      if (result.done) {
        finished = true;
        return;
      }
      received += result.value.byteLength;
      if (received > maxBytes) throw badResponse(`stream is larger than ${maxBytes} bytes`, context, open.status, undefined, false);
      scope.clear(); // the consumer's own time does not count as backend silence
      yield result.value;
    }
  } finally {
    if (finished) scope.finish();
    else {
      scope.abort();
      body.destroy();
    }
  }
}
