import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpSessionRecord, McpSessionRegistry } from "@afw/contracts";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { GatewayServer } from "./gateway-types.js";
import { jsonRpcError } from "./http-guards.js";
import type { StatelessMcp } from "./stateless-mcp.js";

/** An instance closes the MCP sessions it holds after this long without a request to it, and the session registry (Redis when
 * `redis` is configured, so every instance accepts every session; else memory) forgets a session after this long without a request. */
const SESSION_IDLE_TIMEOUT_MS = 30 * 60_000;
/** Longest `clientInfo.name`/`version` kept in the session registry. */
const MAX_CLIENT_INFO_LENGTH = 256;

const initializes = (body: unknown) => (Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body));

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
  return { sessionId, owner, ...(tenant === undefined ? {} : { tenant }), protocolVersion, ...(clientInfo ? { clientInfo } : {}), createdAt: now, lastSeenAt: now };
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

/** The MCP sessions of one listener in stateful mode. */
export interface McpSessions {
  /** Serves one `/mcp` request (its POST body already parsed) of the client `owner`. */
  serve(request: IncomingMessage, response: ServerResponse, body: unknown, owner: string, authInfo: AuthInfo | undefined): Promise<void>;
  /** Sessions held in this process. */
  readonly size: number;
  /** Closes the sessions held here without deleting them from the registry. */
  close(): Promise<void>;
}

/** Stateful MCP sessions with `Mcp-Session-Id`: `initialize` opens a session in this process (an SDK transport and MCP server of its own) and registers it in
 * `registry` (owner, tenant, protocol version, client info) before answering; every request refreshes the registry's idle TTL. */
export function createMcpSessions(gateway: GatewayServer, { registry, pooled }: { registry: McpSessionRegistry; pooled: StatelessMcp }): McpSessions {
  const sessions = new Map<string, Session>();
  const closeSession = async (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    await session.transport.close().catch(() => undefined);
    await session.server.close().catch(() => undefined);
  };
  const sweeper = setInterval(
    () => {
      const cutoff = Date.now() - SESSION_IDLE_TIMEOUT_MS;
      for (const [id, session] of sessions) if (session.lastSeen < cutoff) void closeSession(id);
    },
    Math.min(60_000, Math.max(1_000, Math.floor(SESSION_IDLE_TIMEOUT_MS / 2))),
  );
  sweeper.unref();
  // Registry trouble is logged at most once per interval (the store also emits `cache-unavailable` trace events).
  let lastRegistryWarning = -Infinity;
  const registryTrouble = (operation: string, message?: string) => {
    const now = Date.now();
    if (now - lastRegistryWarning < 10_000) return;
    lastRegistryWarning = now;
    gateway.logger.warn(
      { operation, ...(message === undefined ? {} : { err: { message: gateway.redactor.redact(message) } }) },
      "MCP session registry unavailable: sessions held by this instance keep working, sessions of other instances are refused until it recovers",
    );
  };
  const touch = (sessionId: string, owner: string) =>
    registry.touch(sessionId, { owner, idleTtlMs: SESSION_IDLE_TIMEOUT_MS }).catch((error: unknown) => ({ status: "unavailable" as const, message: String((error as Error)?.message ?? error) }));
  const unavailable = (response: ServerResponse) => jsonRpcError(response, 503, -32000, "Session registry unavailable: retry shortly", { "retry-after": "1" });
  /** A session this process holds: the SDK transport serves it; the registry is kept in step. */
  const serveHeld = async (sessionId: string, session: Session, request: IncomingMessage, response: ServerResponse, body: unknown) => {
    const method = request.method ?? "GET";
    if (method === "DELETE") {
      // Removed from the registry before the answer, so no instance accepts it afterwards.
      if ((await registry.delete(sessionId).catch(() => undefined)) === undefined) registryTrouble("delete");
    } else {
      const lookup = await touch(sessionId, session.owner);
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
        session.synced = await registry.create({ ...session.record, lastSeenAt: Date.now() }, { idleTtlMs: SESSION_IDLE_TIMEOUT_MS }).catch(() => false);
      }
    }
    session.lastSeen = Date.now();
    await session.transport.handleRequest(request, response, body);
    if (method === "DELETE") await closeSession(sessionId);
  };
  /** A session id this process does not hold: accepted when the registry has it for this owner. */
  const serveShared = async (sessionId: string, request: IncomingMessage, response: ServerResponse, body: unknown, owner: string, authInfo: AuthInfo | undefined) => {
    const method = request.method ?? "GET";
    const lookup = await touch(sessionId, owner);
    if (lookup.status === "unavailable") {
      registryTrouble("touch", lookup.message);
      gateway.metrics.countRejected("session_registry");
      return unavailable(response);
    }
    if (lookup.status !== "found") return jsonRpcError(response, 404, -32001, "Session not found");
    response.setHeader("mcp-session-id", sessionId);
    if (method === "DELETE") {
      if ((await registry.delete(sessionId).catch(() => undefined)) !== undefined) return void response.writeHead(200).end();
      registryTrouble("delete");
      return unavailable(response);
    }
    if (method !== "POST") {
      return jsonRpcError(response, 405, -32000, "Method not allowed: this instance offers no standalone SSE stream for a session it does not hold", { allow: "POST, DELETE" });
    }
    if (initializes(body)) return jsonRpcError(response, 400, -32600, "Invalid Request: Server already initialized");
    await pooled.serve(request, response, body, authInfo);
  };
  return {
    async serve(request, response, body, owner, authInfo) {
      const sessionId = request.headers["mcp-session-id"];
      if (typeof sessionId === "string") {
        const session = sessions.get(sessionId);
        if (!session) return serveShared(sessionId, request, response, body, owner, authInfo);
        if (session.owner !== owner) return jsonRpcError(response, 404, -32001, "Session not found");
        return serveHeld(sessionId, session, request, response, body);
      }
      if (request.method !== "POST" || !initializes(body)) {
        return jsonRpcError(response, 400, -32000, "Bad Request: no valid session id; start with an initialize request");
      }
      const server = gateway.createMcpServer();
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        // Awaited by the SDK before it answers initialize: the id is registered before the client can send it
        // to another instance (bounded by the store's operation timeout).
        onsessioninitialized: async (id) => {
          const now = Date.now();
          const tenant = authInfo?.extra?.["tenant"];
          const session: Session = { transport, server, owner, lastSeen: now, synced: false, record: sessionRecordOf(id, body, owner, typeof tenant === "string" ? tenant : undefined, now) };
          sessions.set(id, session);
          session.synced = await registry.create(session.record, { idleTtlMs: SESSION_IDLE_TIMEOUT_MS }).catch(() => false);
          if (!session.synced) registryTrouble("create");
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      await transport.handleRequest(request, response, body);
    },
    get size() {
      return sessions.size;
    },
    async close() {
      clearInterval(sweeper);
      await Promise.all([...sessions.keys()].map((id) => closeSession(id)));
    },
  };
}
