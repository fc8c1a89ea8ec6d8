// Tunes the classifier cascade (static model first, USE lite model when the static one is unsure) on tuning data only:
// the shared dev set and eval/intent-holdout*.json (short hand-written questions), the seen self-instruct held-out set,
// and out-of-fold predictions of 5-fold cross-validation on the real training prompts (both models trained on the same
// folds, as scripts/train-intent-model.mjs does). Never give it an unseen held-out set.
// Prints, per threshold and combination: accuracy on each set, the share of questions sent to the USE model, and
// calibration per AIRIS tier. Run: AFW_SHARED_DATA=/work/afw-data node scripts/tune-cascade.mjs
// (predictions are cached in node_modules/.cache/afw-router/cascade-predictions.json; AFW_REFRESH=1 recomputes them)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { INTENTS } from "@afw/contracts";
import { createStaticEmbedder, createUseEmbedder } from "@afw/embeddings";
import { BUNDLED_INTENT_EXEMPLARS_URL, DEFAULT_INTENT_PATTERNS, createIntentClassifier, parseIntentExemplars, trainIntentModel } from "../dist/training.js";
import { diskCacheEmbedder } from "./disk-cache-embedder.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const shared = process.env.AFW_SHARED_DATA;
if (!shared) {
  console.error("set AFW_SHARED_DATA to the folder holding intent-real-prompts.json");
  process.exit(1);
}
const read = (path) => JSON.parse(readFileSync(path, "utf8"));
const tuningSets = {
  "short questions (dev + holdout A-E)": [
    join(here, "..", "..", "..", "..", "shared", "data", "intent-dev.json"),
    ...["", "-b", "-c", "-d", "-e"].map((s) => join(here, "..", "eval", `intent-holdout${s}.json`)),
  ],
  "self-instruct (seen held-out)": [join(shared, "real-heldout-self-instruct-user-oriented.json")],
};
for (const files of Object.values(tuningSets)) for (const file of files) if (/ifeval|koala|wizardlm|alpaca-eval|instructwild/.test(file)) throw new Error(`unseen set ${file}`);

const cacheFile = join(here, "..", "node_modules", ".cache", "afw-router", "cascade-predictions.json");
let predictions;
if (existsSync(cacheFile) && !process.env.AFW_REFRESH) predictions = read(cacheFile);
else {
  predictions = {};
  const staticEmbedder = createStaticEmbedder();
  const useEmbedder = diskCacheEmbedder(createUseEmbedder());
  const first = createIntentClassifier({ embedder: staticEmbedder });
  const second = createIntentClassifier({ embedder: useEmbedder });
  const probabilityVector = (c) => INTENTS.map((i) => c.probabilities[i] ?? 0);
  for (const [name, files] of Object.entries(tuningSets)) {
    const items = files.flatMap(read);
    const rows = [];
    for (const item of items) {
      const a = await first.classify(item.question);
      const b = await second.classify(item.question);
      rows.push({ truth: INTENTS.indexOf(item.intent), method: a.method, fastIntent: a.method === "pattern" ? INTENTS.indexOf(a.intent) : -1, fastConfidence: a.confidence, first: probabilityVector(a), second: probabilityVector(b) });
    }
    predictions[name] = rows;
    console.error(`classified ${rows.length} items of ${name}`);
  }
  // Out-of-fold predictions: both models trained on the same five folds of the training data.
  const real = read(join(shared, "intent-real-prompts.json"));
  const handWritten = parseIntentExemplars(readFileSync(BUNDLED_INTENT_EXEMPLARS_URL, "utf8"));
  const exemplars = [...handWritten, ...real.map((r) => ({ text: r.question.trim(), intent: r.intent }))];
  const calibrationIndices = real.map((_, i) => handWritten.length + i);
  const outOfFold = {};
  for (const [name, embedder] of [["first", staticEmbedder], ["second", useEmbedder]]) {
    await trainIntentModel({
      exemplars,
      embedder,
      patterns: DEFAULT_INTENT_PATTERNS,
      folds: 5,
      calibrationIndices,
      onOutOfFold: (p) => (outOfFold[name] = p.map((v) => Array.from(v))),
      onProgress: (m) => console.error(`[${name}] ${m}`),
    });
  }
  useEmbedder.save();
  const rows = [];
  for (const [k, item] of real.entries()) {
    const i = handWritten.length + k;
    // The fast path answers before any model, as in the classifier.
    const a = await first.classify(item.question);
    rows.push({ truth: INTENTS.indexOf(item.intent), method: a.method, fastIntent: a.method === "pattern" ? INTENTS.indexOf(a.intent) : -1, fastConfidence: a.confidence, first: outOfFold.first[i], second: outOfFold.second[i] });
  }
  predictions["real training prompts (out-of-fold, 5 folds)"] = rows;
  mkdirSync(dirname(cacheFile), { recursive: true });
  writeFileSync(cacheFile, JSON.stringify(predictions));
}

const argmax = (p) => p.reduce((best, v, i) => (v > p[best] ? i : best), 0);
const combinations = {
  replace: (a, b) => b,
  average: (a, b) => a.map((v, i) => (v + b[i]) / 2),
  // Geometric mean (log-linear pool), renormalised.
  geometric: (a, b) => {
    const g = a.map((v, i) => Math.sqrt(Math.max(v, 1e-12) * Math.max(b[i], 1e-12)));
    const sum = g.reduce((s, v) => s + v, 0);
    return g.map((v) => v / sum);
  },
};
const thresholds = (process.env.AFW_THRESHOLDS ?? "0,0.5,0.6,0.7,0.75,0.8,0.85,0.9,0.95,1.01").split(",").map(Number);
const pct = (n, d) => (d ? `${((100 * n) / d).toFixed(1)}%` : "-");
const tierEdges = [0, 0.5, 0.7, 0.9, 1.0001];

function simulate(rows, threshold, combine) {
  let correct = 0;
  let escalated = 0;
  let logLoss = 0;
  const tiers = tierEdges.slice(1).map(() => ({ n: 0, ok: 0 }));
  for (const r of rows) {
    let intent;
    let confidence;
    if (r.fastIntent >= 0) {
      intent = r.fastIntent;
      confidence = r.fastConfidence;
    } else {
      let p = r.first;
      if (Math.max(...p) < threshold) {
        escalated++;
        p = combine(r.first, r.second);
      }
      intent = argmax(p);
      confidence = p[intent];
      logLoss -= Math.log(Math.max(p[r.truth], 1e-12));
    }
    if (intent === r.truth) correct++;
    const t = tierEdges.findIndex((e, i) => confidence >= e && confidence < tierEdges[i + 1]);
    tiers[t].n++;
    if (intent === r.truth) tiers[t].ok++;
  }
  return { correct, escalated, logLoss: logLoss / rows.filter((r) => r.fastIntent < 0).length, tiers };
}

for (const [name, rows] of Object.entries(predictions)) {
  const fast = rows.filter((r) => r.fastIntent >= 0).length;
  console.log(`\n== ${name}: ${rows.length} items (${fast} answered by the patterns alone)`);
  console.log("combination  threshold  accuracy         to USE   log loss  tiers <0.5 | 0.5-0.7 | 0.7-0.9 | >=0.9 (right/n)");
  for (const [combination, combine] of Object.entries(combinations)) {
    for (const threshold of thresholds) {
      const s = simulate(rows, threshold, combine);
      console.log(
        `${combination.padEnd(12)} ${String(threshold).padStart(9)}  ${`${pct(s.correct, rows.length)} (${s.correct})`.padEnd(16)} ${pct(s.escalated, rows.length).padStart(6)}   ${s.logLoss.toFixed(3)}     ${s.tiers.map((t) => `${t.ok}/${t.n}`).join(" | ")}`,
      );
    }
  }
}
