import { createGatewayServer, loadGatewayConfig, startHttpTransport, startStdioTransport } from "@afw/server";
import type { CommandIo } from "./io.js";

/** Options of `afw serve`. */
export interface ServeOptions {
  config?: string | undefined;
  transport: "http" | "stdio";
  host?: string | undefined;
  port?: string | undefined;
}

/**
 * `afw serve`: loads the config (YAML file + env overrides; embedded defaults without a file),
 * builds the gateway and serves it over Streamable HTTP (default 127.0.0.1:8787) or stdio.
 * Resolves with the exit code when the transport closes or the process is signalled.
 */
export async function serveCommand(options: ServeOptions, io: CommandIo): Promise<number> {
  let port: number | undefined;
  if (options.port !== undefined) {
    port = Number(options.port);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) return io.fail(`--port must be an integer from 0 to 65535 (got '${options.port}')`);
  }
  const config = await loadGatewayConfig(options.config, process.env);
  const gateway = await createGatewayServer(config);
  let stopping = false;
  let httpHandle: { close(): Promise<void> } | undefined;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await httpHandle?.close().catch(() => {}); // ends dashboard live feeds and MCP sessions first
    await gateway.close().catch(() => {});
    process.exit(code);
  };
  process.once("SIGINT", () => void stop(0));
  process.once("SIGTERM", () => void stop(0));

  if (options.transport === "stdio") {
    const handle = await startStdioTransport(gateway);
    void gateway.warmUp();
    io.log("serving MCP on stdio");
    await handle.closed;
    await gateway.close();
    return 0;
  }
  const handle = await startHttpTransport(gateway, {
    ...(options.host ? { host: options.host } : {}),
    ...(port !== undefined ? { port } : {}),
  });
  httpHandle = handle;
  io.log(`serving MCP on ${handle.url} (health: /healthz, readiness: /readyz, metrics: /metrics)`);
  if (gateway.config.dashboard.enabled) io.log(`operator dashboard on ${new URL(gateway.config.dashboard.basePath, handle.url).href}`);
  void gateway.warmUp();
  await new Promise<void>((resolve) => handle.server.once("close", () => resolve()));
  await gateway.close();
  return 0;
}
