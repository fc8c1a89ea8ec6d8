// Latency of one model-path classification (fast path off, so every call embeds): warms the
// classifier up, then times 200 classify calls on distinct questions (exemplar texts, not yet in
// the query cache) and prints p50 / p90 / p99 / mean in ms. Run after `tsup`:
// node scripts/latency-intent.mjs [count]
import { readFileSync } from "node:fs";
import { BUNDLED_INTENT_EXEMPLARS_URL, createIntentClassifier, parseIntentExemplars } from "../dist/index.js";

const count = Number(process.argv[2] ?? 200);
const exemplars = parseIntentExemplars(readFileSync(BUNDLED_INTENT_EXEMPLARS_URL, "utf8"));
const questions = [...new Set(exemplars.map((e) => e.text))];
const classifier = createIntentClassifier({ fastPath: false });
await classifier.warmUp();
// A few warm-up calls on questions outside the timed sample (JIT, WebAssembly tiers).
for (const q of questions.slice(-20)) await classifier.classify(q);
const sample = [];
const step = Math.max(1, Math.floor((questions.length - 20) / count));
for (let i = 0; sample.length < count && i < questions.length - 20; i += step) sample.push(questions[i]);
const times = [];
for (const q of sample) {
  const start = performance.now();
  await classifier.classify(q);
  times.push(performance.now() - start);
}
times.sort((a, b) => a - b);
const at = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(2);
const mean = (times.reduce((a, b) => a + b, 0) / times.length).toFixed(2);
console.log(`model-path classify, ${times.length} distinct questions: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms, mean ${mean} ms`);
