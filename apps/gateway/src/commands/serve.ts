import { createGatewayServer, describeSetup, loadGatewayConfig, startHttpTransport, startStdioTransport, type GatewayServer } from "@afw/server";
import type { CommandIo } from "./io.js";

/** Options of `afw serve`. */
export interface ServeOptions {
  config?: string | undefined;
  transport: "http" | "stdio";
  host?: string | undefined;
  port?: string | undefined;
}

/** `afw serve`: loads the config (YAML file + env overrides; embedded defaults without a file), builds the
 * gateway and serves it over Streamable HTTP (default 127.0.0.1:8787) or stdio. */
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
    process.off("SIGHUP", onHangup);
    await gateway.close().catch(() => {});
    process.exit(code);
  };
  process.once("SIGINT", () => void stop(0));
  process.once("SIGTERM", () => void stop(0));
  // SIGHUP re-reads the configuration file and applies what can change live (intent patterns, flow
  // registry, A/B experiments); the rest is reported as needing a restart.
  const onHangup = () => {
    void (async () => {
      try {
        const report = await gateway.reload(await loadGatewayConfig(options.config, process.env));
        const applied = [report.intentPatterns && "intent patterns", report.experiments && "experiments", ...report.backends.map((id) => `flows of ${id}`)].filter(Boolean);
        io.log(`configuration reloaded: ${applied.length > 0 ? applied.join(", ") : "nothing changed"}${report.restartRequired.length > 0 ? `; needs a restart: ${report.restartRequired.join(", ")}` : ""}`);
      } catch (error) {
        io.log(`configuration reload failed (nothing applied): ${(error as Error)?.message ?? String(error)}`);
      }
    })();
  };
  process.on("SIGHUP", onHangup);
  let closed: Promise<unknown>;
  if (options.transport === "stdio") {
    closed = (await startStdioTransport(gateway)).closed;
    io.log("serving MCP on stdio");
  } else {
    const handle = await startHttpTransport(gateway, { ...(options.host ? { host: options.host } : {}), ...(port !== undefined ? { port } : {}) });
    httpHandle = handle;
    io.log(`serving MCP on ${handle.url} (health: /healthz, readiness: /readyz, metrics: /metrics)`);
    if (gateway.config.dashboard.enabled) io.log(`operator dashboard on ${new URL(gateway.config.dashboard.basePath, handle.url).href}`);
    closed = new Promise((resolve) => handle.server.once("close", resolve));
  }
  void reportStartup(gateway, io);
  await closed;
  process.off("SIGHUP", onHangup);
  await gateway.close();
  return 0;
}

/** Warms the gateway up, then prints one line per backend (reachable, authenticated, flows found — or why not, and what to
 * set) and per downstream server, and what to configure when nothing can be routed to. */
export async function reportStartup(gateway: GatewayServer, io: Pick<CommandIo, "log">): Promise<void> {
  try {
    await gateway.warmUp();
    const setup = await describeSetup(gateway, { signal: AbortSignal.timeout(gateway.config.routing.health.timeoutMs) });
    for (const backend of setup.backends) io.log(gateway.redactor.redact(`backend ${backend.id} (${backend.kind}): ${backend.message}`));
    if (setup.hint) io.log(gateway.redactor.redact(setup.backends.length === 0 ? setup.hint : "no backend can answer yet; universal_query will say so until one does"));
    for (const server of gateway.downstream?.manager.status() ?? []) {
      const state =
        server.state === "connected"
          ? `connected, ${server.toolCount} tool${server.toolCount === 1 ? "" : "s"}`
          : server.mode === "cold" && server.state === "idle"
            ? "cold: connects on first use"
            : `${server.state}${server.lastError ? ` (${server.lastError})` : ""}`;
      io.log(gateway.redactor.redact(`downstream ${server.name} (${server.transport}): ${state}`));
    }
  } catch (error) {
    io.log(`startup report failed: ${gateway.redactor.redact(String((error as Error)?.message ?? error))}`);
  }
}
