import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { AfwError } from "@afw/contracts";
import { createDashboard, type Dashboard } from "@afw/dashboard";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { createBearerAuthenticator, type AuthenticatedClient } from "./bearer-auth.js";
import type { HttpConfig } from "./config-schema.js";
import { createGatewayDashboardSource } from "./gateway-dashboard.js";
import type { GatewayServer } from "./gateway-types.js";
import {
  answerClientError,
  createRequestGuards,
  isLoopbackHost,
  jsonRpcError,
  readJsonBody,
  sendError,
  sendJson,
} from "./http-guards.js";
import { createMcpSessions } from "./mcp-sessions.js";
import { createSharedRateLimiter } from "./rate-limiter.js";
import { createStatelessMcp } from "./stateless-mcp.js";

/** Options of {@link startHttpTransport}; each defaults to the gateway's `http` configuration (tokens, CORS and rate limit are only configured there). */
export type HttpTransportOptions = Partial<Omit<HttpConfig, "cors" | "rateLimit" | "authTokens">>;

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

/**
 * Serves the gateway over MCP Streamable HTTP on `node:http` (`/mcp`, stateless by default or with MCP sessions shared through the
 * session registry), plus `/healthz`, `/readyz`, `/metrics` and the dashboard, behind bearer auth, origin/`Host` checks, CORS, a body
 * limit, request timeouts and a rate limit (see the README's Transports section).
 * @example
 * ```ts
 * const http = await startHttpTransport(gateway, { port: 8787 }); // MCP clients connect to http.url
 * ```
 * @throws AfwError `FORBIDDEN` when asked to bind a non-loopback address without auth tokens.
 */
export async function startHttpTransport(gateway: GatewayServer, options: HttpTransportOptions = {}): Promise<HttpTransportHandle> {
  const { host, port, path: mcpPath, stateless, bodyLimitBytes, headersTimeoutMs, bodyTimeoutMs, metricsAuth, authTokens, cors, rateLimit } = {
    ...gateway.config.http,
    ...options,
  };
  const auth = createBearerAuthenticator(authTokens);
  gateway.redactor.addSecrets(...auth.secrets);
  if (!auth.enabled && !isLoopbackHost(host)) {
    throw new AfwError(
      "FORBIDDEN",
      `refusing to listen on '${host}' without authentication: configure http.authTokens (or AFW_AUTH_TOKENS), or bind a loopback address such as 127.0.0.1`,
    );
  }
  const { enabled: rateLimited, requestsPerMinute, burst } = rateLimit;
  const guards = createRequestGuards({
    origins: cors.origins,
    authEnabled: auth.enabled,
    metrics: gateway.metrics,
    // Shared by every instance through Redis when the gateway has it, else (or while Redis is away) per instance.
    limiter: rateLimited
      ? createSharedRateLimiter({ requestsPerMinute, ...(burst === undefined ? {} : { burst }) }, gateway.stores.rateLimits)
      : undefined,
  });
  const dashboardSettings = gateway.config.dashboard.enabled ? gateway.config.dashboard : undefined;
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
  // A request target that is exactly the MCP path (the usual one) is its own path when the MCP path parses to itself; any other target is parsed.
  const pathOf = (target: string) => new URL(target, "http://gateway.invalid").pathname;
  const mcpPathAsIs = pathOf(mcpPath) === mcpPath;
  const pooled = createStatelessMcp(gateway);
  const sessions = stateless ? undefined : createMcpSessions(gateway, { registry: gateway.stores.mcpSessions, pooled });
  let closing: Promise<void> | undefined;
  const handleMcp = async (request: IncomingMessage, response: ServerResponse, client: AuthenticatedClient | undefined, headers: Record<string, string>) => {
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    const authInfo: AuthInfo | undefined = client
      ? { token: client.name, clientId: client.name, scopes: [], extra: { ...(client.tenant === undefined ? {} : { tenant: client.tenant }) } }
      : undefined;
    (request as IncomingMessage & { auth?: AuthInfo }).auth = authInfo;
    const method = request.method ?? "GET";
    let body: unknown;
    if (method === "POST") {
      const read = await readJsonBody(request, response, bodyLimitBytes, bodyTimeoutMs, gateway.metrics);
      if (!read) return;
      body = read.body;
      // A JSON-RPC batch costs one rate-limit token per message (the first was taken already).
      if (Array.isArray(body) && body.length > 1) {
        const message = `too many requests (a batch of ${body.length} messages counts as ${body.length})`;
        if (!(await guards.allow(request, response, client, {}, body.length - 1, message))) return;
      }
    }
    if (sessions) return sessions.serve(request, response, body, client?.name ?? "", authInfo);
    if (method !== "POST") return jsonRpcError(response, 405, -32000, "Method not allowed: this gateway runs in stateless mode (POST only)", { allow: "POST" });
    await pooled.serve(request, response, body, authInfo);
  };
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const started = performance.now();
    let routeLabel = "other";
    response.on("finish", () => gateway.metrics.observeHttpRequest(routeLabel, request.method ?? "GET", response.statusCode, (performance.now() - started) / 1000));
    const target = request.url ?? "/";
    const path = target === mcpPath && mcpPathAsIs ? mcpPath : pathOf(target);
    const method = request.method ?? "GET";
    const headers = guards.corsHeaders(request);
    // DNS-rebinding and cross-site protection, then CORS preflights.
    const refused = guards.refuse(request, response, headers);
    if (refused === "preflight") routeLabel = "preflight";
    if (refused) return;
    if (path === "/healthz" && method === "GET") {
      routeLabel = "/healthz";
      return sendJson(response, 200, { status: "ok" }, headers);
    }
    if (path === "/readyz" && method === "GET") {
      routeLabel = "/readyz";
      const report = await gateway.readiness();
      return sendJson(response, report.ready ? 200 : 503, report, headers);
    }
    if (dashboard && dashboardSettings && (underPath(path, dashboardSettings.basePath) || underPath(path, dashboardSettings.apiPath))) {
      const isEvents = path === `${dashboardSettings.apiPath}/events`;
      routeLabel = underPath(path, dashboardSettings.apiPath) ? (isEvents ? `${dashboardSettings.apiPath}/events` : dashboardSettings.apiPath) : dashboardSettings.basePath;
      const isPublic = dashboard.isPublicPath(path);
      const client = auth.enabled && !isPublic ? auth.authenticate(request.headers.authorization) : undefined;
      if (auth.enabled && !isPublic && !client) return guards.unauthenticated(request, response, headers);
      // The dashboard shows every tenant's queries: a tenant-scoped token may only search its own history.
      if (client?.tenant !== undefined && path !== `${dashboardSettings.apiPath}/history`) {
        gateway.metrics.countRejected("tenant");
        sendError(response, 403, "FORBIDDEN", "the dashboard spans every tenant: use a token without a tenant", headers);
        request.resume();
        return;
      }
      // The live feed is one long request: no per-request rate limit (requests have no timeout here).
      const rateClient = auth.enabled ? auth.authenticate(request.headers.authorization) : undefined;
      if (!isEvents && !(await guards.allow(request, response, rateClient, headers))) return;
      if (await dashboard.handle(request, response, { tenant: client?.tenant })) return;
      return sendError(response, 404, "NOT_FOUND", `no route for ${method} ${path.slice(0, 200)}`, headers);
    }
    const isMcp = path === mcpPath;
    const isMetrics = path === "/metrics" && method === "GET";
    if (isMcp) routeLabel = mcpPath;
    else if (isMetrics) routeLabel = "/metrics";
    else return sendError(response, 404, "NOT_FOUND", `no route for ${method} ${path.slice(0, 200)}`, headers);
    const client = auth.enabled ? auth.authenticate(request.headers.authorization) : undefined;
    if (auth.enabled && !client && (isMcp || (isMetrics && metricsAuth))) {
      return guards.unauthenticated(request, response, headers);
    }
    if (!isMetrics && !(await guards.allow(request, response, client, headers))) return;
    if (isMetrics) {
      const text = await gateway.metrics.render();
      response.writeHead(200, { ...headers, "content-type": gateway.metrics.contentType });
      return void response.end(text);
    }
    await handleMcp(request, response, client, headers);
  };
  // Idle-connection checks run at this interval; Node's default (30 s) would let a slow-loris client keep its connection well past headersTimeout.
  const server = createServer({ connectionsCheckingInterval: Math.max(50, Math.min(5_000, Math.floor(headersTimeoutMs / 4))) }, (request, response) => {
    handle(request, response).catch((error: unknown) => {
      gateway.logger.error({ err: { message: gateway.redactor.redact(String((error as Error)?.message ?? error)) } }, "HTTP request failed");
      if (!response.headersSent) sendError(response, 500, "INTERNAL", "internal error");
      else response.end();
    });
  });
  server.headersTimeout = headersTimeoutMs;
  // requestTimeout bounds receiving the request only; the body has its own timer (bodyTimeoutMs).
  server.requestTimeout = 0;
  server.on("clientError", answerClientError(gateway.metrics));
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
  gateway.logger.info({ host, port: boundPort, path: mcpPath, stateless, auth: auth.enabled }, "MCP Streamable HTTP transport listening");
  return {
    url: `http://${urlHost}:${boundPort}${mcpPath}`,
    host,
    port: boundPort,
    server,
    get sessionCount() {
      return sessions?.size ?? 0;
    },
    close() {
      closing ??= (async () => {
        dashboard?.close();
        pooled.close();
        await sessions?.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
