#!/usr/bin/env node
// Grid search with k-fold cross-validation over the dev tasks and the first and third authored sets (the
// unseen authored-2 set is never read here). Each setting is scored on every task once; for each
// fold the best setting on the other folds is measured on the held-out fold.
//   node scripts/tune.mjs '{"actionWeight":[0.1,0.15],"fusion.semanticWeight":[0.3,0.4]}'
import { resolve } from "node:path";
import { readFileSync } from "node:fs";
import { createCachingEmbedder, createUseEmbedder } from "@afw/embeddings";
import { createToolIndex, loadToolCatalogFile } from "../dist/internal.js";
import { embeddingCachePath, loadTasks, pct, sharedDataDir, packageRoot } from "./eval-lib.mjs";

const dataDir = sharedDataDir();
const tools = loadToolCatalogFile(resolve(dataDir, "tools-catalog.json"));
const dev = loadTasks(dataDir);
const authored = JSON.parse(readFileSync(resolve(packageRoot, "scripts/authored-tasks.json"), "utf8")).tasks;
const authored3 = JSON.parse(readFileSync(resolve(packageRoot, "scripts/authored-tasks-3.json"), "utf8")).tasks;
const tasks = [...dev, ...authored, ...authored3];
const embedder = createCachingEmbedder(createUseEmbedder());
const axes = Object.entries(JSON.parse(process.argv[2] ?? "{}"));

function settingsOf(values) {
  const settings = {};
  axes.forEach(([path, _], i) => {
    const keys = path.split(".");
    let target = settings;
    for (const key of keys.slice(0, -1)) target = target[key] ??= {};
    target[keys.at(-1)] = values[i];
  });
  return settings;
}
let combos = [[]];
for (const [, values] of axes) combos = combos.flatMap((c) => values.map((v) => [...c, v]));

const results = [];
for (const values of combos) {
  const settings = settingsOf(values);
  const index = createToolIndex({ embedder, embeddingCachePath, ...settings });
  await index.add(tools);
  const ranks = [];
  const tops = [];
  for (const task of tasks) {
    const { results: hits } = await index.search({ query: task.query, top_k: 10 });
    ranks.push(hits.findIndex((h) => task.relevant.includes(h.id)));
    tops.push(hits.slice(0, 2).map((h) => h.id).join(", "));
  }
  results.push({ settings, ranks, tops });
}
const stats = (ranks) => ({
  top1: ranks.filter((r) => r === 0).length / ranks.length,
  r5: ranks.filter((r) => r >= 0 && r < 5).length / ranks.length,
  mrr: ranks.reduce((s, r) => s + (r >= 0 ? 1 / (r + 1) : 0), 0) / ranks.length,
});
const utility = (r) => (r === 0 ? 1 : 0) + (r >= 0 && r < 5 ? 0.5 : 0) + (r >= 0 ? 0.5 / (r + 1) : 0);
const folds = 5;
const heldOut = [];
for (let fold = 0; fold < folds; fold++) {
  const train = tasks.map((_, i) => i).filter((i) => i % folds !== fold);
  const test = tasks.map((_, i) => i).filter((i) => i % folds === fold);
  let best = results[0];
  let bestU = -1;
  for (const r of results) {
    const u = train.reduce((s, i) => s + utility(r.ranks[i]), 0);
    if (u > bestU) [best, bestU] = [r, u];
  }
  for (const i of test) heldOut[i] = best.ranks[i];
  console.log(`fold ${fold}: chose ${JSON.stringify(best.settings)}`);
}
const cv = stats(heldOut);
console.log(`\n${folds}-fold CV over ${tasks.length} tasks (dev + authored + authored-3): top-1 ${pct(cv.top1)}, recall@5 ${pct(cv.r5)}, MRR ${cv.mrr.toFixed(3)}`);
const nDev = dev.length;
const ranked = results
  .map((r) => ({
    ...r,
    all: stats(r.ranks),
    dev: stats(r.ranks.slice(0, nDev)),
    au: stats(r.ranks.slice(nDev, nDev + authored.length)),
    au3: stats(r.ranks.slice(nDev + authored.length)),
  }))
  .sort((a, b) => b.all.top1 + 0.5 * b.all.r5 + 0.5 * b.all.mrr - (a.all.top1 + 0.5 * a.all.r5 + 0.5 * a.all.mrr));
console.log(`\nbest 12 of ${ranked.length} (all top-1 / r@5 / MRR | dev top-1 / r@5 | authored top-1 / r@5 | authored-3 top-1 / r@5):`);
for (const r of ranked.slice(0, 12)) {
  console.log(
    `  ${pct(r.all.top1)} ${pct(r.all.r5)} ${r.all.mrr.toFixed(3)} | ${pct(r.dev.top1)} ${pct(r.dev.r5)} | ${pct(r.au.top1)} ${pct(r.au.r5)} | ${pct(r.au3.top1)} ${pct(r.au3.r5)}  ${JSON.stringify(r.settings)}`,
  );
}
if (process.env.MISSES) {
  const best = ranked[0];
  for (const [i, task] of tasks.entries()) if (best.ranks[i] !== 0) console.log(`  miss [${best.ranks[i] + 1 || "-"}] ${task.id} ${task.query}\n      want ${task.relevant.join(" | ")}; got ${best.tops[i]}`);
}
