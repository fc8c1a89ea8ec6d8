// Latency of one model-path classification (fast path off, so every call embeds): warms the
// classifier up, then times 200 classify calls on distinct questions (exemplar texts, not yet in
// the query cache) and prints p50 / p90 / p99 / mean in ms. Run after `tsup`:
// node scripts/latency-intent.mjs [count]
// AFW_PROMPT_CHARS=2000 pads each question into a prompt of about that many characters: the
// question, a pasted log (AFW_PASTE=log, the default) or prose paragraphs (AFW_PASTE=prose), and a closing request.
import { readFileSync } from "node:fs";
import { BUNDLED_INTENT_EXEMPLARS_URL, DEFAULT_INTENT_PATTERNS, createIntentClassifier, parseIntentExemplars } from "../dist/training.js";

const count = Number(process.argv[2] ?? 200);
const exemplars = parseIntentExemplars(readFileSync(BUNDLED_INTENT_EXEMPLARS_URL, "utf8"));
const questions = [...new Set(exemplars.map((e) => e.text))];
const classifier = createIntentClassifier({ patterns: { ...DEFAULT_INTENT_PATTERNS, fastPath: { minScore: Number.MAX_VALUE, minMargin: 0 } } });
await classifier.warmUp();
// A few warm-up calls on questions outside the timed sample (JIT, WebAssembly tiers).
for (const q of questions.slice(-20)) await classifier.classify(q);
const sample = [];
const step = Math.max(1, Math.floor((questions.length - 20) / count));
for (let i = 0; sample.length < count && i < questions.length - 20; i += step) sample.push(questions[i]);
const chars = Number(process.env.AFW_PROMPT_CHARS ?? 0);
const pad = (q, n) => {
  if (!chars) return q;
  const parts = [q, ""];
  for (let i = 0; parts.join("\n").length < chars - 60; i++) {
    parts.push(process.env.AFW_PASTE === "prose" ? `Paragraph ${i} of request ${n} describes the situation in some more detail, with the background the reader needs.\n` : `2026-01-0${(i % 9) + 1} 10:${String(i % 60).padStart(2, "0")}:00 INFO worker-${n} processed batch ${i} in ${i * 3} ms`);
  }
  parts.push("", "What should I do next?");
  return parts.join("\n");
};
const times = [];
for (const [n, q] of sample.map((q, n) => pad(q, n)).entries()) {
  const start = performance.now();
  await classifier.classify(q);
  times.push(performance.now() - start);
}
times.sort((a, b) => a - b);
const at = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(2);
const mean = (times.reduce((a, b) => a + b, 0) / times.length).toFixed(2);
console.log(`model-path classify, ${times.length} distinct ${chars ? `~${chars}-character prompts (${process.env.AFW_PASTE ?? "log"})` : "questions"}: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms, mean ${mean} ms`);
