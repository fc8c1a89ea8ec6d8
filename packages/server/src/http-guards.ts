import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import { isIP, type Socket } from "node:net";
import type { ErrorCode } from "@afw/contracts";
import type { AuthenticatedClient } from "./bearer-auth.js";
import type { GatewayMetrics } from "./metrics.js";
import type { SharedRateLimiter } from "./rate-limiter.js";

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]", "ip6-localhost"]);

/** True when `host` is a loopback name or address (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (LOOPBACK_NAMES.has(bare)) return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (bare.startsWith("::ffff:")) return bare.slice(7).startsWith("127.");
  return false;
}

/** True when a browser `Origin` names this very listener (same host and port as the `Host` header). */
function isSameOrigin(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  try {
    const parsed = new URL(origin);
    return (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}

/** Writes a JSON answer (or only ends the response when headers already went out). */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  response.end(text);
}

/** The gateway's JSON error body `{ error, code }`. */
export function sendError(response: ServerResponse, status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}): void {
  sendJson(response, status, { error: message, code }, headers);
}

/** A JSON-RPC error answer without an id (protocol-level refusals on `/mcp`). */
export function jsonRpcError(response: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(response, status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers);
}

class BodyTooLarge extends Error {}
class BodyTimeout extends Error {}

function readBody(request: IncomingMessage, limit: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (error?: Error) => {
      done = true;
      clearTimeout(timer);
      if (!error) return resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      if (!(error instanceof BodyTimeout || error instanceof BodyTooLarge)) return reject(error);
      request.pause();
      reject(error);
    };
    const timer = setTimeout(() => !done && finish(new BodyTimeout()), timeoutMs);
    timer.unref();
    request.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) return finish(new BodyTooLarge());
      chunks.push(chunk);
    });
    request.on("end", () => !done && finish());
    request.on("error", (error) => !done && finish(error));
  });
}

/** Reads a POSTed JSON body within `limit` bytes and `timeoutMs`, and answers the refusals itself: 413 (declared or actual size over the limit, before anything is
 * parsed), 408 (body too slow; the connection is closed), 415 (media type other than exactly `application/json`), 400 -32700 (not JSON). */
export async function readJsonBody(request: IncomingMessage, response: ServerResponse, limit: number, timeoutMs: number, metrics: GatewayMetrics): Promise<{ body: unknown } | undefined> {
  const tooLarge = () => {
    metrics.countRejected("too_large");
    sendError(response, 413, "PAYLOAD_TOO_LARGE", `request body exceeds ${limit} bytes`, { connection: "close" });
    request.resume();
    return undefined;
  };
  const declared = Number(request.headers["content-length"] ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) return tooLarge();
  let raw: Buffer;
  try {
    raw = await readBody(request, limit, timeoutMs);
  } catch (error) {
    if (error instanceof BodyTooLarge) return tooLarge();
    if (!(error instanceof BodyTimeout)) throw error;
    metrics.countRejected("slow_body");
    sendError(response, 408, "ABORTED", `request body not received within ${timeoutMs} ms`, { connection: "close" });
    response.once("finish", () => request.socket.destroySoon());
    return undefined;
  }
  // The media type before any parameters, exactly: `application/json-seq` is not JSON-RPC.
  const mediaType = (request.headers["content-type"] ?? "").split(";", 1)[0]!.trim().toLowerCase();
  if (mediaType !== "application/json") {
    jsonRpcError(response, 415, -32000, "Unsupported Media Type: Content-Type must be application/json");
    return undefined;
  }
  try {
    return { body: JSON.parse(raw.toString("utf8")) };
  } catch {
    metrics.countRejected("bad_json");
    jsonRpcError(response, 400, -32700, "Parse error: invalid JSON");
    return undefined;
  }
}

/** Settings of {@link createRequestGuards}. */
export interface RequestGuardOptions {
  /** Allowed browser origins (`*` for any). */
  origins: readonly string[];
  /** Bearer auth is on: `Host` is not checked, and `*` CORS answers echo the origin. */
  authEnabled: boolean;
  /** `undefined`: no rate limit. */
  limiter: SharedRateLimiter | undefined;
  metrics: GatewayMetrics;
}

/** The checks every request passes before its route: browser origin and `Host` (DNS rebinding), CORS headers and preflights, the per-token (else
 * per-address) rate limit, and the 401 that also counts against the address (guessing tokens is rate limited). */
export function createRequestGuards({ origins, authEnabled, limiter, metrics }: RequestGuardOptions) {
  const originAllowed = (origin: string) => origins.includes("*") || origins.includes(origin);
  const rateLimitKey = (request: IncomingMessage, client: AuthenticatedClient | undefined) =>
    client ? `token:${client.name}` : `addr:${request.socket.remoteAddress ?? "unknown"}`;
  return {
    /** CORS headers for the request's origin (none when it is not allowed). */
    corsHeaders(request: IncomingMessage): Record<string, string> {
      const origin = request.headers.origin;
      if (!origin || origins.length === 0 || !originAllowed(origin)) return {};
      return {
        "access-control-allow-origin": origins.includes("*") && !authEnabled ? "*" : origin,
        "access-control-expose-headers": "Mcp-Session-Id, WWW-Authenticate, Retry-After",
        vary: "Origin",
      };
    },
    /** Refuses (403) a foreign browser origin (same-origin pages of this listener are fine), and a non-loopback `Host` without auth; answers preflights. */
    refuse(request: IncomingMessage, response: ServerResponse, headers: Record<string, string>): "refused" | "preflight" | undefined {
      const origin = request.headers.origin;
      if (origin !== undefined && !originAllowed(origin) && !isSameOrigin(origin, request.headers.host)) {
        metrics.countRejected("origin");
        sendError(response, 403, "FORBIDDEN", "origin not allowed");
        return "refused";
      }
      if (!authEnabled && !isLoopbackHost((request.headers.host ?? "").replace(/:\d+$/, ""))) {
        metrics.countRejected("host");
        sendError(response, 403, "FORBIDDEN", "host not allowed");
        return "refused";
      }
      if (request.method !== "OPTIONS") return undefined;
      const preflight =
        Object.keys(headers).length === 0
          ? {}
          : {
              ...headers,
              "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
              "access-control-allow-headers": "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID",
              "access-control-max-age": "600",
            };
      response.writeHead(204, preflight).end();
      return "preflight";
    },
    /** Takes `cost` tokens from the client's bucket; answers 429 with `Retry-After` and returns false when it is empty. */
    async allow(request: IncomingMessage, response: ServerResponse, client: AuthenticatedClient | undefined, headers: Record<string, string>, cost = 1, message = "too many requests"): Promise<boolean> {
      if (!limiter) return true;
      const decision = await limiter.take(rateLimitKey(request, client), client?.requestsPerMinute, cost);
      if (decision.allowed) return true;
      metrics.countRejected("rate_limited");
      sendError(response, 429, "RATE_LIMITED", message, { ...headers, "retry-after": String(decision.retryAfterSeconds) });
      request.resume();
      return false;
    },
    /** 401 for a missing or wrong token; each failure also counts against the client address (429 once its bucket is empty). */
    async unauthenticated(request: IncomingMessage, response: ServerResponse, headers: Record<string, string>): Promise<void> {
      if (!(await this.allow(request, response, undefined, headers))) return;
      metrics.countRejected("unauthorized");
      sendError(response, 401, "UNAUTHORIZED", "missing or invalid bearer token", { ...headers, "www-authenticate": 'Bearer realm="afw"' });
      request.resume();
    },
  };
}

/** Answers malformed HTTP (bad request line, oversized headers: 400/431) and header timeouts (408) with a JSON body instead of Node's bare one, and closes the connection. */
export function answerClientError(metrics: GatewayMetrics) {
  return (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : error.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
    metrics.countRejected(status === 408 ? "slow_headers" : "bad_http");
    const text = JSON.stringify({ error: status === 408 ? "request headers not received in time" : "malformed HTTP request", code: status === 408 ? "ABORTED" : "INVALID_INPUT" });
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
  };
}
