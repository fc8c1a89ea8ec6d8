import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { DownstreamServerConfig } from "./config.js";
import { findConnectRefusal } from "@afw/backends";
import { fetch as undiciFetch, type Agent } from "undici";

const SHUTDOWN_GRACE_MS = 1_000;
const HTTP_TERMINATE_LIMIT_MS = 1_000;

/** One connection to a downstream server. @internal */
export interface Connection {
  readonly generation: number;
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

/** Lists every page of a server's tools. @internal */
export async function listAllTools(client: Client, timeoutMs: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/**
 * The stdio transport of a server, which stops delivering messages once a stdout line overflowed
 * `maxMessageBytes`. The SDK then drops the buffered line and closes the transport, but keeps
 * reading until the process is gone: a reply framed after the overflow would still resolve its
 * call, or not, depending on how the pipe happened to chunk the flood. A connection whose framing
 * broke is closed, and its in-flight calls fail, every time.
 * @internal
 */
export class FramedStdioTransport implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private framingBroken = false;

  constructor(readonly inner: StdioClientTransport) {
    inner.onmessage = (message) => {
      if (!this.framingBroken) this.onmessage?.(message);
    };
    inner.onerror = (error) => {
      if (error.message.includes("exceeded maximum size")) this.framingBroken = true;
      this.onerror?.(error);
    };
    inner.onclose = () => this.onclose?.();
  }

  /** The child's process id, once started. */
  get pid(): number | undefined {
    return this.inner.pid ?? undefined;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
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
    return new FramedStdioTransport(transport);
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
 * Closes a connection: gracefully (SIGTERM after a grace period, HTTP session terminated) or,
 * with `force`, at once (SIGKILL).
 * @internal
 */
export async function closeConnection(connection: Connection, force: boolean): Promise<void> {
  const { client, transport } = connection;
  if (transport instanceof FramedStdioTransport) {
    const pid = transport.pid;
    const kill = (signal: NodeJS.Signals) => {
      if (pid === undefined) return;
      try {
        process.kill(pid, signal);
      } catch {
        // already gone
      }
    };
    if (force) kill("SIGKILL");
    const grace = force ? undefined : setTimeout(() => kill("SIGTERM"), SHUTDOWN_GRACE_MS);
    grace?.unref();
    await client.close().catch(() => undefined);
    if (grace) clearTimeout(grace);
    return;
  }
  if (!force && transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      transport.terminateSession().catch(() => undefined),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, HTTP_TERMINATE_LIMIT_MS);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
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
