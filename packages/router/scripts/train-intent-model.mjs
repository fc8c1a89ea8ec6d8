// Trains the intent models on data/intent-exemplars.yaml and $AFW_SHARED_DATA/intent-real-prompts.json and
// writes one model file per embedder the gateway's configuration offers: data/intent-model.json
// (the static embedder, the default), data/intent-model-use-lite-512.json (Universal Sentence Encoder
// lite) and data/intent-model-hashing-256-3.json (hashing embedder), so no request pays for training.
// Run: pnpm --filter @afw/router train   (AFW_DRY_RUN=1: print figures, write nothing;
// AFW_EMBEDDERS=static, use or hashing (comma-separated): train only those)
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createHashingEmbedder, createStaticEmbedder, createUseEmbedder } from "@afw/embeddings";
import {
  BUNDLED_INTENT_EXEMPLARS_URL,
  bundledIntentModelUrl,
  DEFAULT_INTENT_PATTERNS,
  parseIntentExemplars,
  serializeIntentModel,
  trainIntentModel,
} from "../dist/training.js";
import { diskCacheEmbedder } from "./disk-cache-embedder.mjs";

// Hand-written exemplars plus labelled real prompts (sources and licences: data/DATA-SOURCES.md).
// The real prompts are fetched data: they live in the shared data folder, not in git.
const realPath = process.env.AFW_SHARED_DATA && join(process.env.AFW_SHARED_DATA, "intent-real-prompts.json");
if (!realPath || !existsSync(realPath)) {
  console.error("intent-real-prompts.json not found: set AFW_SHARED_DATA to the folder holding it (see data/DATA-SOURCES.md)");
  process.exit(1);
}
const real = JSON.parse(await readFile(realPath, "utf8"));
const handWritten = parseIntentExemplars(await readFile(BUNDLED_INTENT_EXEMPLARS_URL, "utf8"));
const exemplars = [...handWritten, ...real.map((r) => ({ text: r.question.trim(), intent: r.intent }))];
// The temperatures are fitted on the out-of-fold predictions of the real prompts only (a validation
// split of the training data; the held-out sets in eval/ are never used).
const calibrationIndices = real.map((_, i) => handWritten.length + i);
const featureOverrides = process.env.AFW_FEATURES ? JSON.parse(process.env.AFW_FEATURES) : {};
const trainingOverrides = process.env.AFW_TRAINING ? JSON.parse(process.env.AFW_TRAINING) : {};
const wanted = (process.env.AFW_EMBEDDERS ?? "static,use,hashing").split(",");
// Class balancing (logit adjustment, the default of trainIntentModel) was chosen per embedder on the tuning sets (dev
// set, eval/ sets A-E): for the static model in record 2026-11-29-router-training-data-2 (+3 of 474 items), for the USE
// model on the round-3 data in record 2026-11-30-router-training-data-3 (+2 of 474; it had cost 1 on the older data);
// the hashing model follows the static one.
const embedders = [
  ["static", () => createStaticEmbedder(), {}],
  ["use", () => diskCacheEmbedder(createUseEmbedder()), {}],
  ["hashing", () => createHashingEmbedder(), {}],
].filter(([name]) => wanted.includes(name));

for (const [name, make, perEmbedder] of embedders) {
  const started = performance.now();
  const embedder = make();
  const model = await trainIntentModel({
    exemplars,
    embedder,
    patterns: DEFAULT_INTENT_PATTERNS,
    folds: 5,
    calibrationIndices,
    features: featureOverrides,
    training: { ...perEmbedder, ...trainingOverrides },
    onProgress: (m) => console.error(`[train ${name}] ${m}`),
  });
  embedder.save?.();
  const url = bundledIntentModelUrl(embedder.id);
  if (!url) throw new Error(`no bundled model file is named for embedder ${embedder.id}`);
  // The file lists only the hand-written exemplars: the fetched real prompts are not committed
  // (data/DATA-SOURCES.md). `exemplarsHash` still covers everything the model was trained on.
  if (!process.env.AFW_DRY_RUN) await writeFile(url, serializeIntentModel({ ...model, exemplars: model.exemplars.slice(0, handWritten.length) }));
  const ev = model.evaluation;
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  console.log(`\n== ${name}: exemplars: ${exemplars.length}, embedder: ${model.embedderId}, temperature: ${model.temperature}`);
  console.log(`5-fold cross-validated accuracy: ${pct(ev.accuracy)}  log loss: ${ev.logLoss.toFixed(3)}`);
  for (const [intent, acc] of Object.entries(ev.perIntent)) console.log(`  ${intent.padEnd(22)} ${pct(acc)}`);
  console.log(`fast path on exemplars: decided ${ev.fastPath.decided}, correct ${ev.fastPath.correct}, precision used ${model.fastPathPrecision.toFixed(3)}`);
  if (process.env.AFW_SHOW_ERRORS) for (const e of ev.errors) console.log(`  x ${e.intent} -> ${e.predicted} @${e.confidence}: ${e.text}`);
  console.log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s${process.env.AFW_DRY_RUN ? " (dry run, model not written)" : ""}`);
}
