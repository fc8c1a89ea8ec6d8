// Trains the intent model on data/intent-exemplars.yaml and data/intent-real-prompts.json with the Universal Sentence Encoder lite
// and writes data/intent-model.json. Run: pnpm --filter @afw/router train
import { readFile, writeFile } from "node:fs/promises";
import { createUseEmbedder } from "@afw/embeddings";
import {
  BUNDLED_INTENT_EXEMPLARS_URL,
  BUNDLED_INTENT_MODEL_URL,
  DEFAULT_INTENT_PATTERNS,
  parseIntentExemplars,
  serializeIntentModel,
  trainIntentModel,
} from "../dist/index.js";
import { diskCacheEmbedder } from "./disk-cache-embedder.mjs";

const started = performance.now();
// Hand-written exemplars plus labelled real prompts (sources and licences: data/DATA-SOURCES.md).
const real = JSON.parse(await readFile(new URL("../data/intent-real-prompts.json", import.meta.url), "utf8"));
const handWritten = parseIntentExemplars(await readFile(BUNDLED_INTENT_EXEMPLARS_URL, "utf8"));
const exemplars = [...handWritten, ...real.map((r) => ({ text: r.question.trim(), intent: r.intent }))];
// The temperature is fitted on the out-of-fold predictions of the real prompts only (a validation
// split of the training data; the held-out set in eval/ is never used).
const calibrationIndices = real.map((_, i) => handWritten.length + i);
const embedder = diskCacheEmbedder(createUseEmbedder());
const featureOverrides = process.env.AFW_FEATURES ? JSON.parse(process.env.AFW_FEATURES) : {};
const trainingOverrides = process.env.AFW_TRAINING ? JSON.parse(process.env.AFW_TRAINING) : {};
const model = await trainIntentModel({
  exemplars,
  embedder,
  patterns: DEFAULT_INTENT_PATTERNS,
  folds: 5,
  calibrationIndices,
  features: featureOverrides,
  training: trainingOverrides,
  onProgress: (m) => console.error(`[train] ${m}`),
});
embedder.save();
if (!process.env.AFW_DRY_RUN) await writeFile(BUNDLED_INTENT_MODEL_URL, serializeIntentModel(model));
const ev = model.evaluation;
console.log(`exemplars: ${exemplars.length}, embedder: ${model.embedderId}, temperature: ${model.temperature}`);
console.log(`5-fold cross-validated accuracy: ${(ev.accuracy * 100).toFixed(1)}%  log loss: ${ev.logLoss.toFixed(3)}`);
for (const [intent, acc] of Object.entries(ev.perIntent)) console.log(`  ${intent.padEnd(22)} ${(acc * 100).toFixed(1)}%`);
console.log(`fast path on exemplars: decided ${ev.fastPath.decided}, correct ${ev.fastPath.correct}, precision used ${model.fastPathPrecision.toFixed(3)}`);
if (process.env.AFW_SHOW_ERRORS) for (const e of ev.errors) console.log(`  x ${e.intent} -> ${e.predicted} @${e.confidence}: ${e.text}`);
console.log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s${process.env.AFW_DRY_RUN ? " (dry run, model not written)" : ""}`);
