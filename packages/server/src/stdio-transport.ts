import type { Readable, Writable } from "node:stream";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { GatewayServer } from "./gateway-types.js";

/** Options of {@link startStdioTransport}. */
export interface StdioTransportOptions {
  /** @default process.stdin */
  stdin?: Readable;
  /** @default process.stdout */
  stdout?: Writable;
}

/** A gateway served over stdio. */
export interface StdioTransportHandle {
  /** The MCP server bound to stdio. */
  readonly server: McpServer;
  /** Resolves when the client closes the connection (stdin ends) or {@link StdioTransportHandle.close} is called. */
  readonly closed: Promise<void>;
  /** Closes the MCP connection. Idempotent. */
  close(): Promise<void>;
}

/**
 * Serves the gateway over stdio (MCP messages on stdout, logs on stderr); `closed` resolves when the client disconnects.
 * @example
 * ```ts
 * await (await startStdioTransport(gateway)).closed;
 * ```
 */
export async function startStdioTransport(gateway: GatewayServer, options: StdioTransportOptions = {}): Promise<StdioTransportHandle> {
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const server = gateway.createMcpServer();
  server.server.onclose = () => resolveClosed();
  const onEnd = () => void server.close().finally(resolveClosed);
  stdin.once("end", onEnd);
  stdin.once("close", onEnd);
  await server.connect(transport);
  gateway.logger.info({ transport: "stdio" }, "MCP stdio transport ready");
  return {
    server,
    closed,
    async close() {
      stdin.off("end", onEnd);
      stdin.off("close", onEnd);
      await server.close().catch(() => undefined);
      resolveClosed();
    },
  };
}
