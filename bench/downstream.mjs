#!/usr/bin/env node
// @afw/downstream: what the manager adds on top of a plain MCP SDK client, against the stdio
// fixture server of the package's tests. Closed loop (one call at a time) for latency, a 16-way
// concurrent run for throughput, the first call on a cold server (spawn + initialize + tools/list
// + call), and the time from a crash to serving again. The baseline in the same run is a bare
// SDK `Client` over `StdioClientTransport` calling the same tool of the same server script.
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { measure, summarize, report, round, runConcurrently, latencyRows } from "./_lib.mjs";
import { createDownstreamManager } from "../packages/downstream/dist/index.js";

const ITERATIONS = Number(process.env.DOWNSTREAM_BENCH_OPS ?? 2000);
const COLD_STARTS = Number(process.env.DOWNSTREAM_BENCH_COLD ?? 5);
const packageDir = fileURLToPath(new URL("../packages/downstream/", import.meta.url));
const fixture = `${packageDir}test/fixtures/stdio-server.mjs`;
const sdkEsm = `${packageDir}node_modules/@modelcontextprotocol/sdk/dist/esm/`;
if (!existsSync(fixture) || !existsSync(sdkEsm)) throw new Error("build and install packages/downstream first");
const { Client } = await import(pathToFileURL(`${sdkEsm}client/index.js`).href);
const { StdioClientTransport } = await import(pathToFileURL(`${sdkEsm}client/stdio.js`).href);

const rows = [];
const stat = latencyRows(rows);
const server = (name, settings = {}) => ({
  name,
  transport: "stdio",
  command: process.execPath,
  args: [fixture],
  env: { FIXTURE_NAME: name },
  pingIntervalMs: 0,
  ...settings,
});

// Baseline: a bare SDK client; and the same server script behind the manager (namespacing,
// allow/deny check, trace events, idle bookkeeping, usage hook). Both are connected at once and
// measured in alternating rounds so that machine load affects both alike.
const client = new Client({ name: "bench", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [fixture], env: { FIXTURE_NAME: "direct" }, stderr: "pipe" }));
const events = [];
const manager = createDownstreamManager(
  { servers: [server("hot")] },
  { trace: { traceId: "bench", requestId: "bench", sink: { emit: (event) => events.push(event.type) } }, onToolCall: () => undefined },
);
await manager.start();
const callDirect = (i) => client.callTool({ name: "echo", arguments: { text: `m${i}` } });
const callProxied = (i) => manager.callTool("hot__echo", { text: `m${i}` });
const ROUNDS = 4;
const directSamples = [];
const proxiedSamples = [];
for (let round = 0; round < ROUNDS; round++) {
  directSamples.push(...(await measure(callDirect, { iterations: Math.ceil(ITERATIONS / ROUNDS) })));
  proxiedSamples.push(...(await measure(callProxied, { iterations: Math.ceil(ITERATIONS / ROUNDS) })));
}
let directRate = 0;
let proxiedRate = 0;
for (let round = 0; round < ROUNDS; round++) {
  directRate += (await runConcurrently(callDirect, Math.ceil(ITERATIONS / ROUNDS), 16)) / ROUNDS;
  proxiedRate += (await runConcurrently(callProxied, Math.ceil(ITERATIONS / ROUNDS), 16)) / ROUNDS;
}
const direct = stat("SDK client, echo (baseline)", directSamples, { throughput_per_s: round(directRate, 0) });
const proxied = stat("manager.callTool, echo", proxiedSamples, { throughput_per_s: round(proxiedRate, 0) });
const toolCount = manager.listTools().length;
const list = stat(`manager.listTools (${toolCount} tools)`, await measure(() => manager.listTools(), { iterations: ITERATIONS }));
await client.close();
await manager.stop();

// Cold server: first call = spawn + initialize + tools/list + call.
const coldSamples = [];
for (let i = 0; i < COLD_STARTS; i++) {
  const cold = createDownstreamManager({ servers: [server("cold", { mode: "cold" })], discoverColdServers: false });
  const started = performance.now();
  await cold.callTool("cold__echo", { text: "wake up" });
  coldSamples.push(performance.now() - started);
  await cold.stop();
}
stat("cold server, first call", coldSamples);

// Crash to serving again (restart backoff 0 ms): the process exits in a tool, is respawned.
// (The manager's timers are unreferenced; a ref'd interval keeps this script alive meanwhile.)
const keepAlive = setInterval(() => undefined, 1_000);
const recoverySamples = [];
const crashy = createDownstreamManager({ servers: [server("crashy")], restartBackoff: { initialDelayMs: 0, maxDelayMs: 0 } });
await crashy.start();
for (let i = 0; i < COLD_STARTS; i++) {
  const started = performance.now();
  await crashy.callTool("crashy__crash", { code: 1 }).catch(() => undefined);
  await new Promise((resolve) => {
    const check = () => crashy.status()[0].state === "connected" && (unsubscribe(), resolve());
    const unsubscribe = crashy.onStatusChanged(check);
    check();
  });
  recoverySamples.push(performance.now() - started);
}
stat("crash → connected again", recoverySamples);
await crashy.stop();
clearInterval(keepAlive);

const overhead = proxied.p50 - direct.p50;
report("downstream", rows, {
  notes: [
    `manager overhead per call (p50): ${round(overhead)} ms over the bare SDK client (${round(proxied.p50 / direct.p50, 2)}x); throughput ${round(proxiedRate, 0)}/s vs ${round(directRate, 0)}/s at 16 in flight`,
    `listTools answers from the cache: p50 ${round(list.p50, 4)} ms`,
    `cold first call and crash recovery are dominated by starting a Node process that loads the MCP SDK (${round(summarize(coldSamples).p50)} ms p50)`,
    `trace events emitted: ${events.length}`,
  ],
});
