#!/usr/bin/env node
// @afw/backends: client CPU per request of the outbound HTTP stacks, like for like. The Flowise and
// Langflow reproductions run in a child process, so `process.cpuUsage()` of this process is the
// client's alone. Rows of one kind run interleaved in rounds (load drift hits them alike); each
// row is the median over rounds of (user + system CPU) / calls, and the latency p50 of one call at
// a time. Set AFW_BENCH_BASELINE_BACKENDS to another build's `dist/index.js` to measure its
// adapters in the same run (e.g. the previous main).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { request as httpRequest, Agent as HttpAgent } from "node:http";
import { loadavg } from "node:os";
import { createRequire } from "node:module";
import { report, round, summarize, percentile } from "./_lib.mjs";
import { createFlowiseBackend, createLangflowBackend } from "../packages/backends/dist/index.js";

// The same undici the adapters use (a dependency of @afw/backends, not of the repository root).
const { Agent, request } = await import(createRequire(new URL("../packages/backends/package.json", import.meta.url)).resolve("undici"));

const CALLS = Number(process.env.BACKENDS_BENCH_OPS ?? 1000);
const ROUNDS = 5;
const FLOW = "7d3c1e2a-8f9b-4c5d-a6e7-1f2a3b4c5d6e";
const STREAM_FLOW = "7d3c1e2a-8f9b-4c5d-a6e7-1f2a3b4c5d6f";

// The reproductions, in a child process: prints their URLs, serves until stdin closes.
const child = spawn(
  process.execPath,
  [
    "--input-type=module",
    "-e",
    `import { startFlowiseServer, startLangflowServer } from ${JSON.stringify(new URL("../packages/backends/dist/test-servers.js", import.meta.url).href)};
const answer = Array.from({ length: 200 }, (_, i) => "word" + i).join(" ");
const flows = [{ id: ${JSON.stringify(FLOW)}, name: "Bench chat", answer: (run) => "Echo: " + run.question }, { id: ${JSON.stringify(STREAM_FLOW)}, name: "Long stream", answer }];
const flowise = await startFlowiseServer({ apiKey: "bench-key", flows });
const langflow = await startLangflowServer({ apiKey: "bench-key", flows });
console.log(JSON.stringify({ flowise: flowise.url, langflow: langflow.url }));
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));`,
  ],
  { stdio: ["pipe", "pipe", "inherit"] },
);
const [line] = await once(child.stdout, "data");
const urls = JSON.parse(String(line));

const predict = (url) => ({
  url: `${url}/api/v1/prediction/${FLOW}`,
  headers: { "content-type": "application/json", authorization: "Bearer bench-key" },
  body: (question) => JSON.stringify({ question, streaming: false, overrideConfig: { sessionId: "s" } }),
});
const streamed = (url) => ({
  url: `${url}/api/v1/prediction/${STREAM_FLOW}`,
  headers: { "content-type": "application/json", authorization: "Bearer bench-key", accept: "text/event-stream" },
  body: () => JSON.stringify({ question: "stream", streaming: true }),
});

const nodeAgent = new HttpAgent({ keepAlive: true });
const undiciAgent = new Agent();
/** One request per stack; `whole` parses JSON, otherwise every chunk is read. */
const stacks = {
  "node:http keep-alive": (spec, i, whole) =>
    new Promise((resolve, reject) => {
      const body = spec.body(`q${i}`);
      const req = httpRequest(spec.url, { method: "POST", headers: { ...spec.headers, "content-length": Buffer.byteLength(body) }, agent: nodeAgent }, (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => resolve(whole ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : chunks.length));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(body);
    }),
  "undici.request, one Agent": async (spec, i, whole) => {
    const { body } = await request(spec.url, { method: "POST", headers: spec.headers, body: spec.body(`q${i}`), dispatcher: undiciAgent });
    if (whole) return body.json();
    let n = 0;
    for await (const chunk of body) n += chunk.length;
    return n;
  },
  "global fetch": async (spec, i, whole) => {
    const response = await fetch(spec.url, { method: "POST", headers: spec.headers, body: spec.body(`q${i}`) });
    if (whole) return response.json();
    let n = 0;
    for await (const chunk of response.body) n += chunk.length;
    return n;
  },
};

/** Runs every candidate `CALLS / ROUNDS` times per round, interleaved; one row per candidate. */
async function compare(kind, candidates) {
  const per = Math.max(1, Math.floor(CALLS / ROUNDS));
  const cpu = new Map(candidates.map(([name]) => [name, []]));
  const latency = new Map(candidates.map(([name]) => [name, []]));
  for (const [, run] of candidates) for (let i = 0; i < 50; i++) await run(i); // warm-up
  for (let round_ = 0; round_ < ROUNDS; round_++) {
    for (const [name, run] of candidates) {
      const before = process.cpuUsage();
      for (let i = 0; i < per; i++) {
        const t = performance.now();
        await run(i);
        latency.get(name).push(performance.now() - t);
      }
      const used = process.cpuUsage(before);
      cpu.get(name).push((used.user + used.system) / per);
    }
  }
  return candidates.map(([name]) => ({ kind, client: name, calls: per * ROUNDS, cpu_us_per_call: round(percentile(cpu.get(name), 50), 1), p50_ms: round(summarize(latency.get(name)).p50) }));
}

const rows = [];
for (const [kind, spec, whole] of [
  ["JSON (Flowise prediction)", predict(urls.flowise), true],
  ["stream (Flowise SSE, 200 tokens)", streamed(urls.flowise), false],
]) {
  rows.push(...(await compare(kind, Object.entries(stacks).map(([name, run]) => [name, (i) => run(spec, i, whole)]))));
}

// The adapters on top (zod validation, answer extraction, timers, bounded reads, error mapping).
const builds = [["this build", { createFlowiseBackend, createLangflowBackend }]];
if (process.env.AFW_BENCH_BASELINE_BACKENDS) builds.push(["baseline build", await import(process.env.AFW_BENCH_BASELINE_BACKENDS)]);
for (const [platform, create, url] of [
  ["flowise", "createFlowiseBackend", urls.flowise],
  ["langflow", "createLangflowBackend", urls.langflow],
]) {
  const backends = builds.map(([build, module]) => [build, module[create]({ id: "bench", baseURL: url, apiKey: "bench-key" })]);
  rows.push(...(await compare(`${platform} adapter execute`, backends.map(([build, backend]) => [build, (i) => backend.execute({ flowId: FLOW, question: `q${i}`, sessionId: "s" })]))));
  const drain = async (backend) => {
    for await (const chunk of backend.stream({ flowId: STREAM_FLOW, question: "stream" })) if (chunk.type === "error") throw new Error(chunk.error?.message);
  };
  rows.push(...(await compare(`${platform} adapter stream, 200 tokens`, backends.map(([build, backend]) => [build, () => drain(backend)]))));
  for (const [, backend] of backends) await backend.close?.();
}

nodeAgent.destroy();
await undiciAgent.close();
child.stdin.end();
report("backends", rows, {
  notes: [
    "Client CPU only: the platform reproductions (@afw/backends/test/servers) run in a child process on loopback.",
    `cpu_us_per_call: median over ${ROUNDS} interleaved rounds of (user + system CPU of this process) / calls; p50_ms: one call at a time.`,
    "Streaming runs with no token delay: it measures client + parser cost, not a model's speed.",
    `Load average at the end: ${loadavg().map((value) => value.toFixed(1)).join(" / ")} (other work on the machine inflates absolute numbers; compare rows of one kind).`,
  ],
});
