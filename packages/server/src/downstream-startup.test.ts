// Downstream servers never hold up the gateway: startup, /healthz and tools/list answer while a
// server hangs in initialize; a slow server's tools join later with list_changed; shutdown kills a
// server still connecting; state changes are logged, reported by /readyz and exported as metrics.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { startTestGateway } from "../test/helpers.js";
import { startHttpTransport } from "./http-transport.js";

const FIXTURE = fileURLToPath(new URL("../test/fixtures/downstream-server.mjs", import.meta.url));
const SECRET = "mute-secret-7d41c09e";

function fixtureServer(name: string, env: Record<string, string>, settings: Record<string, unknown> = {}) {
  return { name, transport: "stdio" as const, command: process.execPath, args: [FIXTURE], env: { FIXTURE_NAME: name, FIXTURE_TOOLS: "math", ...env }, pingIntervalMs: 0, ...settings };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("downstream servers at startup and shutdown", () => {
  const directory = mkdtempSync(join(tmpdir(), "afw-downstream-startup-"));
  const gate = join(directory, "open");
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("starts, answers /healthz and tools/list at once, adds a slow server's tools with list_changed, and kills a hung server on close", async () => {
    const logLines: string[] = [];
    const started = await startTestGateway({
      logDestination: { write: (line: string) => void logLines.push(line) },
      config: {
        logging: { level: "info" },
        tools: { exposure: "all" },
        downstream: {
          servers: [
            // Never answers initialize; its connect timeout is far beyond this test's own timeout.
            fixtureServer("mute", { FIXTURE_NEVER_INITIALIZE: "1", MUTE_API_TOKEN: SECRET }, { connectTimeoutMs: 600_000 }),
            // Works, but only once the test opens the gate.
            fixtureServer("slow", { FIXTURE_START_GATE: gate }),
            // Fails to start; a restart far away.
            { name: "broken", transport: "stdio", command: process.execPath, args: ["-e", `console.error("bad key ${SECRET}"); process.exit(3)`], pingIntervalMs: 0 },
          ],
          restartBackoff: { initialDelayMs: 600_000, maxDelayMs: 600_000 },
        },
      },
    });
    const http = await startHttpTransport(started.gateway, { port: 0 });
    try {
      const manager = started.gateway.downstream!.manager;
      const mute = manager.status().find((status) => status.name === "mute")!;
      expect(mute.state).toBe("connecting");
      expect(isAlive(mute.pid!)).toBe(true);

      const health = await fetch(new URL("/healthz", http.url));
      expect(health.status).toBe(200);
      const names = (await started.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain("universal_query");
      expect(names.some((name) => name.startsWith("slow__"))).toBe(false);

      // /readyz reports every server without failing on optional ones.
      const ready = (await (await fetch(new URL("/readyz", http.url))).json()) as { checks: { name: string; ok: boolean; status?: string; message?: string }[] };
      const downstreamChecks = ready.checks.filter((check) => check.name.startsWith("downstream:"));
      expect(downstreamChecks.map((check) => [check.name, check.ok])).toEqual([
        ["downstream:mute", true],
        ["downstream:slow", true],
        ["downstream:broken", true],
      ]);
      expect(downstreamChecks[0]?.status).toBe("connecting");

      const listChanged = new Promise<void>((resolve) => started.client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
      writeFileSync(gate, "");
      await listChanged;
      expect((await started.client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["slow__add", "slow__echo"]));

      // One line per state change: the connection at info, the failed start at warn, secrets redacted.
      const lines = logLines.map((line) => JSON.parse(line) as { level: number; msg: string; downstream?: { server: string; error?: string } });
      expect(lines.filter((line) => line.downstream?.server === "slow").map((line) => [line.level, line.msg])).toEqual([[30, "downstream server connected"]]);
      const broken = lines.filter((line) => line.downstream?.server === "broken");
      expect(broken.map((line) => [line.level, line.msg])).toEqual([[40, "downstream server failed to start, restarting"]]);
      expect(broken[0]?.downstream?.error).toContain("bad key");
      expect(logLines.join("\n")).not.toContain(SECRET);

      // Metrics: state gauge, restarts counter, call counts.
      await started.client.callTool({ name: "slow__add", arguments: { a: 1, b: 2 } });
      const metrics = await (await fetch(new URL("/metrics", http.url))).text();
      expect(metrics).toContain('afw_downstream_server_state{server="slow",state="connected"} 1');
      expect(metrics).toContain('afw_downstream_server_state{server="mute",state="connecting"} 1');
      expect(metrics).toContain('afw_downstream_server_state{server="broken",state="backing-off"} 1');
      expect(metrics).toContain('afw_downstream_restarts_total{server="slow"} 0');
      expect(metrics).toContain('afw_downstream_tool_calls_total{server="slow",outcome="success"} 1');

      await http.close();
      await started.close();
      expect(() => process.kill(mute.pid!, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
    } finally {
      await http.close().catch(() => undefined);
      await started.close().catch(() => undefined);
    }
  }, 20_000);

  it("fails readiness while a server configured `required` is not connected", async () => {
    const started = await startTestGateway({
      config: { downstream: { servers: [fixtureServer("needed", { FIXTURE_NEVER_INITIALIZE: "1" }, { connectTimeoutMs: 600_000, required: true })] } },
    });
    try {
      const report = await started.gateway.readiness();
      expect(report.ready).toBe(false);
      expect(report.checks.find((check) => check.name === "downstream:needed")).toMatchObject({ ok: false, status: "connecting" });
    } finally {
      await started.close();
    }
  });
});
