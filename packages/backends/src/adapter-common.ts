import { z } from "zod";
import { BackendError, FlowExecutionRequestSchema, parseOrThrow, type BackendHealth, type ChatMessage, type FlowBackendV1, type FlowExecutionRequest, type FlowStreamChunk, type HealthStatus, type UniversalFlow } from "@afw/contracts";
import { HttpClient, parseJsonWith, type HttpRequestOptions, type OpenResponse } from "./http-client.js";
import { type BaseBackendSettings, type ConfiguredFlow, type ParameterMapping, type ParameterTarget } from "./settings.js";
import { mergeFlows, type DiscoveredFlow } from "./universal-flow.js";

/** What both adapters return: {@link FlowBackendV1} with the base URL (no trailing slash) and a required `stream`. */
export interface AdapterBackend<K extends string> extends FlowBackendV1 {
  readonly kind: K;
  readonly baseURL: string;
  stream(request: FlowExecutionRequest, signal?: AbortSignal): AsyncIterable<FlowStreamChunk>;
}

/** Largest health, version or streaming-check reply read. */
export const HEALTH_BODY_BYTES = 64 * 1024;

/** Largest execute or stream reply read (decompressed). */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** Largest flow-listing page (listings carry whole flow graphs). */
const MAX_DISCOVERY_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Longest health probe (the backend's `requestTimeoutMs` when that is shorter). */
const HEALTH_TIMEOUT_MS = 5_000;

/** Longest wait for one listing page. */
const DISCOVERY_TIMEOUT_MS = 15_000;

/** A health probe slower than this reports `slow`. */
const SLOW_THRESHOLD_MS = 2_000;

/** Listing page size when the platform paginates. */
export const PAGE_SIZE = 100;

/** Most listing pages one discovery follows. */
const MAX_PAGES = 1000;

/** Zod schema of `GET /api/v1/version` (both platforms). */
const VersionSchema = z.looseObject({ version: z.string() });

/** One listing page: its items, and the next page to ask for (none: the listing is complete). */
export type ListingPage<T, P> = { items: T[]; next?: P | undefined };

/**
 * What both adapters set up from their settings: base URL, identity, the HTTP client with its auth header, and the calls
 * they make alike (flow calls within the request's budget, the version, paginated discovery merged with the registry).
 */
export function adapterBase<K extends "flowise" | "langflow">(config: BaseBackendSettings, kind: K, apiKey: string | undefined, authHeaders: Record<string, string>) {
  // Without a trailing slash, so paths append as `${baseURL}/api/...`.
  const baseURL = config.baseURL.replace(/\/+$/, "");
  const http = new HttpClient({
    backendId: config.id,
    kind,
    baseURL,
    headers: { ...config.headers, ...(apiKey ? authHeaders : {}) },
    connectPolicy: config.connectPolicy,
    lookup: config.lookup,
    secrets: apiKey ? [apiKey] : [],
  });
  const identity = { id: config.id, kind };
  const healthTimeoutMs = Math.min(HEALTH_TIMEOUT_MS, config.timeouts.requestTimeoutMs);
  let version: string | undefined;
  /** The platform's `GET /api/v1/version` (asked until it answers once); undefined when it cannot say. */
  const readVersion = (signal?: AbortSignal): Promise<string | undefined> =>
    version !== undefined
      ? Promise.resolve(version)
      : http
          .requestJson({ method: "GET", path: "/api/v1/version", timeoutMs: healthTimeoutMs, signal, operation: "version" }, VersionSchema, HEALTH_BODY_BYTES)
          .then(({ data }) => (version = data.version))
          .catch(() => undefined);
  /** A health result of this backend. */
  const healthResult = (status: HealthStatus, latencyMs: number, extra: { version?: string | undefined; message?: string | undefined; errorCode?: string | undefined }): BackendHealth => ({
    backendId: config.id,
    kind,
    status,
    latencyMs,
    checkedAt: new Date().toISOString(),
    ...(extra.version !== undefined ? { version: extra.version } : {}),
    ...(extra.message !== undefined ? { message: extra.message } : {}),
    ...(extra.errorCode !== undefined ? { errorCode: extra.errorCode } : {}),
  });
  return {
    http,
    identity,
    /** The adapter: the spec's fields, its `methods`, and `close` (the adapter's own `cleanup`, then the connection pool). */
    backend: <M extends object>(methods: M, cleanup?: () => void) => ({
      specificationVersion: "v1" as const,
      id: config.id,
      kind,
      baseURL,
      ...(config.capabilities ? { capabilities: config.capabilities } : {}),
      ...methods,
      async close() {
        cleanup?.();
        http.close();
      },
    }),
    /** Time limit of a health probe. */
    healthTimeoutMs,
    /** A `POST` about one flow (execute, stream), timed by the request's budget within `requestTimeoutMs`. */
    flowCall: (operation: string, path: string, request: FlowExecutionRequest, json: unknown, signal: AbortSignal | undefined): HttpRequestOptions => ({
      method: "POST",
      path,
      json,
      timeoutMs: callTimeoutMs(request.timeoutMs, config.timeouts.requestTimeoutMs),
      signal,
      operation,
      flowId: request.flowId,
    }),
    /** Reads, parses and validates a whole JSON reply (bounded by `maxResponseBytes`). */
    readJson: async <S extends z.ZodType>(open: OpenResponse, schema: S): Promise<z.infer<S>> =>
      parseJsonWith(schema, await http.readText(open, MAX_RESPONSE_BYTES), open.context, open.status),
    /**
     * A health check: `probe` asks the platform, given the time since the check began and the version probe; a failure is
     * `down` (never thrown, except for the caller's abort) once the version probe and `others` settled.
     */
    async health(signal: AbortSignal | undefined, probe: (elapsed: () => number, version: Promise<string | undefined>) => Promise<BackendHealth>, others: Promise<unknown>[] = []): Promise<BackendHealth> {
      const started = performance.now();
      const versionProbe = readVersion(signal);
      try {
        return await probe(() => elapsedMs(started), versionProbe);
      } catch (error) {
        await Promise.all([versionProbe, ...others]);
        if (!BackendError.isInstance(error)) return healthResult("down", elapsedMs(started), { message: "health probe failed", errorCode: "BACKEND_UNAVAILABLE" });
        if (error.code === "ABORTED") throw error;
        return healthResult("down", elapsedMs(started), { message: error.message, errorCode: error.code });
      }
    },
    /** `healthy`, or `slow` with a message when the `probe` took longer than {@link SLOW_THRESHOLD_MS}. */
    up: async (latencyMs: number, version: Promise<string | undefined>, probe: string): Promise<BackendHealth> => {
      const slow = latencyMs > SLOW_THRESHOLD_MS;
      const message = slow ? `${probe} took ${latencyMs} ms (threshold ${SLOW_THRESHOLD_MS} ms)` : undefined;
      return healthResult(slow ? "slow" : "healthy", latencyMs, { version: await version, message });
    },
    /** `down` with the error code and message. */
    down: (latencyMs: number, errorCode: string, message: string, version?: string): BackendHealth => healthResult("down", latencyMs, { message, errorCode, version }),
    /** A listing page (`GET path?query` within {@link DISCOVERY_TIMEOUT_MS} and {@link MAX_DISCOVERY_RESPONSE_BYTES}). */
    listing: async <S extends z.ZodType>(path: string, query: HttpRequestOptions["query"], schema: S, signal: AbortSignal | undefined): Promise<z.infer<S>> =>
      (await http.requestJson({ method: "GET", path, query, timeoutMs: DISCOVERY_TIMEOUT_MS, signal, operation: "discover flows" }, schema, MAX_DISCOVERY_RESPONSE_BYTES)).data,
    /**
     * Discovery: follows the listing pages (`page` answers one, given the next page and the items so far; none with
     * `discovery: configured-only`), reads each listed flow and merges them with the configured registry.
     */
    async discover<T, P>(page: (next: P | undefined, received: number) => Promise<ListingPage<T, P>>, read: (item: T) => DiscoveredFlow | undefined): Promise<UniversalFlow[]> {
      const items: T[] = [];
      let next: P | undefined;
      for (let request = 1; config.discovery === "auto" && request <= MAX_PAGES; request += 1) {
        const listed = await page(next, items.length);
        items.push(...listed.items);
        if (listed.next === undefined || listed.items.length === 0) break;
        next = listed.next;
      }
      const discovered = items.map(read).filter((flow): flow is DiscoveredFlow => flow !== undefined);
      return mergeFlows(identity, discovered, config.flows);
    },
  };
}

/** Feeds each chunk's frames to `handle` until `done()`, then the parser's remainder; yields what `handle` yields. */
export async function* readFrames<F>(
  chunks: AsyncIterable<Uint8Array>,
  parser: { push(chunk: Uint8Array): Iterable<F>; finish(): Iterable<F> },
  handle: (frame: F) => Generator<FlowStreamChunk>,
  done: () => boolean,
): AsyncGenerator<FlowStreamChunk> {
  for await (const chunk of chunks) {
    for (const frame of parser.push(chunk)) {
      yield* handle(frame);
      if (done()) return;
    }
  }
  for (const frame of parser.finish()) {
    yield* handle(frame);
    if (done()) return;
  }
}

/** A retryable `BACKEND_UNAVAILABLE` for a stream that broke off: closed before its end event, or aborted by the backend. */
export function midStreamError(backend: { id: string; kind: string }, flowId: string, what: string, details: Record<string, unknown> = {}): BackendError {
  return new BackendError("BACKEND_UNAVAILABLE", `${backend.kind} backend '${backend.id}': ${what}`, {
    isRetryable: true,
    backendId: backend.id,
    flowId,
    details: { operation: "stream", midStream: true, ...details },
  });
}

/**
 * Validates an execution request.
 * @throws AfwError `INVALID_INPUT` when the request does not fit the contract.
 */
export function parseExecutionRequest(request: FlowExecutionRequest): FlowExecutionRequest {
  return plainExecutionRequest(request) ?? parseOrThrow(FlowExecutionRequestSchema, request, "INVALID_INPUT", "flow execution request");
}

/** The optional fields of {@link FlowExecutionRequestSchema} in its order, copied as the schema copies them when present (also as undefined). */
const OPTIONAL_KEYS = ["sessionId", "history", "parameters", "uploads", "timeoutMs", "requestId"] as const;

/**
 * What {@link FlowExecutionRequestSchema} returns for the common request (scalar fields only: no history, parameters
 * or uploads), checked by hand at a fraction of the schema's cost on the call path; undefined for anything else, which
 * the schema then decides (so every refusal and its message come from the schema). Accepts only what the schema
 * accepts: `adapter-common.test.ts` compares the two.
 */
export function plainExecutionRequest(request: unknown): FlowExecutionRequest | undefined {
  if (typeof request !== "object" || request === null) return undefined;
  const input = request as Record<string, unknown>;
  const { flowId, question, sessionId, timeoutMs, requestId } = input;
  if (typeof flowId !== "string" || flowId.length === 0 || typeof question !== "string" || question.length === 0) return undefined;
  if (input["history"] !== undefined || input["parameters"] !== undefined || input["uploads"] !== undefined) return undefined;
  if ((sessionId !== undefined && typeof sessionId !== "string") || (requestId !== undefined && typeof requestId !== "string")) return undefined;
  if (timeoutMs !== undefined && !(typeof timeoutMs === "number" && Number.isSafeInteger(timeoutMs) && timeoutMs > 0)) return undefined;
  const parsed: Record<string, unknown> = { flowId, question };
  for (const key of OPTIONAL_KEYS) if (key in input) parsed[key] = input[key];
  return parsed as FlowExecutionRequest;
}

/**
 * Time limit of one call: the request's remaining budget (`timeoutMs`), but never more than the
 * backend's own `requestTimeoutMs`, so a hanging backend fails in its configured time and the
 * caller keeps the rest of its budget for a fallback.
 */
export function callTimeoutMs(requestTimeoutMs: number | undefined, configuredTimeoutMs: number): number {
  return requestTimeoutMs === undefined ? configuredTimeoutMs : Math.min(requestTimeoutMs, configuredTimeoutMs);
}

/** Reads the environment variable `name`, if `process` exists. */
export function readEnv(name: string): string | undefined {
  const value = typeof process !== "undefined" ? process.env[name] : undefined;
  return value && value.trim() ? value.trim() : undefined;
}

/** Milliseconds elapsed since `start` (from `performance.now()`), rounded to 0.1 ms. */
export function elapsedMs(start: number): number {
  return Math.max(0, Math.round((performance.now() - start) * 10) / 10);
}

/** The parameter mapping of a flow: its own, else the backend default, else `fallback`. */
export function mappingFor(flow: ConfiguredFlow | undefined, backendDefault: ParameterMapping | undefined, fallback: ParameterMapping = {}): ParameterMapping {
  return { ...fallback, ...backendDefault, ...flow?.parameterMapping };
}

/**
 * Places `value` at `target` in a Flowise `overrideConfig` or Langflow `tweaks` object:
 * `{[param]: {[node]: value}}` (Flowise) when `nodeFirst` is false, `{[node]: {[param]: value}}`
 * (Langflow) when true; `{[param]: value}` without a node.
 */
export function placeParameter(target: ParameterTarget, value: unknown, into: Record<string, unknown>, nodeFirst: boolean): void {
  if (target.node === undefined) {
    into[target.param] = value;
    return;
  }
  const outer = nodeFirst ? target.node : target.param;
  const inner = nodeFirst ? target.param : target.node;
  const existing = into[outer];
  const bucket = typeof existing === "object" && existing !== null && !Array.isArray(existing) ? (existing as Record<string, unknown>) : {};
  bucket[inner] = value;
  into[outer] = bucket;
}

/** Formats history as a plain transcript (`User: …` / `Assistant: …`), for platforms without native history. */
export function historyTranscript(history: readonly ChatMessage[]): string {
  return history.map((message) => `${message.role === "user" ? "User" : message.role === "assistant" ? "Assistant" : "System"}: ${message.content}`).join("\n");
}

/** Codes of real calls that say the backend itself is failing (not the flow, the input or the caller). */
const BACKEND_FAILURE_CODES = new Set(["BACKEND_TIMEOUT", "BACKEND_UNAVAILABLE"]);

/** Passive health: the outcomes of the last `size` real calls (predictions), each kept `maxAgeMs`. */
export function createCallOutcomes(size = 5, maxAgeMs = 60_000) {
  const recent: Array<{ failed: boolean; at: number; code: string | undefined }> = [];
  return {
    /** Records a finished call: `error` undefined for a success. Ignores non-backend failures. */
    record(error?: unknown): void {
      const code = BackendError.isInstance(error) ? error.code : undefined;
      if (error !== undefined && (code === undefined || !BACKEND_FAILURE_CODES.has(code))) return;
      recent.push({ failed: error !== undefined, at: Date.now(), code });
      if (recent.length > size) recent.shift();
    },
    /** The failing streak, when each of the last `size` calls (all recent) failed. */
    failing(): { count: number; code: string } | undefined {
      const now = Date.now();
      if (recent.length < size || recent.some((outcome) => !outcome.failed || now - outcome.at > maxAgeMs)) return undefined;
      return { count: recent.length, code: recent.at(-1)?.code ?? "BACKEND_UNAVAILABLE" };
    },
  };
}
