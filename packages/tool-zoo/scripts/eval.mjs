#!/usr/bin/env node
// Retrieval quality on the dev tasks: top-1 / recall@5 / recall@10 / MRR per mode, and the misses.
//   pnpm --filter @afw/tool-zoo eval            # table + misses of hybrid
//   pnpm --filter @afw/tool-zoo eval -- --grid  # also a 5-fold check of fusion/domain/action settings
//   pnpm --filter @afw/tool-zoo eval -- --authored-misses  # also list misses on the authored tasks
//   authored-2 (scripts/authored-tasks-2.json) is the unseen set: its misses are printed only with
//   --authored-2-misses, for the final report, never while tuning.
import { resolve } from "node:path";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createCachingEmbedder, createUseEmbedder } from "@afw/embeddings";
import { Bm25Index, createToolIndex, loadToolCatalogFile } from "../dist/index.js";
import { embeddingCachePath, loadTasks, pct, scoreRankings, sharedDataDir, packageRoot } from "./eval-lib.mjs";

const args = new Set(process.argv.slice(2));
const dataDir = sharedDataDir();
if (!dataDir) {
  console.error("tools-catalog.json not found: set AFW_SHARED_DATA to the shared data directory");
  process.exit(1);
}
const tools = loadToolCatalogFile(resolve(dataDir, "tools-catalog.json"));
const tasks = loadTasks(dataDir);
const authored = JSON.parse(readFileSync(resolve(packageRoot, "scripts/authored-tasks.json"), "utf8")).tasks;
// Second authored set: kept unseen (measured before/after a change, never used to tune).
const authored2 = JSON.parse(readFileSync(resolve(packageRoot, "scripts/authored-tasks-2.json"), "utf8")).tasks;
const embedder = createCachingEmbedder(createUseEmbedder());

async function buildIndex(options = {}) {
  const index = createToolIndex({ embedder, embeddingCachePath, ...options });
  await index.add(tools);
  return index;
}

async function evaluate(index, mode, subset = tasks, topK = 10) {
  const rankings = [];
  for (const task of subset) {
    const result = await index.search({ query: task.query, top_k: topK, mode });
    rankings.push(result.results.map((r) => r.id));
  }
  return scoreRankings(subset, rankings);
}

const started = Date.now();
const rows = [];
// Reference: plain Okapi BM25 over name + description + parameter names, lower-cased words, no
// stemming, synonyms, fields or query analysis.
const plainTokens = (text) => text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
const plainIndex = new Bm25Index({ fields: { text: { weight: 1 } } });
for (const tool of tools) {
  const parameters = Object.keys(tool.inputSchema.properties ?? {}).join(" ");
  plainIndex.add(`${tool.server}/${tool.name}`, { text: plainTokens(`${tool.server} ${tool.name.replace(/[_-]/g, " ")} ${tool.description} ${parameters}`) });
}
const plain = {
  async search({ query, top_k }) {
    const hits = plainIndex.search(plainTokens(query).map((term) => ({ term, weight: 1 })));
    return { results: hits.slice(0, top_k) };
  },
};
rows.push(["bm25 (plain, baseline)", await evaluate(plain, "keyword"), await evaluate(plain, "keyword", authored), await evaluate(plain, "keyword", authored2)]);
const index = await buildIndex();
const results = {};
for (const mode of ["keyword", "semantic", "hybrid"]) {
  results[mode] = await evaluate(index, mode);
  rows.push([mode, results[mode], await evaluate(index, mode, authored), await evaluate(index, mode, authored2)]);
}
const rrf = await buildIndex({ fusion: { method: "rrf" } });
rows.push(["hybrid (rrf fusion)", await evaluate(rrf, "hybrid"), await evaluate(rrf, "hybrid", authored), await evaluate(rrf, "hybrid", authored2)]);
const noDomain = await buildIndex({ domain: false });
rows.push(["hybrid (no domain boost)", await evaluate(noDomain, "hybrid"), await evaluate(noDomain, "hybrid", authored), await evaluate(noDomain, "hybrid", authored2)]);
const noDiversity = await buildIndex({ maxPerServer: 0 });
rows.push(["hybrid (no diversity limit)", await evaluate(noDiversity, "hybrid"), await evaluate(noDiversity, "hybrid", authored), await evaluate(noDiversity, "hybrid", authored2)]);

console.log(`\n${tasks.length} dev tasks, ${authored.length} authored and ${authored2.length} unseen authored-2 validation tasks, ${tools.length} tools (${Date.now() - started} ms)\n`);
console.log("| mode | dev top-1 | dev recall@5 | dev recall@10 | dev MRR | authored top-1 | authored recall@5 | authored MRR | authored-2 top-1 | authored-2 recall@5 | authored-2 recall@10 | authored-2 MRR |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const [name, r, a, b] of rows) {
  console.log(`| ${name} | ${pct(r.top1)} | ${pct(r.recall5)} | ${pct(r.recall10)} | ${r.mrr.toFixed(3)} | ${pct(a.top1)} | ${pct(a.recall5)} | ${a.mrr.toFixed(3)} | ${pct(b.top1)} | ${pct(b.recall5)} | ${pct(b.recall10)} | ${b.mrr.toFixed(3)} |`);
}

const printMisses = (label, misses) => {
  console.log(`\n${label} (rank of the first acceptable tool; top 3 returned):`);
  for (const miss of misses) {
    console.log(`  ${miss.id} [${miss.rank ?? "-"}] ${miss.query}\n      want ${miss.relevant.join(" | ")}; got ${miss.got.join(", ")}`);
  }
};
printMisses("hybrid misses on dev", results.hybrid.misses);
if (args.has("--authored-misses")) printMisses("hybrid misses on authored", rows.find((r) => r[0] === "hybrid")[2].misses);
// Only for the final before/after report: looking at these while tuning would spoil the set.
if (args.has("--authored-2-misses")) printMisses("hybrid misses on authored-2", rows.find((r) => r[0] === "hybrid")[3].misses);

if (args.has("--grid")) {
  // k-fold: choose settings on k-1 folds, measure on the held-out fold.
  const grid = [];
  for (const semanticWeight of [0.2, 0.3, 0.4]) {
    for (const domainWeight of [0.15, 0.3, 0.45]) {
      for (const actionWeight of [0, 0.1, 0.2]) {
        for (const method of ["weighted", "rrf"]) {
          grid.push({ fusion: { method, keywordWeight: 1 - semanticWeight, semanticWeight }, domain: { weight: domainWeight }, actionWeight });
        }
      }
    }
  }
  const perSetting = [];
  for (const settings of grid) {
    const candidate = await buildIndex(settings);
    const hits = [];
    for (const task of tasks) {
      const result = await candidate.search({ query: task.query, top_k: 10 });
      const ids = result.results.map((r) => r.id);
      hits.push(ids.findIndex((id) => task.relevant.includes(id)));
    }
    perSetting.push({ settings, hits });
  }
  const folds = 5;
  const utility = (rank) => (rank === 0 ? 1 : 0) + (rank >= 0 && rank < 5 ? 0.5 : 0);
  let top1 = 0;
  let r5 = 0;
  const chosen = [];
  for (let fold = 0; fold < folds; fold++) {
    const train = tasks.map((_, i) => i).filter((i) => i % folds !== fold);
    const test = tasks.map((_, i) => i).filter((i) => i % folds === fold);
    let best = perSetting[0];
    let bestUtility = -1;
    for (const candidate of perSetting) {
      const u = train.reduce((sum, i) => sum + utility(candidate.hits[i]), 0);
      if (u > bestUtility) {
        bestUtility = u;
        best = candidate;
      }
    }
    chosen.push(best.settings);
    for (const i of test) {
      if (best.hits[i] === 0) top1++;
      if (best.hits[i] >= 0 && best.hits[i] < 5) r5++;
    }
  }
  console.log(`\n${folds}-fold (settings chosen on 4/5, measured on 1/5): top-1 ${pct(top1 / tasks.length)}, recall@5 ${pct(r5 / tasks.length)}`);
  for (const s of chosen) console.log(`  chose ${JSON.stringify(s)}`);
  const ranked = perSetting
    .map(({ settings, hits }) => ({ settings, top1: hits.filter((h) => h === 0).length / tasks.length, recall5: hits.filter((h) => h >= 0 && h < 5).length / tasks.length }))
    .sort((a, b) => b.top1 + 0.5 * b.recall5 - (a.top1 + 0.5 * a.recall5));
  console.log(`\nsettings on all dev tasks, best 8 of ${ranked.length} (top-1 / recall@5):`);
  for (const r of ranked.slice(0, 8)) console.log(`  ${pct(r.top1)} / ${pct(r.recall5)}  ${JSON.stringify(r.settings)}`);
  const spread = ranked.map((r) => r.top1);
  console.log(`  top-1 range over the grid: ${pct(Math.min(...spread))} .. ${pct(Math.max(...spread))}`);
}

mkdirSync(resolve(packageRoot, "node_modules/.cache/afw-tool-zoo"), { recursive: true });
writeFileSync(
  resolve(packageRoot, "node_modules/.cache/afw-tool-zoo/eval-last.json"),
  JSON.stringify(
    Object.fromEntries(
      rows.map(([name, r, a, b]) => [
        name,
        { dev: { ...r, misses: r.misses.map((m) => m.id) }, authored: { ...a, misses: a.misses.map((m) => m.id) }, authored2: { ...b, misses: b.misses.map((m) => m.id) } },
      ]),
    ),
    null,
    2,
  ),
);
