import { randomUUID } from "node:crypto";
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isIP } from "node:net";
import { AfwError, type ErrorCode, type McpSessionRecord, type McpSessionRegistry } from "@afw/contracts";
import { createDashboard, type Dashboard } from "@afw/dashboard";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { createBearerAuthenticator, type AuthenticatedClient } from "./bearer-auth.js";
import type { AuthTokenConfig, DashboardConfig, HttpConfig } from "./config-schema.js";
import { createGatewayDashboardSource } from "./gateway-dashboard.js";
import type { GatewayServer } from "./gateway-server.js";
import { createSharedRateLimiter } from "./rate-limiter.js";
import { StatelessExchangeRouter, StatelessHttpTransport } from "./stateless-http-transport.js";

/** Idle MCP servers kept for reuse by stateless requests. */
const SERVER_POOL_SIZE = 64;

/** Default time allowed for a client to send its request headers (slow-loris guard). */
export const DEFAULT_HEADERS_TIMEOUT_MS = 30_000;

/** Default time allowed for a client to send its whole request body once the headers arrived. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** Context of a request handled by an {@link HttpRoute}. */
export interface HttpRouteContext {
  /** The authenticated client, when tokens are configured. */
  client: AuthenticatedClient | undefined;
  /** The gateway. */
  gateway: GatewayServer;
  /** Parsed request URL. */
  url: URL;
}

/**
 * An extra HTTP route served next to `/mcp` (e.g. a dashboard and its JSON API). Routes get the
 * same auth, CORS, rate limit and metrics as `/mcp` unless `auth: false`.
 */
export interface HttpRoute {
  /** HTTP methods served. */
  methods: readonly string[];
  /** Exact path, or a prefix ending in `/*`. */
  path: string;
  /** Require a bearer token when tokens are configured. @default true */
  auth?: boolean;
  /** Label for metrics. @default path */
  metricsLabel?: string;
  /** Handles the request; must end the response. */
  handle(request: IncomingMessage, response: ServerResponse, context: HttpRouteContext): void | Promise<void>;
}

/** Options of {@link startHttpTransport}; each defaults to the gateway's `http` configuration. */
export interface HttpTransportOptions extends Partial<Omit<HttpConfig, "cors" | "rateLimit" | "authTokens">> {
  /** Accepted bearer tokens. */
  authTokens?: (string | AuthTokenConfig)[];
  /** Allowed browser origins (`*` for any). Empty: CORS off and browser origins refused. */
  cors?: { origins?: string[]; maxAgeSeconds?: number };
  /** Per-token rate limit. */
  rateLimit?: { enabled?: boolean; requestsPerMinute?: number; burst?: number };
  /** Extra routes (dashboard, API). */
  routes?: HttpRoute[];
  /**
   * Serve the operator dashboard (`@afw/dashboard`): the page under `dashboard.basePath`
   * (public: it carries no data) and its JSON endpoints and live feed under `dashboard.apiPath`
   * (behind the same bearer auth as `/mcp`). `false` turns it off.
   * @default the gateway's `dashboard` configuration
   */
  dashboard?: false | Partial<Pick<DashboardConfig, "basePath" | "apiPath" | "redact">>;
  /** @default Date.now */
  now?: () => number;
  /**
   * Time a client has to send its request headers; slower clients get a JSON 408 and are
   * disconnected (slow-loris guard). @default `config.http.headersTimeoutMs` (30 s)
   */
  headersTimeoutMs?: number;
  /**
   * Time a client has to send its whole request body after the headers; slower clients get a
   * JSON 408 and are disconnected. Responses (long tool calls, SSE) are not limited by it.
   * @default `config.http.bodyTimeoutMs` (30 s)
   */
  bodyTimeoutMs?: number;
  /**
   * Stateful mode: where MCP sessions are registered so that every instance sharing the registry
   * accepts them (see {@link startHttpTransport}).
   * @default `gateway.stores.mcpSessions` (Redis when the gateway has `redis` configured, else memory)
   */
  sessionRegistry?: McpSessionRegistry;
}

/** A listening HTTP transport. */
export interface HttpTransportHandle {
  /** `http://host:port/mcp`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The underlying `node:http` server. */
  readonly server: Server;
  /** MCP sessions held in this process (stateful mode only); sessions of other instances are not counted. */
  readonly sessionCount: number;
  /** Stops accepting, closes sessions and open connections. Idempotent. */
  close(): Promise<void>;
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]", "ip6-localhost"]);

/** True when a browser `Origin` names this very listener (same scheme-less host and port as the `Host` header). */
function isSameOrigin(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  try {
    const parsed = new URL(origin);
    return (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}

/** True when `host` is a loopback name or address (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (LOOPBACK_NAMES.has(bare)) return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (bare.startsWith("::ffff:")) return bare.slice(7).startsWith("127.");
  return false;
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  response.end(text);
}

function sendError(response: ServerResponse, status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}): void {
  sendJson(response, status, { error: message, code }, headers);
}

function jsonRpcError(response: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(response, status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers);
}

class BodyTooLarge extends Error {}
class BodyTimeout extends Error {}

function readBody(request: IncomingMessage, limit: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      request.pause();
      reject(new BodyTimeout());
    }, timeoutMs);
    timer.unref();
    request.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        clearTimeout(timer);
        request.pause();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    request.on("error", (error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** Longest `clientInfo.name`/`version` kept in the session registry. */
const MAX_CLIENT_INFO_LENGTH = 256;

/** The registry record of a session opened by the initialize request in `body`. */
function sessionRecordOf(sessionId: string, body: unknown, owner: string, tenant: string | undefined, now: number): McpSessionRecord {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  const params = (messages.find((m) => isInitializeRequest(m)) as { params?: { protocolVersion?: unknown; clientInfo?: { name?: unknown; version?: unknown } } } | undefined)
    ?.params;
  const requested = typeof params?.protocolVersion === "string" ? params.protocolVersion : undefined;
  // The version the SDK server answers with: the client's when supported, else its latest.
  const protocolVersion = requested !== undefined && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
  const info = params?.clientInfo;
  const clientInfo =
    typeof info?.name === "string" && typeof info.version === "string"
      ? { name: info.name.slice(0, MAX_CLIENT_INFO_LENGTH), version: info.version.slice(0, MAX_CLIENT_INFO_LENGTH) }
      : undefined;
  return {
    sessionId,
    owner,
    ...(tenant === undefined ? {} : { tenant }),
    protocolVersion,
    ...(clientInfo ? { clientInfo } : {}),
    createdAt: now,
    lastSeenAt: now,
  };
}

/** True when the body holds a request whose `_meta.progressToken` asks for progress (needs SSE). */
function wantsProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    const meta = (m as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta;
    return meta?.progressToken !== undefined;
  });
}

/**
 * Serves the gateway over MCP Streamable HTTP on `node:http`: `POST/GET/DELETE /mcp`, plus
 * `/healthz` (liveness), `/readyz` (backends and stores) and `/metrics` (Prometheus).
 *
 * - Stateless mode (default): a fresh MCP server and transport per request, nothing kept in
 *   memory between requests, so N instances can sit behind a plain load balancer.
 * - Stateful mode (`stateless: false`): MCP sessions with `Mcp-Session-Id`. `initialize` opens a
 *   session in this process and registers it (owner = token name, tenant, protocol version,
 *   client info) in the session registry (`sessionRegistry`, by default the gateway's: Redis when
 *   `redis` is configured, so instances behind a round-robin balancer share sessions). Every
 *   request refreshes the registry's idle TTL (`sessionIdleTimeoutMs`). A session id this process
 *   does not hold is accepted when the registry has it for the same owner: POSTs are served by a
 *   pooled MCP server (as in stateless mode, so server-to-client requests and the standalone SSE
 *   stream stay with the instance that opened it), GET gets 405 (SDK clients then go without a
 *   standalone stream), DELETE removes it from the registry; unknown, expired, deleted or another
 *   owner's ids get 404 `Session not found`. When the registry is unavailable, sessions held in
 *   memory keep working (re-registered when it is back) and other sessions get 503 with
 *   `Retry-After`; registry calls are bounded by the store (100 ms for Redis). Closing the
 *   transport closes the sessions it holds without deleting them from the registry.
 * - Auth: `Authorization: Bearer <token>` checked in constant time; a JSON 401 otherwise. With no
 *   tokens configured, only loopback addresses may be bound (anything else is refused), and
 *   requests must name a loopback `Host` (DNS-rebinding protection).
 * - Browser `Origin`s are refused unless listed in `cors.origins` (CORS off by default).
 * - Request bodies over `bodyLimitBytes` get 413 before being parsed; too many requests per token
 *   (or per client address without auth) get 429 with `Retry-After`.
 *
 * @example
 * ```ts
 * const http = await startHttpTransport(gateway, { port: 8787 });
 * // MCP clients connect to http.url, e.g. http://127.0.0.1:8787/mcp
 * await http.close();
 * ```
 * @throws AfwError `FORBIDDEN` when asked to bind a non-loopback address without auth tokens.
 */
export async function startHttpTransport(gateway: GatewayServer, options: HttpTransportOptions = {}): Promise<HttpTransportHandle> {
  const base = gateway.config.http;
  const host = options.host ?? base.host;
  const port = options.port ?? base.port;
  const mcpPath = options.path ?? base.path;
  const stateless = options.stateless ?? base.stateless;
  const bodyLimit = options.bodyLimitBytes ?? base.bodyLimitBytes;
  const headersTimeoutMs = options.headersTimeoutMs ?? base.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? base.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const metricsAuth = options.metricsAuth ?? base.metricsAuth;
  const idleTimeoutMs = options.sessionIdleTimeoutMs ?? base.sessionIdleTimeoutMs;
  const origins = options.cors?.origins ?? base.cors.origins;
  const corsMaxAge = options.cors?.maxAgeSeconds ?? base.cors.maxAgeSeconds;
  const rateLimitEnabled = options.rateLimit?.enabled ?? base.rateLimit.enabled;
  const auth = createBearerAuthenticator(options.authTokens ?? base.authTokens);
  gateway.redactor.addSecrets(...auth.secrets);
  // Shared by every instance through Redis when the gateway has it, else (or while Redis is away) per instance.
  const limiter = createSharedRateLimiter(
    {
      requestsPerMinute: options.rateLimit?.requestsPerMinute ?? base.rateLimit.requestsPerMinute,
      ...((options.rateLimit?.burst ?? base.rateLimit.burst) === undefined ? {} : { burst: (options.rateLimit?.burst ?? base.rateLimit.burst)! }),
      ...(options.now ? { now: options.now } : {}),
    },
    gateway.stores.rateLimits,
  );
  const routes = options.routes ?? [];
  const dashboardSettings =
    options.dashboard === false || (options.dashboard === undefined && !gateway.config.dashboard.enabled) ? undefined : { ...gateway.config.dashboard, ...(options.dashboard ?? {}) };
  const dashboard: Dashboard | undefined = dashboardSettings
    ? createDashboard({
        source: createGatewayDashboardSource(gateway, { startedAt: new Date().toISOString() }),
        basePath: dashboardSettings.basePath,
        apiPath: dashboardSettings.apiPath,
        redact: dashboardSettings.redact,
        onError: (error, where) => gateway.logger.warn({ err: gateway.redactor.redact(String((error as Error)?.message ?? error)), ...where }, "dashboard request failed"),
      })
    : undefined;
  const underPath = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
  const statelessTransport = options.statelessTransport ?? base.statelessTransport;
  const serverPool: McpServer[] = [];
  // Cancellations and answers to server-to-client requests arrive in POSTs of their own.
  const exchanges = new StatelessExchangeRouter();
  const logger = gateway.logger;

  if (!auth.enabled && !isLoopbackHost(host)) {
    throw new AfwError(
      "FORBIDDEN",
      `refusing to listen on '${host}' without authentication: configure http.authTokens (or AFW_AUTH_TOKENS), or bind a loopback address such as 127.0.0.1`,
    );
  }

  type Session = {
    transport: StreamableHTTPServerTransport;
    server: McpServer;
    owner: string;
    lastSeen: number;
    /** The registry is known to hold this session (false after a failed create/touch until re-synced). */
    synced: boolean;
    /** What was registered at initialize. */
    record: McpSessionRecord;
  };
  const registry: McpSessionRegistry = options.sessionRegistry ?? gateway.stores.mcpSessions;
  const sessions = new Map<string, Session>();
  const closeSession = async (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    await session.transport.close().catch(() => undefined);
    await session.server.close().catch(() => undefined);
  };
  let closing: Promise<void> | undefined;
  const sweeper = stateless
    ? undefined
    : setInterval(() => {
        const cutoff = Date.now() - idleTimeoutMs;
        for (const [id, session] of sessions) if (session.lastSeen < cutoff) void closeSession(id);
      }, Math.min(60_000, Math.max(1_000, Math.floor(idleTimeoutMs / 2))));
  sweeper?.unref();

  const rateLimitKey = (request: IncomingMessage, client: AuthenticatedClient | undefined) =>
    client ? `token:${client.name}` : `addr:${request.socket.remoteAddress ?? "unknown"}`;
  /**
   * 401 for a missing or wrong token; each failure also counts against the client address, so
   * guessing tokens is rate limited (429 with `Retry-After` once the address's bucket is empty).
   */
  const refuseUnauthenticated = async (request: IncomingMessage, response: ServerResponse, headers: Record<string, string>) => {
    const decision = rateLimitEnabled ? await limiter.take(rateLimitKey(request, undefined)) : undefined;
    if (decision && !decision.allowed) {
      gateway.metrics.countRejected("rate_limited");
      sendError(response, 429, "RATE_LIMITED", "too many requests", { ...headers, "retry-after": String(decision.retryAfterSeconds) });
    } else {
      gateway.metrics.countRejected("unauthorized");
      sendError(response, 401, "UNAUTHORIZED", "missing or invalid bearer token", { ...headers, "www-authenticate": 'Bearer realm="afw"' });
    }
    request.resume();
  };

  const originAllowed = (origin: string) => origins.includes("*") || origins.includes(origin);

  const corsHeaders = (request: IncomingMessage): Record<string, string> => {
    const origin = request.headers.origin;
    if (!origin || origins.length === 0 || !originAllowed(origin)) return {};
    return {
      "access-control-allow-origin": origins.includes("*") && !auth.enabled ? "*" : origin,
      "access-control-expose-headers": "Mcp-Session-Id, WWW-Authenticate, Retry-After",
      vary: "Origin",
    };
  };

  /** Serves one POST on a pooled MCP server through the lean stateless transport. */
  const servePooled = async (request: IncomingMessage, response: ServerResponse, body: unknown, authInfo: AuthInfo | undefined) => {
    // An MCP server from the pool: a server detaches from its transport when the exchange ends
    // and can serve the next request.
    const transport = new StatelessHttpTransport(request, response, { stream: wantsProgress(body), authInfo, router: exchanges });
    const server = serverPool.pop() ?? gateway.createMcpServer();
    await server.connect(transport);
    void transport.done.then(() => {
      if (serverPool.length < SERVER_POOL_SIZE && !closing) serverPool.push(server);
    });
    transport.handle(body);
  };

  // Session registry trouble is logged at most once per interval (the store also emits
  // `cache-unavailable` trace events for every failed operation).
  let lastRegistryWarning = -Infinity;
  const registryTrouble = (operation: string, message?: string) => {
    const now = Date.now();
    if (now - lastRegistryWarning < 10_000) return;
    lastRegistryWarning = now;
    logger.warn(
      { operation, ...(message === undefined ? {} : { err: { message: gateway.redactor.redact(message) } }) },
      "MCP session registry unavailable: sessions held by this instance keep working, sessions of other instances are refused until it recovers",
    );
  };

  /** A session this process holds: the SDK transport serves it; the registry is kept in step. */
  const serveHeldSession = async (sessionId: string, session: Session, request: IncomingMessage, response: ServerResponse, body: unknown, owner: string) => {
    if (session.owner !== owner) {
      jsonRpcError(response, 404, -32001, "Session not found");
      return;
    }
    const method = request.method ?? "GET";
    if (method === "DELETE") {
      // Removed from the registry before the answer, so no instance accepts it afterwards.
      if ((await registry.delete(sessionId).catch(() => undefined)) === undefined) registryTrouble("delete");
    } else {
      const lookup = await registry.touch(sessionId, { owner, idleTtlMs: idleTimeoutMs }).catch((error: unknown) => ({ status: "unavailable" as const, message: String((error as Error)?.message ?? error) }));
      if (lookup.status === "found") {
        session.synced = true;
      } else if (lookup.status === "unavailable") {
        // Fail soft: the session keeps working here; it is registered again once the store is back.
        session.synced = false;
        registryTrouble("touch", lookup.message);
      } else if (session.synced) {
        // Deleted (or expired) through another instance.
        await closeSession(sessionId);
        jsonRpcError(response, 404, -32001, "Session not found");
        return;
      } else {
        session.synced = await registry.create({ ...session.record, lastSeenAt: Date.now() }, { idleTtlMs: idleTimeoutMs }).catch(() => false);
      }
    }
    session.lastSeen = Date.now();
    await session.transport.handleRequest(request, response, body);
    if (method === "DELETE") await closeSession(sessionId);
  };

  /**
   * A session id this process does not hold: accepted when the registry has it for this owner
   * (another instance opened it). POSTs are served by a pooled MCP server, as in stateless mode,
   * with the session id echoed; DELETE removes it from the registry; GET (the standalone SSE
   * stream) gets 405, which SDK clients treat as "no stream offered".
   */
  const serveSharedSession = async (sessionId: string, request: IncomingMessage, response: ServerResponse, body: unknown, owner: string, authInfo: AuthInfo | undefined) => {
    const method = request.method ?? "GET";
    const lookup = await registry.touch(sessionId, { owner, idleTtlMs: idleTimeoutMs }).catch((error: unknown) => ({ status: "unavailable" as const, message: String((error as Error)?.message ?? error) }));
    if (lookup.status === "unavailable") {
      registryTrouble("touch", lookup.message);
      gateway.metrics.countRejected("session_registry");
      jsonRpcError(response, 503, -32000, "Session registry unavailable: retry shortly", { "retry-after": "1" });
      return;
    }
    if (lookup.status !== "found") {
      jsonRpcError(response, 404, -32001, "Session not found");
      return;
    }
    response.setHeader("mcp-session-id", sessionId);
    if (method === "DELETE") {
      const deleted = await registry.delete(sessionId).catch(() => undefined);
      if (deleted === undefined) {
        registryTrouble("delete");
        jsonRpcError(response, 503, -32000, "Session registry unavailable: retry shortly", { "retry-after": "1" });
        return;
      }
      response.writeHead(200).end();
      return;
    }
    if (method !== "POST") {
      jsonRpcError(response, 405, -32000, "Method not allowed: this instance offers no standalone SSE stream for a session it does not hold", { allow: "POST, DELETE" });
      return;
    }
    if (Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body)) {
      jsonRpcError(response, 400, -32600, "Invalid Request: Server already initialized");
      return;
    }
    await servePooled(request, response, body, authInfo);
  };

  const handleMcp = async (request: IncomingMessage, response: ServerResponse, client: AuthenticatedClient | undefined, extraHeaders: Record<string, string>) => {
    for (const [name, value] of Object.entries(extraHeaders)) response.setHeader(name, value);
    const authInfo: AuthInfo | undefined = client
      ? { token: client.name, clientId: client.name, scopes: [], extra: { ...(client.tenant === undefined ? {} : { tenant: client.tenant }) } }
      : undefined;
    (request as IncomingMessage & { auth?: AuthInfo }).auth = authInfo;
    const method = request.method ?? "GET";

    let body: unknown;
    if (method === "POST") {
      const declared = Number(request.headers["content-length"] ?? "NaN");
      if (Number.isFinite(declared) && declared > bodyLimit) {
        gateway.metrics.countRejected("too_large");
        sendError(response, 413, "PAYLOAD_TOO_LARGE", `request body exceeds ${bodyLimit} bytes`, { connection: "close" });
        request.resume();
        return;
      }
      let raw: Buffer;
      try {
        raw = await readBody(request, bodyLimit, bodyTimeoutMs);
      } catch (error) {
        if (error instanceof BodyTimeout) {
          gateway.metrics.countRejected("slow_body");
          sendError(response, 408, "ABORTED", `request body not received within ${bodyTimeoutMs} ms`, { connection: "close" });
          response.once("finish", () => request.socket.destroySoon());
          return;
        }
        if (error instanceof BodyTooLarge) {
          gateway.metrics.countRejected("too_large");
          sendError(response, 413, "PAYLOAD_TOO_LARGE", `request body exceeds ${bodyLimit} bytes`, { connection: "close" });
          request.resume();
          return;
        }
        throw error;
      }
      // The media type before any parameters, exactly: `application/json-seq` is not JSON-RPC.
      const mediaType = (request.headers["content-type"] ?? "").split(";", 1)[0]!.trim().toLowerCase();
      if (mediaType !== "application/json") {
        jsonRpcError(response, 415, -32000, "Unsupported Media Type: Content-Type must be application/json");
        return;
      }
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        gateway.metrics.countRejected("bad_json");
        jsonRpcError(response, 400, -32700, "Parse error: invalid JSON");
        return;
      }
      // A JSON-RPC batch costs one rate-limit token per message (the first was taken already).
      if (rateLimitEnabled && Array.isArray(body) && body.length > 1) {
        const decision = await limiter.take(rateLimitKey(request, client), client?.requestsPerMinute, body.length - 1);
        if (!decision.allowed) {
          gateway.metrics.countRejected("rate_limited");
          sendError(response, 429, "RATE_LIMITED", `too many requests (a batch of ${body.length} messages counts as ${body.length})`, { "retry-after": String(decision.retryAfterSeconds) });
          return;
        }
      }
    }

    if (stateless) {
      if (method !== "POST") {
        jsonRpcError(response, 405, -32000, "Method not allowed: this gateway runs in stateless mode (POST only)", { allow: "POST" });
        return;
      }
      if (statelessTransport === "sdk") {
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !wantsProgress(body) });
        const server = gateway.createMcpServer();
        response.on("close", () => {
          void transport.close().catch(() => undefined);
          void server.close().catch(() => undefined);
        });
        await server.connect(transport);
        await transport.handleRequest(request, response, body);
        return;
      }
      await servePooled(request, response, body, authInfo);
      return;
    }

    const sessionId = request.headers["mcp-session-id"];
    const owner = client?.name ?? "";
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId);
      if (session) {
        await serveHeldSession(sessionId, session, request, response, body, owner);
        return;
      }
      await serveSharedSession(sessionId, request, response, body, owner, authInfo);
      return;
    }
    if (method !== "POST" || !(Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body))) {
      jsonRpcError(response, 400, -32000, "Bad Request: no valid session id; start with an initialize request");
      return;
    }
    const server = gateway.createMcpServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Awaited by the SDK before it answers initialize: the id is registered before the client
      // can send it to another instance (bounded by the store's operation timeout).
      onsessioninitialized: async (id) => {
        const now = Date.now();
        const session: Session = { transport, server, owner, lastSeen: now, synced: false, record: sessionRecordOf(id, body, owner, client?.tenant, now) };
        sessions.set(id, session);
        session.synced = await registry.create(session.record, { idleTtlMs: idleTimeoutMs }).catch(() => false);
        if (!session.synced) registryTrouble("create");
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const started = performance.now();
    let routeLabel = "other";
    response.on("finish", () => gateway.metrics.observeHttpRequest(routeLabel, request.method ?? "GET", response.statusCode, (performance.now() - started) / 1000));
    const url = new URL(request.url ?? "/", "http://gateway.invalid");
    const path = url.pathname;
    const method = request.method ?? "GET";
    const headers = corsHeaders(request);

    // DNS-rebinding and cross-site protection. Same-origin requests (the dashboard page served by
    // this listener) are allowed; other browser origins only when listed in cors.origins.
    const origin = request.headers.origin;
    if (origin !== undefined && !originAllowed(origin) && !isSameOrigin(origin, request.headers.host)) {
      gateway.metrics.countRejected("origin");
      sendError(response, 403, "FORBIDDEN", "origin not allowed");
      return;
    }
    if (!auth.enabled) {
      const hostHeader = (request.headers.host ?? "").replace(/:\d+$/, "");
      if (!isLoopbackHost(hostHeader)) {
        gateway.metrics.countRejected("host");
        sendError(response, 403, "FORBIDDEN", "host not allowed");
        return;
      }
    }
    if (method === "OPTIONS") {
      routeLabel = "preflight";
      if (Object.keys(headers).length === 0) {
        response.writeHead(204).end();
        return;
      }
      response.writeHead(204, {
        ...headers,
        "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
        "access-control-allow-headers": "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID",
        "access-control-max-age": String(corsMaxAge),
      });
      response.end();
      return;
    }

    if (path === "/healthz" && method === "GET") {
      routeLabel = "/healthz";
      sendJson(response, 200, { status: "ok" }, headers);
      return;
    }
    if (path === "/readyz" && method === "GET") {
      routeLabel = "/readyz";
      const report = await gateway.readiness();
      sendJson(response, report.ready ? 200 : 503, report, headers);
      return;
    }

    if (dashboard && dashboardSettings && (underPath(path, dashboardSettings.basePath) || underPath(path, dashboardSettings.apiPath))) {
      const isApi = underPath(path, dashboardSettings.apiPath);
      const isEvents = path === `${dashboardSettings.apiPath}/events`;
      routeLabel = isApi ? (isEvents ? `${dashboardSettings.apiPath}/events` : dashboardSettings.apiPath) : dashboardSettings.basePath;
      const isPublic = dashboard.isPublicPath(path);
      const dashboardClient = auth.enabled && !isPublic ? auth.authenticate(request.headers.authorization) : undefined;
      if (auth.enabled && !isPublic && !dashboardClient) {
        await refuseUnauthenticated(request, response, headers);
        return;
      }
      // The dashboard shows every tenant's queries: a tenant-scoped token may only search its own history.
      if (dashboardClient?.tenant !== undefined && path !== `${dashboardSettings.apiPath}/history`) {
        gateway.metrics.countRejected("tenant");
        sendError(response, 403, "FORBIDDEN", "the dashboard spans every tenant: use a token without a tenant", headers);
        request.resume();
        return;
      }
      // The live feed is one long request: no per-request rate limit (requests have no timeout here).
      if (rateLimitEnabled && !isEvents) {
        const client = auth.enabled ? auth.authenticate(request.headers.authorization) : undefined;
        const key = client ? `token:${client.name}` : `addr:${request.socket.remoteAddress ?? "unknown"}`;
        const decision = await limiter.take(key, client?.requestsPerMinute);
        if (!decision.allowed) {
          gateway.metrics.countRejected("rate_limited");
          sendError(response, 429, "RATE_LIMITED", "too many requests", { ...headers, "retry-after": String(decision.retryAfterSeconds) });
          request.resume();
          return;
        }
      }
      if (await dashboard.handle(request, response, { tenant: dashboardClient?.tenant })) return;
      sendError(response, 404, "NOT_FOUND", `no route for ${method} ${path.slice(0, 200)}`, headers);
      return;
    }

    const route = routes.find((r) => r.methods.includes(method) && (r.path.endsWith("/*") ? path.startsWith(r.path.slice(0, -1)) || path === r.path.slice(0, -2) : path === r.path));
    const isMcp = path === mcpPath;
    const isMetrics = path === "/metrics" && method === "GET";
    if (isMcp) routeLabel = mcpPath;
    else if (isMetrics) routeLabel = "/metrics";
    else if (route) routeLabel = route.metricsLabel ?? route.path;
    else {
      sendError(response, 404, "NOT_FOUND", `no route for ${method} ${path.slice(0, 200)}`, headers);
      return;
    }

    const needsAuth = auth.enabled && (isMcp || (isMetrics && metricsAuth) || (route !== undefined && route.auth !== false));
    let client: AuthenticatedClient | undefined;
    if (auth.enabled) client = auth.authenticate(request.headers.authorization);
    if (needsAuth && !client) {
      await refuseUnauthenticated(request, response, headers);
      return;
    }
    if (rateLimitEnabled && !isMetrics) {
      const decision = await limiter.take(rateLimitKey(request, client), client?.requestsPerMinute);
      if (!decision.allowed) {
        gateway.metrics.countRejected("rate_limited");
        sendError(response, 429, "RATE_LIMITED", "too many requests", { ...headers, "retry-after": String(decision.retryAfterSeconds) });
        request.resume();
        return;
      }
    }
    if (isMetrics) {
      const text = await gateway.metrics.render();
      response.writeHead(200, { ...headers, "content-type": gateway.metrics.contentType });
      response.end(text);
      return;
    }
    if (route) {
      await route.handle(request, response, { client, gateway, url });
      return;
    }
    await handleMcp(request, response, client, headers);
  };

  // Idle-connection checks run at this interval; Node's default (30 s) would let a slow-loris
  // client keep its connection well past headersTimeout.
  const server = createServer({ connectionsCheckingInterval: Math.max(50, Math.min(5_000, Math.floor(headersTimeoutMs / 4))) }, (request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.error({ err: { message: gateway.redactor.redact(String((error as Error)?.message ?? error)) } }, "HTTP request failed");
      if (!response.headersSent) sendError(response, 500, "INTERNAL", "internal error");
      else response.end();
    });
  });
  server.headersTimeout = headersTimeoutMs;
  // requestTimeout bounds receiving the request only; the body has its own timer (bodyTimeoutMs).
  server.requestTimeout = 0;
  // Malformed HTTP (bad request line, oversized headers) and header timeouts: a JSON answer
  // instead of Node's bare one, and the connection closed.
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : error.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
    gateway.metrics.countRejected(status === 408 ? "slow_headers" : "bad_http");
    const text = JSON.stringify({ error: status === 408 ? "request headers not received in time" : "malformed HTTP request", code: status === 408 ? "ABORTED" : "INVALID_INPUT" });
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
  });
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(new AfwError("CONFIG_INVALID", `cannot listen on ${host}:${port}: ${(error as NodeJS.ErrnoException).code ?? error.message}`));
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
  const address = server.address();
  const boundPort = typeof address === "object" && address ? address.port : port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  logger.info({ host, port: boundPort, path: mcpPath, stateless, auth: auth.enabled }, "MCP Streamable HTTP transport listening");

  return {
    url: `http://${urlHost}:${boundPort}${mcpPath}`,
    host,
    port: boundPort,
    server,
    get sessionCount() {
      return sessions.size;
    },
    close() {
      closing ??= (async () => {
        if (sweeper) clearInterval(sweeper);
        dashboard?.close();
        serverPool.length = 0;
        await Promise.all([...sessions.keys()].map((id) => closeSession(id)));
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
