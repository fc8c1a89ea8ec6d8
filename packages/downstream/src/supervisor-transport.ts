import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
  type LoggingMessageNotification,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { DownstreamServerConfig } from "./config.js";
import { checkOutboundUrl, createOutboundAgent, findConnectRefusal, lookupFromResolver, outboundConnectPolicy, type HostResolver } from "@afw/backends";
import { allPages, listCatalog, type ServerCatalog } from "./catalog.js";
import type { BackoffPolicy, TraceContext } from "@afw/contracts";
import type { CallerRegistry, DownstreamLogMessage, DownstreamProgress } from "./forwarding.js";
import type { ServerSupervisor } from "./server-supervisor.js";
import type { ToolsChangeReason } from "./server-status.js";
import { fetch as undiciFetch, type Agent } from "undici";
import { setTimeout as sleep } from "node:timers/promises";

const HTTP_TERMINATE_LIMIT_MS = 1_000;
/** The client identity sent to downstream servers. */
const CLIENT_INFO = { name: "afw-gateway", version: "0.0.0" };

/** One connection to a downstream server. @internal */
export interface Connection {
  readonly client: Client;
  readonly transport: Transport;
  connectedAt: number;
  pid: number | undefined;
  closing: boolean;
  healthCheck: Promise<boolean> | undefined;
  /** Whether the server announced `tools.listChanged` (then our list is kept fresh by notifications). */
  notifiesToolChanges: boolean;
  /** The checked connection pool of an HTTP transport (closed with the connection). */
  outbound: Agent | undefined;
}

/** Longest `instructions` text kept from a server (the tool index reads its words). */
const MAX_INSTRUCTIONS_CHARS = 4_000;

/** What a server says about itself in its `initialize` result: its title and its instructions. @internal */
export interface ServerAbout {
  /** `serverInfo.title`, else `serverInfo.name` when it differs from the configured name. */
  title?: string;
  /** The server's `instructions`, at most {@link MAX_INSTRUCTIONS_CHARS} characters. */
  instructions?: string;
}

/** Reads {@link ServerAbout} from a connected client. @internal */
export function describeServer(client: Client, configuredName: string): ServerAbout {
  const info = client.getServerVersion();
  const title = (info?.title ?? (info?.name !== configuredName ? info?.name : undefined))?.trim().slice(0, 200);
  const instructions = client.getInstructions()?.trim().slice(0, MAX_INSTRUCTIONS_CHARS);
  return { ...(title ? { title } : {}), ...(instructions ? { instructions } : {}) };
}

/** Lists every page of a server's tools. @internal */
export function listAllTools(client: Client, timeoutMs: number): Promise<Tool[]> {
  return allPages(async (cursor) => {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    return { items: result.tools, nextCursor: result.nextCursor };
  });
}

/**
 * Creates the MCP client transport of a server; a stdio server's stderr chunks go to `onStderr`.
 * @internal
 */
export function createTransport(config: DownstreamServerConfig, outbound: Agent | undefined, onStderr: (chunk: Buffer) => void): Transport {
  if (config.transport === "stdio") {
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: config.env,
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      stderr: "pipe",
      maxBufferSize: config.maxMessageBytes,
    });
    const stream = transport.stderr;
    stream?.on("data", onStderr);
    stream?.on("error", () => undefined);
    return transport;
  }
  const url = new URL(config.url);
  const requestInit: RequestInit = { headers: config.headers };
  const fetch = outbound ? { fetch: checkedFetch(outbound) } : {};
  if (config.protocol === "sse") return new SSEClientTransport(url, { requestInit, ...fetch });
  return new StreamableHTTPClientTransport(url, {
    requestInit,
    ...fetch,
    reconnectionOptions: { initialReconnectionDelay: 1_000, maxReconnectionDelay: 30_000, reconnectionDelayGrowFactor: 1.5, maxRetries: 2 },
  });
}

/**
 * Closes a connection: gracefully (the SDK ends a child's stdin, then sends SIGTERM and SIGKILL after grace periods;
 * an HTTP session is terminated) or, with `force`, at once (SIGKILL).
 * @internal
 */
export async function closeConnection(connection: Connection, force: boolean): Promise<void> {
  const { client, transport } = connection;
  if (transport instanceof StdioClientTransport) {
    if (force && transport.pid !== null) {
      try {
        process.kill(transport.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await client.close().catch(() => undefined);
    return;
  }
  if (!force && transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
    await Promise.race([transport.terminateSession().catch(() => undefined), sleep(HTTP_TERMINATE_LIMIT_MS, undefined, { ref: false })]);
  }
  await client.close().catch(() => undefined);
  await connection.outbound?.destroy().catch(() => undefined);
}

/** `undici`'s `fetch` through `agent`; a refused connection rejects with the refusal itself (host, address, rule), not `fetch failed`. */
function checkedFetch(agent: Agent): FetchLike {
  return async (input, init) => {
    try {
      return (await undiciFetch(input instanceof URL ? input.toString() : input, { ...(init as Record<string, unknown>), dispatcher: agent })) as unknown as Response;
    } catch (error) {
      throw findConnectRefusal(error) ?? error;
    }
  };
}

/** What a supervisor is given by its manager. @internal */
export interface SupervisorDependencies {
  random: () => number;
  trace: TraceContext | undefined;
  restartBackoff: BackoffPolicy;
  maxRestarts: number | undefined;
  onChange(supervisor: ServerSupervisor, reason: ToolsChangeReason): void;
  /** Log messages of the server that no caller took. */
  onServerLog: ((message: DownstreamLogMessage) => void) | undefined;
  /** Allowlist of HTTP server hosts (undefined: any configured host; special addresses refused). */
  allowedHosts: readonly string[] | undefined;
  /** Host-name resolver for the outbound-address check and of HTTP connections (each resolved address is checked again). */
  resolveHost: HostResolver | undefined;
}

/** What {@link openClient} needs from its supervisor. @internal */
export interface ClientHooks extends Pick<SupervisorDependencies, "allowedHosts" | "resolveHost"> {
  callers: CallerRegistry;
  progressListeners: ReadonlyMap<string, (progress: DownstreamProgress) => void>;
  onOpening(connection: Connection): void;
  onStderr(chunk: Buffer): void;
  onClose(connection: Connection): void;
  onError(error: Error): void;
  onListChanged(connection: Connection, list: "tools" | "catalog"): void;
  onLog(params: LoggingMessageNotification["params"]): void;
}

/**
 * Opens an MCP client to a server and lists its tools and catalog.
 * @internal
 */
export async function openClient(name: string, config: DownstreamServerConfig, hooks: ClientHooks): Promise<{ connection: Connection; tools: Tool[]; catalog: ServerCatalog; about: ServerAbout }> {
  const policy = config.transport === "http" ? outboundConnectPolicy(config.url, { allowedHosts: hooks.allowedHosts }) : undefined;
  const outbound = policy && createOutboundAgent({ policy, lookup: hooks.resolveHost && lookupFromResolver(hooks.resolveHost) });
  const transport = createTransport(config, outbound, hooks.onStderr);
  const client = new Client(CLIENT_INFO, { capabilities: { sampling: {}, elicitation: { form: {}, url: {} } } });
  const connection: Connection = { client, transport, connectedAt: 0, pid: undefined, closing: false, healthCheck: undefined, notifiesToolChanges: false, outbound };
  hooks.onOpening(connection);
  client.onclose = () => hooks.onClose(connection);
  client.onerror = (error) => {
    if (!connection.closing) hooks.onError(error);
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => hooks.onListChanged(connection, "tools"));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => hooks.onListChanged(connection, "catalog"));
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => hooks.onListChanged(connection, "catalog"));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => hooks.onLog(notification.params));
  client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
    hooks.callers.forward(name, "sampling/createMessage", (caller) => caller.createMessage && ((signal) => caller.createMessage!(request.params, { signal })), extra.signal),
  );
  client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
    hooks.callers.forward(name, "elicitation/create", (caller) => caller.elicit && ((signal) => caller.elicit!(request.params, { signal })), extra.signal),
  );
  try {
    if (config.transport === "http") {
      const decision = await checkOutboundUrl(config.url, { allowedHosts: hooks.allowedHosts, ...(hooks.resolveHost ? { resolve: hooks.resolveHost } : {}) });
      if (!decision.allowed) throw new Error(`refused by the outbound address policy: ${decision.reason}`);
    }
    await client.connect(transport, { timeout: config.connectTimeoutMs });
    interceptMessages(transport, hooks.progressListeners);
    connection.pid = transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined;
    connection.notifiesToolChanges = client.getServerCapabilities()?.tools?.listChanged === true;
    const [tools, catalog] = await Promise.all([listAllTools(client, config.connectTimeoutMs), listCatalog(client, config.connectTimeoutMs)]);
    return { connection, tools, catalog, about: describeServer(client, name) };
  } catch (error) {
    connection.closing = true;
    await closeConnection(connection, true);
    throw error;
  }
}

/**
 * Takes the messages the transport delivers, in order: progress notifications for our tokens go to their listeners (the
 * SDK handles notifications a tick late, after a result that arrived with them has already removed the call's progress
 * handler), and once a stdout line overflowed `maxMessageBytes` (the SDK then closes the transport) nothing more is
 * delivered.
 */
function interceptMessages(transport: Transport, listeners: ClientHooks["progressListeners"]): void {
  const deliver = transport.onmessage;
  const reportError = transport.onerror;
  let framingBroken = false;
  transport.onerror = (error) => {
    if (error.message.includes("exceeded maximum size")) framingBroken = true;
    reportError?.(error);
  };
  transport.onmessage = (message, extra) => {
    if (framingBroken) return;
    if ("method" in message && message.method === "notifications/progress" && !("id" in message)) {
      const params = ProgressNotificationSchema.shape.params.safeParse(message.params);
      const listener = params.success ? listeners.get(String(params.data.progressToken)) : undefined;
      if (params.success && listener) {
        listener(params.data);
        return;
      }
    }
    deliver?.(message, extra);
  };
}

/**
 * Runs `task` one at a time: a call while it runs asks for one more run after it (so the latest
 * state is read) and shares its promise. `task` answers whether another requested run may follow.
 * @internal
 */
export function coalesced(task: () => Promise<boolean>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
        } while ((await task()) && again);
      } finally {
        running = undefined;
      }
    })();
    return running;
  };
}
