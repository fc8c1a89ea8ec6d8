#!/usr/bin/env node
// @afw/server: what the gateway costs per MCP call over Streamable HTTP.
//
// Three processes besides this driver (bench/server-child.mjs), so each one's CPU is its own:
// a local instant Flowise reproduction, the gateway routing to it, and a bare MCP SDK server with
// one `echo` tool (the SDK's canonical stateless setup). The driver is one MCP SDK client per
// server (closed loop for latency; 8 concurrent callers for throughput).
//
// Scenarios: a direct HTTP call to the backend (no MCP), the bare `echo` tool, `universal_query`
// on a cache miss (explicit intent: routing + backend call + cache/session writes), on a cache
// hit, and the six-intent mix: cache misses with automatic intent classification (one distinct
// question per intent in turn, bench/six-intent-questions.mjs), beside the echo baseline in the same rounds.
// Server CPU per call = the server process's process.cpuUsage() delta / calls.
// Targets: CPU per universal_query (miss) <= 1.3 x CPU per echo; six-intent mix <= 1.5 x echo (issue 18);
// cache hit faster than a miss.
import { spawn, spawnSync } from "node:child_process";
import { cpus } from "node:os";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { linkedFetch, measure, summarize, report, round, runConcurrently } from "./_lib.mjs";
import { pathLedger, sixIntentQuestion } from "./six-intent-questions.mjs";

const fromServer = (path) => new URL(`../packages/server/node_modules/${path}`, import.meta.url).href;
const { Client } = await import(fromServer("@modelcontextprotocol/sdk/dist/esm/client/index.js"));
const { StreamableHTTPClientTransport } = await import(fromServer("@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js"));

const ITERATIONS = Number(process.env.SERVER_BENCH_OPS ?? 2000);
// SERVER_BENCH_CLASSIFIER=static|use|cascade|hashing: the gateway's routing.classifierEmbedder (default: the gateway's default).
const CONCURRENCY = 8;
const FLOW = "b0000000-0000-4000-8000-000000000001";
const childScript = fileURLToPath(new URL("./server-child.mjs", import.meta.url));

let warnings = 0;
process.on("warning", (warning) => {
  warnings++;
  console.error(`warning: ${warning.name}: ${warning.message}`);
});

// With two or more cores and `taskset`, the server under test (gateway or echo) runs alone on
// CPU 1 while this driver and the backend share CPU 0, so neither server's CPU time is inflated
// by sharing a core with the load generator.
const canPin = cpus().length >= 2 && spawnSync("taskset", ["-c", "0", "true"]).status === 0;
if (canPin) spawnSync("taskset", ["-p", "-c", "0", String(process.pid)], { stdio: "ignore" });
const children = [];
// SERVER_BENCH_PROFILE_DIR=dir: the gateway and echo children write V8 CPU profiles in dir/<role>/, one per thread
// (`node --cpu-prof`) when they exit, for a look at self time per function.
const profileDir = process.env.SERVER_BENCH_PROFILE_DIR;
async function startChild(role, ...args) {
  const core = role === "backend" ? "0" : "1";
  const nodeArgs = [...(profileDir && role !== "backend" ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}/${role}`] : []), childScript, role, ...args];
  const child = canPin
    ? spawn("taskset", ["-c", core, process.execPath, ...nodeArgs], { stdio: ["ignore", "pipe", "pipe"] })
    : spawn(process.execPath, nodeArgs, { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
    if (stderr.length > 100_000) stderr = stderr.slice(-50_000);
  });
  const lines = createInterface({ input: child.stdout });
  const ready = await new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${role} exited with ${code}: ${stderr.slice(-2000)}`)));
    lines.once("line", (line) => resolve(JSON.parse(line)));
  });
  child.removeAllListeners("exit");
  return { ...ready, stderr: () => stderr };
}

const cpuOf = async (url) => (await fetch(url)).json();

async function connect(url) {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: linkedFetch }));
  return client;
}


const rows = [];
const results = {};
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const ROUNDS = Number(process.env.SERVER_BENCH_ROUNDS ?? 5);

/**
 * Scenarios run interleaved in ROUNDS rounds (each round: every scenario, a closed-loop block for
 * latency then an 8-way concurrent block for throughput), so slow drifts in the machine's
 * background load hit every scenario alike. Server CPU per call = the server process's
 * process.cpuUsage() delta over the scenario's blocks / calls.
 */
async function runInterleaved(scenarios) {
  const acc = new Map(scenarios.map((s) => [s.name, { samples: [], concurrentCalls: 0, concurrentSeconds: 0, cpuMicros: 0, calls: 0, roundCpu: [] }]));
  // Warm-up in interleaved chunks too: a server left idle while the others warm up loses its optimised code (V8 flushes
  // what has not run for a while) and would be measured mid-recompilation.
  const WARM_CHUNK = 200;
  for (let done = 0; scenarios.some((s) => done < (s.warmup ?? 100)); done += WARM_CHUNK) {
    for (const s of scenarios) for (let i = done; i < Math.min(done + WARM_CHUNK, s.warmup ?? 100); i++) await s.call(`warm-${i}`);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of scenarios) {
      const a = acc.get(s.name);
      const perRound = Math.max(1, Math.round((s.iterations ?? ITERATIONS) / ROUNDS));
      const before = s.cpuUrl ? await cpuOf(s.cpuUrl) : undefined;
      let index = 0;
      const samples = await measure(() => s.call(`r${round}-l${index++}`), { iterations: perRound, warmup: 0, maxMs: 60_000 });
      const started = performance.now();
      await runConcurrently((i) => s.call(`r${round}-c${i}`), perRound, CONCURRENCY);
      a.concurrentSeconds += (performance.now() - started) / 1000;
      const after = s.cpuUrl ? await cpuOf(s.cpuUrl) : undefined;
      a.samples.push(...samples);
      a.concurrentCalls += perRound;
      a.calls += samples.length + perRound;
      if (before && after) {
        const micros = after.user - before.user + (after.system - before.system);
        a.cpuMicros += micros;
        a.roundCpu.push(micros / (samples.length + perRound));
      }
    }
  }
  for (const s of scenarios) {
    const a = acc.get(s.name);
    const summary = summarize(a.samples);
    const cpuPerCallUs = s.cpuUrl ? a.cpuMicros / a.calls : undefined;
    results[s.name] = { ...summary, callsPerSecond: a.concurrentCalls / a.concurrentSeconds, cpuPerCallUs, cpuPerCallByRoundUs: a.roundCpu, calls: a.calls };
    rows.push({
      scenario: s.name,
      calls: a.calls,
      "calls/s (x8)": round(a.concurrentCalls / a.concurrentSeconds, 0),
      p50_ms: round(summary.p50),
      p99_ms: round(summary.p99),
      "server CPU/call (µs)": cpuPerCallUs === undefined ? "-" : round(cpuPerCallUs, 1),
    });
  }
}

try {
  const backend = await startChild("backend");
  const gateway = await startChild("gateway", backend.url);
  const { classifierEmbedder } = gateway;
  const echo = await startChild("echo");
  const gatewayClient = await connect(gateway.url);
  const echoClient = await connect(echo.url);

  const text = (result) => {
    if (result.isError) throw new Error(`tool error: ${result.content?.[0]?.text}`);
    return result.content[0].text;
  };

  await gatewayClient.callTool({ name: "universal_query", arguments: { question: "the one cached question", intent: "conversation" } });
  await runInterleaved([
    {
      name: "direct HTTP call to the backend (no MCP)",
      call: async (tag) => {
        const response = await fetch(`${backend.url}/api/v1/prediction/${FLOW}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ question: `direct ${tag}` }),
        });
        await response.json();
      },
    },
    // The echo's first rounds: it is still warming up here (dearer per call than in the rounds below), so no ratio uses it;
    // kept as a row to show the warm-up.
    { name: "bare SDK echo tool", cpuUrl: echo.cpuUrl, call: async (tag) => text(await echoClient.callTool({ name: "echo", arguments: { text: `echo ${tag}` } })) },
  ]);
  // The ratios: cache hits, cache misses with an explicit intent, and the six-intent mix (cache misses whose
  // intent is classified, one distinct question per intent in turn), interleaved with the bare echo baseline in
  // the same rounds, so all compare against the same echo. Each first takes SERVER_BENCH_MIX_WARMUP (8,000)
  // unmeasured calls, in interleaved chunks: both servers' costs per call fall with warm-up (the gateway's until
  // ~4,000 calls, the echo's until ~8,000-16,000), so fewer calls measure JIT tiering (bench/README.md, 2026-11-29).
  const methods = new Map();
  // Which path decided each measured question (warm-up calls excluded).
  const paths = pathLedger();
  const agree = { same: 0, total: 0 };
  let mixIndex = 0;
  await runInterleaved([
    { name: "bare SDK echo tool (six-intent rounds)", cpuUrl: echo.cpuUrl, iterations: Math.min(ITERATIONS, 1200), warmup: Number(process.env.SERVER_BENCH_MIX_WARMUP ?? 8000), call: async (tag) => text(await echoClient.callTool({ name: "echo", arguments: { text: `echo ${tag}` } })) },
    {
      name: "universal_query, cache hit",
      cpuUrl: gateway.cpuUrl,
      iterations: Math.min(ITERATIONS, 1200),
      warmup: Number(process.env.SERVER_BENCH_MIX_WARMUP ?? 8000),
      call: async () => {
        const body = JSON.parse(text(await gatewayClient.callTool({ name: "universal_query", arguments: { question: "the one cached question", intent: "conversation" } })));
        if (body._mcp_metadata.cache_hit !== true) throw new Error("expected a cache hit");
      },
    },
    {
      name: "universal_query, cache miss (explicit intent)",
      cpuUrl: gateway.cpuUrl,
      iterations: Math.min(ITERATIONS, 1200),
      warmup: Number(process.env.SERVER_BENCH_MIX_WARMUP ?? 8000),
      call: async (tag) => text(await gatewayClient.callTool({ name: "universal_query", arguments: { question: `miss question ${tag} ${Math.random()}`, intent: "conversation" } })),
    },
    {
      name: "universal_query, cache miss, six-intent mix (auto intent)",
      cpuUrl: gateway.cpuUrl,
      iterations: Math.min(ITERATIONS, 1200),
      warmup: Number(process.env.SERVER_BENCH_MIX_WARMUP ?? 8000),
      call: async (tag) => {
        const mixQuestion = sixIntentQuestion(mixIndex++);
        const { intent, question } = mixQuestion;
        const body = JSON.parse(text(await gatewayClient.callTool({ name: "universal_query", arguments: { question } })));
        const meta = body._mcp_metadata;
        if (meta.cache_hit) throw new Error("expected a cache miss");
        if (!tag.startsWith("warm-")) paths.add(mixQuestion, { method: meta.intent_method, cascade: meta.intent_cascade });
        methods.set(meta.intent_method, (methods.get(meta.intent_method) ?? 0) + 1);
        agree.total++;
        if (meta.intent_classified === intent) agree.same++;
      },
    },
  ]);

  const echoCpu = results["bare SDK echo tool (six-intent rounds)"].cpuPerCallUs;
  const missCpu = results["universal_query, cache miss (explicit intent)"].cpuPerCallUs;
  const hit = results["universal_query, cache hit"];
  const miss = results["universal_query, cache miss (explicit intent)"];
  const ratio = missCpu / echoCpu;
  const echoRounds = results["bare SDK echo tool (six-intent rounds)"].cpuPerCallByRoundUs;
  const roundRatios = results["universal_query, cache miss (explicit intent)"].cpuPerCallByRoundUs.map((cpu, i) => cpu / echoRounds[i]);
  const mixEcho = results["bare SDK echo tool (six-intent rounds)"];
  const mix = results["universal_query, cache miss, six-intent mix (auto intent)"];
  const mixRatio = mix.cpuPerCallUs / mixEcho.cpuPerCallUs;
  const mixRoundRatios = mix.cpuPerCallByRoundUs.map((cpu, i) => cpu / mixEcho.cpuPerCallByRoundUs[i]);
  const methodShares = Object.fromEntries([...methods.entries()].sort((a, b) => b[1] - a[1]).map(([m, n]) => [m, round(n / agree.total, 3)]));
  const notes = [
    `six-intent mix: server CPU per cache-miss universal_query (auto intent) / per bare echo in the same rounds: ${round(mixRatio, 2)}x (target <= 1.5x): ${mixRatio <= 1.5 ? "met" : "NOT met"}; per round: ${mixRoundRatios.map((r) => round(r, 2)).join(", ")} (median ${round(median(mixRoundRatios), 2)}x)`,
    `six-intent mix, classifier \`routing.classifierEmbedder: ${classifierEmbedder}\`, methods (${agree.total} questions, warm-up included): ${Object.entries(methodShares).map(([m, share]) => `${m} ${round(share * 100, 1)}%`).join(", ")} (pattern: rules alone; hybrid/semantic: a model with its embedding; lexical: the model without an embedding that failed); intent as written for the question: ${round((agree.same / agree.total) * 100, 1)}%`,
    ...paths.lines().map((line, i) => (i === 0 ? `six-intent mix, measured calls, ${line}` : line)),
    `server CPU per universal_query (miss, explicit intent) / per bare echo in the same rounds: ${round(ratio, 2)}x (target <= 1.3x): ${ratio <= 1.3 ? "met" : "NOT met"}; per round: ${roundRatios.map((r) => round(r, 2)).join(", ")}`,
    `cache hit p50 ${round(hit.p50)} ms vs miss p50 ${round(miss.p50)} ms; CPU ${round(hit.cpuPerCallUs, 1)} vs ${round(missCpu, 1)} µs: hit ${hit.p50 < miss.p50 ? "faster" : "NOT faster"}`,
    `median of the per-round ratios: ${round(median(roundRatios), 2)}x`,
    "the miss path includes the gateway's own HTTP call to the backend (undici keep-alive: the client side only, the Flowise reproduction runs in its own process on CPU 0 and its CPU is not counted), routing, cache and session writes, and Prometheus/ring-buffer/audit-log tracing; the echo server does no outbound call",
    "same protocol for both: MCP Streamable HTTP, stateless, JSON responses, one SDK Client each; not like for like: the echo server builds a new McpServer + SDK transport per request, the gateway serves a fresh SDK transport on pooled McpServers",
    `process warnings in the driver (e.g. MaxListenersExceededWarning from the SDK client): ${warnings}`,
    canPin ? "pinned: server under test on CPU 1, driver and backend on CPU 0 (taskset)" : "not pinned (taskset or a second core unavailable)",
    `load average at the end: ${(await import("node:os")).loadavg().map((x) => x.toFixed(1)).join(" ")} (other jobs on the machine inflate absolute numbers; compare ratios)`,
  ];
  report("server", rows, { notes, extra: {
      results,
      ratio,
      roundRatios,
      medianRoundRatio: median(roundRatios),
      sixIntentMix: { classifierEmbedder, cpuRatio: mixRatio, roundRatios: mixRoundRatios, methodShares, paths: paths.summary(), questions: agree.total, intentAsWritten: agree.same / agree.total },
      load: (await import("node:os")).loadavg(),
      targets: { cpuRatioMax: 1.3, sixIntentCpuRatioMax: 1.5, cacheHitFaster: hit.p50 < miss.p50 },
    } });
  await gatewayClient.close();
  await echoClient.close();
} finally {
  const exited = children.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once("exit", resolve)) : undefined));
  for (const child of children) child.kill("SIGTERM");
  // Let the children write their CPU profiles before this process ends.
  if (profileDir) await Promise.all(exited);
}
