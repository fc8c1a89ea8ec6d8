#!/usr/bin/env node
// @afw/server: the hand-written ("native") stateless transport vs the SDK's StreamableHTTPServerTransport,
// like for like: the same gateway, pooled McpServers on both sides (the SDK side takes an idle server,
// connects a fresh stateless transport, handles the POST, closes the transport, returns the server).
// Two gateway processes (bench/server-child.mjs), one per transport, both pinned to CPU 1, the driver
// and backend on CPU 0; rounds interleaved; server CPU per call = process.cpuUsage() delta / calls.
import { spawn, spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { measure, summarize, report, round, runConcurrently } from "./_lib.mjs";

const fromServer = (path) => new URL(`../packages/server/node_modules/${path}`, import.meta.url).href;
const { Client } = await import(fromServer("@modelcontextprotocol/sdk/dist/esm/client/index.js"));
const { StreamableHTTPClientTransport } = await import(fromServer("@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js"));
const ITERATIONS = Number(process.env.SERVER_BENCH_OPS ?? 2000);
const ROUNDS = Number(process.env.SERVER_BENCH_ROUNDS ?? 5);
const childScript = fileURLToPath(new URL("./server-child.mjs", import.meta.url));
const canPin = cpus().length >= 2 && spawnSync("taskset", ["-c", "0", "true"]).status === 0;
if (canPin) spawnSync("taskset", ["-p", "-c", "0", String(process.pid)], { stdio: "ignore" });
const children = [];
async function startChild(core, ...args) {
  const child = canPin ? spawn("taskset", ["-c", core, process.execPath, childScript, ...args], { stdio: ["ignore", "pipe", "inherit"] }) : spawn(process.execPath, [childScript, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((resolve) => createInterface({ input: child.stdout }).once("line", (line) => resolve(JSON.parse(line))));
}
const cpuOf = async (url) => {
  const { user, system } = await (await fetch(url)).json();
  return user + system;
};
try {
  const backend = await startChild("0", "backend");
  const servers = { native: await startChild("1", "gateway", backend.url, "native"), sdk: await startChild("1", "gateway", backend.url, "sdk") };
  const clients = {};
  for (const [name, server] of Object.entries(servers)) {
    clients[name] = new Client({ name: "bench", version: "1.0.0" });
    await clients[name].connect(new StreamableHTTPClientTransport(new URL(server.url)));
  }
  const calls = {
    "tools/list": (client) => client.listTools(),
    "tools/call (universal_query, cache hit)": (client) =>
      client.callTool({ name: "universal_query", arguments: { question: "the one cached question", intent: "conversation" } }),
  };
  const acc = new Map();
  for (const client of Object.values(clients)) for (const call of Object.values(calls)) for (let i = 0; i < 200; i++) await call(client);
  const perRound = Math.round(ITERATIONS / ROUNDS);
  for (let r = 0; r < ROUNDS; r++) {
    for (const [callName, call] of Object.entries(calls)) {
      for (const [name, client] of Object.entries(clients)) {
        const key = `${name}: ${callName}`;
        const a = acc.get(key) ?? acc.set(key, { samples: [], cpu: 0, calls: 0, rounds: [] }).get(key);
        const before = await cpuOf(servers[name].cpuUrl);
        a.samples.push(...(await measure(() => call(client), { iterations: perRound, warmup: 0 })));
        await runConcurrently(() => call(client), perRound, 8);
        const micros = (await cpuOf(servers[name].cpuUrl)) - before;
        a.cpu += micros;
        a.calls += 2 * perRound;
        a.rounds.push(micros / (2 * perRound));
      }
    }
  }
  const rows = [...acc].map(([scenario, a]) => ({ scenario, calls: a.calls, p50_ms: round(summarize(a.samples).p50), p99_ms: round(summarize(a.samples).p99), "server CPU/call (µs)": round(a.cpu / a.calls, 1) }));
  const cpu = Object.fromEntries([...acc].map(([k, a]) => [k, a.cpu / a.calls]));
  const notes = Object.keys(calls).map((c) => `${c}: native / sdk CPU per call = ${round(cpu[`native: ${c}`] / cpu[`sdk: ${c}`], 3)} (native saves ${round((1 - cpu[`native: ${c}`] / cpu[`sdk: ${c}`]) * 100, 1)}%; keep native only if >= 20%)`);
  notes.push(canPin ? "pinned: both gateways on CPU 1 (never busy at the same time), driver and backend on CPU 0" : "not pinned");
  notes.push(`load average at the end: ${loadavg().map((x) => x.toFixed(1)).join(" ")}`);
  report("transport", rows, { notes, extra: { cpuPerCallUs: cpu, roundsCpuPerCallUs: Object.fromEntries([...acc].map(([k, a]) => [k, a.rounds])), load: loadavg() } });
  for (const client of Object.values(clients)) await client.close();
} finally {
  for (const child of children) child.kill("SIGTERM");
}
