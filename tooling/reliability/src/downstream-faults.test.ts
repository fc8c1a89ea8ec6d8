/**
 * Downstream MCP servers that crash, hang or flood their output, behind a real gateway over
 * Streamable HTTP. While each misbehaves, a steady stream of calls to a well-behaved downstream
 * server and to `universal_query` goes on: all of them succeed, quickly. The bad server's own
 * call fails with a tool error (never a hung request or a dead gateway), and the supervisor
 * restarts it so its tools work again.
 */
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectedAnswer, startBackends, type Backends } from "./harness/backends.js";
import { recordFigure } from "./harness/figures.js";
import { startHttpGateway, type HttpGateway } from "./harness/gateway.js";
import { connectClient, universalQuery } from "./harness/mcp.js";
import { summarize } from "./harness/stats.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/misbehaving-mcp-server.mjs", import.meta.url));
const CALL_TIMEOUT_MS = 1_500;
/** Bound of a call to a healthy server or a query while another server misbehaves. */
const HEALTHY_BOUND_MS = 1_000;

let backends: Backends;
let gateway: HttpGateway;
let client: Client;
let bystander: Client;

const server = (name: string, mode: string) => ({
  name,
  transport: "stdio" as const,
  command: process.execPath,
  args: [FIXTURE, mode],
  callTimeoutMs: CALL_TIMEOUT_MS,
  connectTimeoutMs: 10_000,
  retries: 0,
  pingIntervalMs: 500,
  pingTimeoutMs: 2_000,
  maxMessageBytes: 1024 * 1024,
  stderrTailBytes: 4096,
});

beforeAll(async () => {
  backends = await startBackends();
  gateway = await startHttpGateway({
    backends: backends.configs(),
    tools: { exposure: "all" },
    downstream: {
      servers: [server("good", "good"), server("crashy", "crash"), server("hangy", "hang"), server("floody", "flood")],
      restartBackoff: { initialDelayMs: 100, maxDelayMs: 1_000 },
    },
  });
  client = await connectClient(gateway.url, "downstream-caller");
  bystander = await connectClient(gateway.url, "downstream-bystander");
  // Cold start (flow discovery, classifier) is not what this suite measures.
  await gateway.gateway.warmUp();
  await universalQuery(bystander, { question: "warm-up", backend: "langflow" });
});

afterAll(async () => {
  await client?.close();
  await bystander?.close();
  await gateway?.close();
  await backends?.close();
});

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text?: string } | undefined)?.text ?? "";
const call = async (who: Client, name: string, args: Record<string, unknown> = {}) => {
  const started = performance.now();
  try {
    const result = (await who.callTool({ name, arguments: args }, undefined, { timeout: 30_000 })) as CallToolResult;
    return { ok: result.isError !== true, text: textOf(result), ms: performance.now() - started };
  } catch (error) {
    return { ok: false, text: `transport: ${(error as Error).message}`, ms: performance.now() - started };
  }
};
const status = (name: string) => gateway.gateway.downstream!.manager.status().find((s) => s.name === name)!;

/**
 * Runs `misbehave` while the bystander keeps calling the good server and `universal_query`;
 * resolves with the bystander's latencies once `misbehave` is done. Every bystander call must succeed.
 */
async function whileMisbehaving<T>(label: string, misbehave: () => Promise<T>): Promise<T> {
  let done = false;
  const latencies: number[] = [];
  const failures: string[] = [];
  const steady = (async () => {
    for (let i = 0; !done || latencies.length < 10; i++) {
      const echo = await call(bystander, "good__echo", { text: `${label}-${i}` });
      if (!echo.ok || echo.text !== `good:${label}-${i}`) failures.push(`echo: ${echo.text}`);
      latencies.push(echo.ms);
      const question = `${label} bystander question ${i}`;
      const reply = await universalQuery(bystander, { question, backend: "langflow" });
      if (reply.kind !== "answer" || reply.result.result !== expectedAnswer("langflow", question)) failures.push(`query: ${JSON.stringify(reply).slice(0, 200)}`);
      latencies.push(reply.latencyMs);
    }
  })();
  try {
    return await misbehave();
  } finally {
    done = true;
    await steady;
    const summary = summarize(latencies);
    recordFigure("downstream-faults", `${label}:bystanderLatency`, summary);
    expect(failures).toEqual([]);
    expect(summary.maxMs).toBeLessThan(HEALTHY_BOUND_MS);
  }
}

/** Calls `name` until it answers (the server was restarted), within `withinMs`. */
async function untilAnswers(name: string, args: Record<string, unknown>, expected: string, withinMs = 20_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    const reply = await call(client, name, args);
    if (reply.ok && reply.text === expected) return performance.now() - started;
    expect(performance.now() - started).toBeLessThan(withinMs);
    await new Promise((resolve) => setTimeout(resolve, 100)); // pacing of a polling client, not synchronisation
  }
}

describe("a downstream MCP server misbehaving", () => {
  it("serves all four servers at first", async () => {
    // The servers connect in the background after start; wait for the status events saying all are up.
    const manager = gateway.gateway.downstream!.manager;
    await new Promise<void>((resolve) => {
      const allUp = () => manager.status().every((s) => s.available);
      if (allUp()) return resolve();
      const unsubscribe = manager.onStatusChanged(() => {
        if (allUp()) (unsubscribe(), resolve());
      });
    });
    const modes: Record<string, string> = { good: "good", crashy: "crash", hangy: "hang", floody: "flood" };
    for (const [name, mode] of Object.entries(modes)) expect(await call(client, `${name}__echo`, { text: "hi" })).toMatchObject({ ok: true, text: `${mode}:hi` });
  });

  it.each([
    { what: "crashing mid-call: the call fails cleanly, others are unaffected, the server comes back", mode: "crash", server: "crashy", slackMs: 1_000 },
    { what: "hanging (event loop blocked): the call times out, others are unaffected, the server is restarted", mode: "hang", server: "hangy", slackMs: 2_000 },
  ])("$what", async ({ mode, server, slackMs }) => {
    const failed = await whileMisbehaving(mode, () => call(client, `${server}__${mode}`));
    expect(failed.ok).toBe(false);
    expect(failed.ms).toBeLessThan(CALL_TIMEOUT_MS + slackMs);
    const back = await untilAnswers(`${server}__echo`, { text: "again" }, `${mode}:again`);
    recordFigure("downstream-faults", `${mode}:recoveredInMs`, Math.round(back));
    expect(status(server).restarts).toBeGreaterThan(0);
  });

  it("flooding stdout/stderr (32 MiB, no newline): bounded buffers, others unaffected, the server is restarted", async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const flooded = await whileMisbehaving("flood", () => call(client, "floody__flood", { bytes: 32 * 1024 * 1024 }));
    expect(flooded.ok).toBe(false);
    const heapGrowthMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
    recordFigure("downstream-faults", "flood:heapGrowthMb", Math.round(heapGrowthMb));
    // 32 MiB went to each stream; the gateway kept at most maxMessageBytes + a read of it.
    expect(heapGrowthMb).toBeLessThan(32);
    const back = await untilAnswers("floody__echo", { text: "again" }, "flood:again");
    recordFigure("downstream-faults", "flood:recoveredInMs", Math.round(back));
    expect(status("floody").lastError ?? "").not.toBe("");
  });

  it("the gateway and the good server never noticed", async () => {
    expect(status("good").restarts).toBe(0);
    expect(await call(client, "good__echo", { text: "still here" })).toMatchObject({ ok: true, text: "good:still here" });
    // The process is alive and its stores are fine. (Backend health is not this suite's concern:
    // on a loaded machine a probe may time out while 32 MiB are being drained.)
    expect((await fetch(new URL("/healthz", gateway.url))).status).toBe(200);
    const ready = (await (await fetch(new URL("/readyz", gateway.url))).json()) as { checks: { name: string; ok: boolean }[] };
    expect(ready.checks).toContainEqual(expect.objectContaining({ name: "cache", ok: true }));
  });
});
