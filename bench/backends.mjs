#!/usr/bin/env node
// @afw/backends: what the adapters add on top of a plain fetch, against the local Flowise and
// Langflow reproductions on loopback. Closed loop (one call at a time) for latency, a 32-way
// concurrent run for throughput, streaming time-to-first-token, and the stream parsers' speed.
// The baseline in the same run is a bare `fetch` + `JSON.parse` of the same request.
import { loadavg } from "node:os";
import { measure, summarize, report, round, runConcurrently, latencyRows } from "./_lib.mjs";
import { createFlowiseBackend, createLangflowBackend, JsonStreamParser } from "../packages/backends/dist/index.js";
import { startFlowiseServer, startLangflowServer } from "../packages/backends/dist/test-servers.js";

const ITERATIONS = Number(process.env.BACKENDS_BENCH_OPS ?? 2000);
const FLOW = "7d3c1e2a-8f9b-4c5d-a6e7-1f2a3b4c5d6e";
const ANSWER_200_TOKENS = Array.from({ length: 200 }, (_, index) => `word${index}`).join(" ");
const flows = [
  { id: FLOW, name: "Bench chat", answer: (input) => `Echo: ${input.question}` },
  { id: "7d3c1e2a-8f9b-4c5d-a6e7-1f2a3b4c5d6f", name: "Long stream", answer: ANSWER_200_TOKENS },
];
const STREAM_FLOW = flows[1].id;
const rows = [];
const stat = latencyRows(rows);


const platforms = [
  {
    name: "flowise",
    start: () => startFlowiseServer({ apiKey: "bench-key", flows }),
    create: (url) => createFlowiseBackend({ id: "bench", baseURL: url, apiKey: "bench-key" }),
    raw: (url, question) =>
      fetch(`${url}/api/v1/prediction/${FLOW}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer bench-key" },
        body: JSON.stringify({ question, streaming: false, overrideConfig: { sessionId: "s" } }),
      }).then((response) => response.json()),
  },
  {
    name: "langflow",
    start: () => startLangflowServer({ apiKey: "bench-key", flows }),
    create: (url) => createLangflowBackend({ id: "bench", baseURL: url, apiKey: "bench-key" }),
    raw: (url, question) =>
      fetch(`${url}/api/v1/run/${FLOW}?stream=false`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": "bench-key" },
        body: JSON.stringify({ input_value: question, input_type: "chat", output_type: "chat", session_id: "s" }),
      }).then((response) => response.json()),
  },
];

const extra = {};
for (const platform of platforms) {
  const server = await platform.start();
  const backend = platform.create(server.url);
  const base = stat(`${platform.name}: bare fetch + JSON.parse`, await measure((i) => platform.raw(server.url, `q${i}`), { iterations: ITERATIONS, warmup: 200 }));
  const adapter = stat(`${platform.name}: adapter execute`, await measure((i) => backend.execute({ flowId: FLOW, question: `q${i}`, sessionId: "s" }), { iterations: ITERATIONS, warmup: 200 }));
  rows.at(-1).overhead_p50_ms = round(adapter.p50 - base.p50);
  const throughput = await runConcurrently((i) => backend.execute({ flowId: FLOW, question: `c${i}`, sessionId: `s${i % 64}` }), ITERATIONS, 32);
  rows.push({ scenario: `${platform.name}: adapter execute, 32 concurrent`, calls: ITERATIONS, throughput_rps: round(throughput, 0) });
  const firstToken = [];
  const streamSamples = await measure(
    async () => {
      const started = performance.now();
      let first;
      for await (const chunk of backend.stream({ flowId: STREAM_FLOW, question: "stream" })) {
        if (chunk.type === "token" && first === undefined) first = performance.now() - started;
      }
      firstToken.push(first);
    },
    { iterations: Math.max(50, ITERATIONS / 10), warmup: 20 },
  );
  const ttft = summarize(firstToken.slice(-streamSamples.length));
  stat(`${platform.name}: adapter stream, 200 tokens`, streamSamples, { first_token_p50_ms: round(ttft.p50) });
  extra[`${platform.name}Requests`] = server.requests.length;
  server.reset();
  await server.close();
}

// Parser throughput on ~4 MB of Langflow events, fed in 16 KiB chunks. (Flowise's SSE is read by
// eventsource-parser; its cost shows in the adapter stream rows above, see
// docs/decisions/2026-11-24-simplification.md.)
const encoder = new TextEncoder();
const ndText = Array.from({ length: 60_000 }, (_, index) => `${JSON.stringify({ event: "token", data: { chunk: `tok${index} `, id: "m", timestamp: "t" } })}\n\n`).join("");
for (const [name, text, make] of [
  ["JsonStreamParser (Langflow events)", ndText, () => new JsonStreamParser()],
]) {
  const bytes = encoder.encode(text);
  const samples = await measure(
    () => {
      const parser = make();
      let count = 0;
      for (let offset = 0; offset < bytes.length; offset += 16_384) count += parser.push(bytes.subarray(offset, offset + 16_384)).length;
      if (count !== 60_000) throw new Error(`${name}: parsed ${count} events`);
    },
    { iterations: 20, warmup: 3 },
  );
  const s = summarize(samples);
  rows.push({ scenario: `${name}, ${round(bytes.length / 2 ** 20, 1)} MiB`, calls: s.count, p50_ms: round(s.p50), mib_per_s: round(bytes.length / 2 ** 20 / (s.p50 / 1000), 1), events_per_s: round(60_000 / (s.p50 / 1000), 0) });
}

report("backends", rows, {
  notes: [
    "Loopback against the local platform reproductions (@afw/backends/test/servers), client and server in one process.",
    "overhead_p50_ms = adapter execute p50 - bare fetch p50 (zod validation, answer extraction, timers, bounded body read); negative when the adapter's node:http keep-alive client costs less than fetch (undici) itself.",
    "Streaming runs with no token delay: it measures adapter + parser cost, not a model's speed.",
    `Load average at the end: ${loadavg().map((value) => value.toFixed(1)).join(" / ")} (other work on the machine inflates absolute numbers; compare rows of one run).`,
  ],
  extra,
});
