// Routing decision latency of @afw/router (classify + score + select) with warm caches, over
// 2 backends x 200 flows, for: the fast path (patterns decide, no embedding), the model path (the
// static embedding and the model on every question), the six-intent mix through the default classifier and through the
// cascade (which path decided each question, CPU per decision), and scoring alone (explicit intent); plus one
// static embedding alone and one Universal Sentence Encoder embedding alone (its teacher, for comparison).
// In-process fake backends: no network.
// Targets (issue 4): p50 <= 1 ms on the fast path, p99 <= 40 ms with one model embedding.
import { createRouter, createIntentClassifier, DEFAULT_INTENT_PATTERNS } from "../packages/router/dist/index.js";
import { createRequire } from "node:module";
import { createStaticEmbedder, createUseEmbedder } from "../packages/embeddings/dist/index.js";
import { loadavg, cpus } from "node:os";
import { measure, summarize, report, round } from "./_lib.mjs";
import { decisionPath, pathLedger, sixIntentQuestion } from "./six-intent-questions.mjs";

const INTENTS = ["creative-orientation", "technical-analysis", "structural-thinking", "conversation", "rag-retrieval", "data-processing"];

function fakeBackend(id, kind, flowCount) {
  const flows = Array.from({ length: flowCount }, (_, i) => {
    const intent = INTENTS[i % INTENTS.length];
    const second = INTENTS[(i + 1) % INTENTS.length];
    return {
      id: `${id}:flow-${i}`,
      backendId: id,
      backendKind: kind,
      backendFlowId: `flow-${i}`,
      name: `${intent} flow ${i}`,
      description: `Handles ${intent} questions`,
      intents: i % 7 === 0 ? [] : [intent, second],
      keywords: i % 5 === 0 ? [`topic${i}`, "handbook"] : [],
      tags: [],
      capabilities: [],
      generalPurpose: i % 50 === 0,
      inputTypes: ["text"],
      outputTypes: ["text"],
      cacheable: true,
      source: "discovered",
      metadata: {},
    };
  });
  return {
    specificationVersion: "v1",
    id,
    kind,
    async checkHealth() {
      return { backendId: id, kind, status: "healthy", latencyMs: 1, checkedAt: new Date().toISOString() };
    },
    async discoverFlows() {
      return flows;
    },
    async execute(request) {
      return { text: "ok", backendId: id, flowId: request.flowId, sources: [], raw: null };
    },
  };
}

const backends = [fakeBackend("flowise", "flowise", 200), fakeBackend("langflow", "langflow", 200)];
const classifier = createIntentClassifier();
const router = createRouter({ backends, classifier });
// Every question reaches the model here: patterns that never decide alone.
const modelClassifier = createIntentClassifier({ patterns: { ...DEFAULT_INTENT_PATTERNS, fastPath: { minScore: Number.MAX_VALUE, minMargin: 0 } } });
const modelRouter = createRouter({ backends, classifier: modelClassifier });
// The cascade (the gateway's `routing.classifierEmbedder: cascade`): the static model, and the USE lite model on the
// embedding worker thread for the questions the static model is unsure of.
const cascadeClassifier = createIntentClassifier({ cascade: {} });
const cascadeRouter = createRouter({ backends, classifier: cascadeClassifier });
const loadStarted = performance.now();
await classifier.warmUp();
await router.warmUp();
await modelClassifier.warmUp();
await modelRouter.warmUp();
await cascadeClassifier.warmUp();
await cascadeRouter.warmUp();
const loadMs = performance.now() - loadStarted;

// Performance history for every flow, so the performance component is real work.
for (const b of backends) {
  for (const flow of await b.discoverFlows()) {
    for (let k = 0; k < 5; k++) await modelRouter.performance.record({ backendId: b.id, flowId: flow.id, latencyMs: 200 + k * 50, success: k !== 3, timestamp: Date.now() });
    for (let k = 0; k < 5; k++) await router.performance.record({ backendId: b.id, flowId: flow.id, latencyMs: 200 + k * 50, success: k !== 3, timestamp: Date.now() });
  }
}

const fastQuestions = [
  "Traceback (most recent call last): KeyError 'user_id' in my Python code, help me debug this stack trace",
  "Hello! How are you today?",
  "Search the knowledge base and cite the sources: what does our policy in the handbook say about travel?",
  "Convert this CSV to JSON, remove duplicate rows and aggregate the totals per month in the spreadsheet",
  "How should we structure the architecture: microservices or a modular monolith, and which design pattern fits?",
];
const modelQuestions = [
  "Could you look at why the nightly sync keeps skipping some customers",
  "I want our little bookshop to feel like a second living room for the neighborhood",
  "What's a nice way to spend an evening in Porto",
  "How would you split the payment part from the ordering part of our app",
  "Which suppliers have the longest delays, based on the deliveries sheet",
  "When did we agree to move the release day to Thursdays",
];

for (const q of fastQuestions) {
  const d = await router.route({ question: q });
  if (d.method !== "pattern") throw new Error(`fast-path question not decided by patterns: ${q} (${d.method})`);
}

const fast = await measure((i) => router.route({ question: fastQuestions[i % fastQuestions.length] }), { iterations: 2000, warmup: 200 });
const scoring = await measure((i) => router.route({ question: "anything", intent: INTENTS[i % INTENTS.length] }), { iterations: 2000, warmup: 200 });
// Model path and its baselines (one distinct sentence embedded, no routing: the static embedder and
// its teacher) are measured interleaved, so load changes on the machine hit them alike.
const rawEmbedder = createStaticEmbedder();
const teacher = createUseEmbedder();
/** Which runtime `auto` picks: ONNX Runtime when the embeddings package can resolve onnxruntime-node. */
const useRuntime = (() => {
  try {
    createRequire(new URL("../packages/embeddings/package.json", import.meta.url)).resolve("onnxruntime-node");
    return "ONNX Runtime";
  } catch {
    return "the tfjs wasm backend";
  }
})();
await teacher.warmUp();
const model = [];
const embedOnly = [];
const teacherOnly = [];
for (let i = 0; i < 320; i++) {
  let t = performance.now();
  await modelRouter.route({ question: `${modelQuestions[i % modelQuestions.length]} (case ${i})` });
  const routeMs = performance.now() - t;
  t = performance.now();
  await rawEmbedder.embed([`${modelQuestions[(i + 3) % modelQuestions.length]} (baseline ${i})`]);
  const embedMs = performance.now() - t;
  t = performance.now();
  await teacher.embed([`${modelQuestions[(i + 4) % modelQuestions.length]} (teacher ${i})`]);
  const teacherMs = performance.now() - t;
  if (i >= 20) {
    model.push(routeMs);
    embedOnly.push(embedMs);
    teacherOnly.push(teacherMs);
  }
}
const decided = await modelRouter.route({ question: `${modelQuestions[0]} (check)` });

// The six-intent mix (one distinct question per intent in turn) through the default classifier (rules alone, else the model
// with the static embedding) and through the cascade, interleaved; CPU per question from process.cpuUsage(), which counts the
// embedding worker thread too.
const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const MIX = 600;
const mixRuns = {
  default: { router, latency: [], cpu: 0, asWritten: 0, paths: pathLedger() },
  cascade: { router: cascadeRouter, latency: [], cpu: 0, asWritten: 0, paths: pathLedger() },
};
for (let i = 0; i < MIX + 24; i++) {
  const mixQuestion = sixIntentQuestion(10_000 + i);
  for (const run of Object.values(mixRuns)) {
    const c = cpuMicros();
    const t = performance.now();
    const d = await run.router.route({ question: mixQuestion.question });
    const ms = performance.now() - t;
    const cpu = cpuMicros() - c;
    if (i < 24) continue;
    run.latency.push(ms);
    run.cpu += cpu;
    run.paths.add(mixQuestion, d);
    if (d.intent === mixQuestion.intent) run.asWritten++;
  }
}
// ~2,000-character prompts: a question of the mix with pasted material (a log for technical
// questions, CSV rows for data questions, prose paragraphs otherwise) and a closing line.
const longPrompt = (n) => {
  const { intent, question } = sixIntentQuestion(20_000 + n);
  const parts = [question, ""];
  for (let i = 0; parts.join("\n").length < 1_940; i++) {
    if (intent === "technical-analysis") parts.push(`2026-01-0${(i % 9) + 1} 10:${String(i % 60).padStart(2, "0")}:00 ERROR worker-${n} batch ${i} failed after ${i * 3} ms: connection reset`);
    else if (intent === "data-processing") parts.push(`${1000 + i},customer-${(n * 7 + i) % 97},${(i * 13.7).toFixed(2)},2026-0${(i % 9) + 1}-1${i % 10},paid`);
    else parts.push(`Paragraph ${i} gives some background: the team met on Tuesday, talked through the plans for the season and agreed to look again at the details next week.`);
  }
  parts.push("", "Thanks a lot!");
  return { intent, prompt: parts.join("\n") };
};
// Both classifiers, interleaved, on the same prompts.
const longRuns = {
  default: { router, latency: [], cpu: 0, methods: new Map() },
  cascade: { router: cascadeRouter, latency: [], cpu: 0, methods: new Map() },
};
let longChars = 0;
let longCount = 0;
for (let i = 0; i < 300 + 12; i++) {
  const { prompt } = longPrompt(i);
  for (const run of Object.values(longRuns)) {
    const c = cpuMicros();
    const t = performance.now();
    const d = await run.router.route({ question: prompt });
    const ms = performance.now() - t;
    const cpu = cpuMicros() - c;
    if (i < 12) continue;
    run.latency.push(ms);
    run.cpu += cpu;
    const path = decisionPath(d);
    run.methods.set(path, (run.methods.get(path) ?? 0) + 1);
  }
  if (i < 12) continue;
  longChars += prompt.length;
  longCount++;
}
const shares = (map, total) => [...map.entries()].sort((a, b) => b[1] - a[1]).map(([m, n]) => `${m} ${round((n / total) * 100, 1)}%`).join(", ");

const row = (name, samples, target) => {
  const s = summarize(samples);
  return { scenario: name, count: s.count, p50_ms: round(s.p50), p95_ms: round(s.p95), p99_ms: round(s.p99), mean_ms: round(s.mean), target };
};
const rows = [
  row("fast path (patterns decide)", fast, "p50 <= 1 ms"),
  row("model path (static embedding + model)", model, "p99 <= 40 ms"),
  row("six-intent mix (default classifier)", mixRuns.default.latency, "-"),
  row("six-intent mix (cascade: static model, USE lite on the worker when unsure)", mixRuns.cascade.latency, "-"),
  row("~2,000-character prompts (default classifier)", longRuns.default.latency, "p99 <= 20 ms"),
  row("~2,000-character prompts (cascade)", longRuns.cascade.latency, "p99 <= 20 ms"),
  row("score + select only (explicit intent)", scoring, "-"),
  row("baseline: one static embedding alone", embedOnly, "-"),
  row("baseline: one USE lite embedding alone (the teacher, not used by the default classifier)", teacherOnly, "-"),
];
report("router", rows, {
  notes: [
    `2 backends x 200 flows = 400 candidates per decision; warm flow/health/performance caches; classifier load ${round(loadMs, 0)} ms (once)`,
    `model-path decisions use method ${decided.method} (fast path off); every model-path question is distinct`,
    ...Object.entries(mixRuns).flatMap(([name, run]) => [
      `six-intent mix (${MIX} distinct questions, bench/six-intent-questions.mjs), ${name} classifier: CPU ${round(run.cpu / MIX, 1)} µs per routing decision (worker thread included); intent as written for the question: ${round((run.asWritten / MIX) * 100, 1)}%; ${run.paths.lines()[0]}`,
      ...run.paths.lines().slice(1),
    ]),
    ...Object.entries(longRuns).map(
      ([name, run]) => `~2,000-character prompts (${longCount}, mean ${Math.round(longChars / longCount)} characters), ${name} classifier: CPU ${round(run.cpu / longCount, 1)} µs per routing decision (worker thread included); which path decided: ${shares(run.methods, longCount)}`,
    ),
    "default classifier: rules alone (pattern), else one softmax model over words, patterns and the static embedding (hybrid/semantic), on the event loop",
    `USE lite of @energetic-ai/embeddings on ${useRuntime} (createUseEmbedder's runtime "auto"), main thread; model path and embeddings alone measured interleaved`,
    "in-process fake backends, no network",
    `load average during the run: ${loadavg().map((x) => x.toFixed(1)).join(" / ")} (1/5/15 min) on ${cpus().length} cores; other work on the machine inflates the tail`,
  ],
  extra: {
    flows: 400,
    sixIntentMix: Object.fromEntries(Object.entries(mixRuns).map(([name, run]) => [name, { questions: MIX, cpuMicrosPerDecision: run.cpu / MIX, paths: run.paths.summary(), intentAsWritten: run.asWritten / MIX }])),
    longPrompts: { prompts: longCount, meanCharacters: longChars / longCount, ...Object.fromEntries(Object.entries(longRuns).map(([name, run]) => [name, { cpuMicrosPerDecision: run.cpu / longCount, paths: Object.fromEntries(run.methods) }])) },
    load: loadavg(),
    targets: { fastPathP50Ms: 1, modelPathP99Ms: 40, longPromptP99Ms: 20 },
  },
});
await router.close();
await modelRouter.close();
await cascadeRouter.close();
await cascadeClassifier.close();
