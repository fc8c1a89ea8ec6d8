#!/usr/bin/env node
// Compares the embedders the tool index can use: load time, milliseconds per query embedding
// (p50/p99, uncached), cold index time, and hybrid retrieval quality on the dev tasks, the unseen
// authored-2 set and the public catalogs of eval/DATA-SOURCES.md when present (vectors of the
// public catalogs are cached per embedder in node_modules/.cache, so a second run is quick).
//   pnpm --filter @afw/tool-zoo build && node scripts/compare-embedders.mjs [--json FILE]
// Each embedder is measured in a fresh child process (load times are per process).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { createCachingEmbedder, createHashingEmbedder, createUseEmbedder } from "@afw/embeddings";
import { createToolIndex, loadToolCatalogFile, parseToolCatalog } from "../dist/internal.js";
import { loadExternalCatalogs, loadTasks, packageRoot, pct, scoreRankings, sharedDataDir } from "./eval-lib.mjs";

const candidates = {
  none: { label: "none (keyword only)", create: () => undefined },
  hashing: { label: "hashing (words + trigrams, 256-d)", create: () => createHashingEmbedder() },
  "use-direct": { label: "USE lite, direct runner (512-d)", create: () => createUseEmbedder({ engine: "direct" }) },
  // same vectors as the direct runner (so not run on the public catalogs: ~3x slower to index)
  "use-graph": { label: "USE lite, tfjs graph model (512-d)", create: () => createUseEmbedder({ engine: "graph-model" }), devOnly: true },
};

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

async function measure(name) {
  const dataDir = sharedDataDir();
  const tools = loadToolCatalogFile(resolve(dataDir, "tools-catalog.json"));
  const dev = loadTasks(dataDir);
  const unseen = JSON.parse(readFileSync(resolve(packageRoot, "scripts/authored-tasks-2.json"), "utf8")).tasks;
  const raw = candidates[name].create();
  const out = { name, label: candidates[name].label };
  if (raw) {
    const loadStarted = performance.now();
    await raw.embed(["warm up"]);
    out.loadMs = performance.now() - loadStarted;
    const times = [];
    for (const task of [...dev, ...unseen]) {
      const started = performance.now();
      await raw.embed([task.query]);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    out.queryMs = { p50: percentile(times, 50), p99: percentile(times, 99), n: times.length };
  }
  const embedder = raw ? createCachingEmbedder(raw) : undefined;
  const buildStarted = performance.now();
  const index = createToolIndex(embedder ? { embedder } : {});
  await index.add(tools);
  out.coldIndexMs = performance.now() - buildStarted;
  const score = async (tasks) => {
    const rankings = [];
    for (const task of tasks) rankings.push((await index.search({ query: task.query, top_k: 10, mode: embedder ? "hybrid" : "keyword" })).results.map((r) => r.id));
    const { misses: _misses, ...figures } = scoreRankings(tasks, rankings);
    return figures;
  };
  out.dev = await score(dev);
  out.unseen = await score(unseen);
  out.counts = { tools: tools.length, dev: dev.length, unseen: unseen.length };
  out.external = [];
  for (const external of candidates[name].devOnly ? [] : loadExternalCatalogs()) {
    const cachePath = resolve(packageRoot, `node_modules/.cache/afw-tool-zoo/compare-${name}-${external.catalog}.json`);
    const externalIndex = createToolIndex(embedder ? { embedder, embeddingCachePath: cachePath } : {});
    await externalIndex.add(parseToolCatalog({ tools: external.tools }, external.catalog));
    for (const kind of [...new Set(external.tasks.map((t) => t.kind ?? "single"))]) {
      const tasks = external.tasks.filter((t) => (t.kind ?? "single") === kind);
      const rankings = [];
      for (const task of tasks) rankings.push((await externalIndex.search({ query: task.query.slice(0, 2000), top_k: 10, mode: embedder ? "hybrid" : "keyword" })).results.map((r) => r.id));
      const { misses: _misses, ...figures } = scoreRankings(tasks, rankings);
      out.external.push({ catalog: external.catalog, kind, role: external.role, tools: external.tools.length, tasks: tasks.length, ...figures });
    }
  }
  return out;
}

const only = process.argv.indexOf("--child");
if (only >= 0) {
  process.stdout.write(JSON.stringify(await measure(process.argv[only + 1])));
} else {
  const jsonAt = process.argv.indexOf("--json");
  const machine = { cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length, node: process.version, loadAverageAtStart: loadavg()[0] };
  const results = [];
  for (const name of Object.keys(candidates)) {
    const output = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--child", name], { encoding: "utf8", maxBuffer: 16 << 20 });
    results.push(JSON.parse(output));
  }
  machine.loadAverageAtEnd = loadavg()[0];
  const f = (ms) => (ms === undefined ? "-" : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 1 ? 3 : 1)} ms`);
  const { counts } = results[0];
  console.log(`\n${counts.tools} tools; dev ${counts.dev} tasks (tuning data); authored-2 ${counts.unseen} tasks (unseen); hybrid search (keyword for none)\n`);
  console.log("| embedder | load | query p50 | query p99 | cold index | dev top-1 | dev hit@5 | dev MRR | unseen top-1 | unseen hit@5 | unseen hit@10 | unseen MRR |");
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const r of results) {
    console.log(
      `| ${r.label} | ${f(r.loadMs)} | ${f(r.queryMs?.p50)} | ${f(r.queryMs?.p99)} | ${f(r.coldIndexMs)} | ${pct(r.dev.top1)} | ${pct(r.dev.recall5)} | ${r.dev.mrr.toFixed(3)} | ${pct(r.unseen.top1)} | ${pct(r.unseen.recall5)} | ${pct(r.unseen.recall10)} | ${r.unseen.mrr.toFixed(3)} |`,
    );
  }
  for (const { catalog, kind, role, tools, tasks } of results[0].external) {
    console.log(`\n${catalog} (${role}), ${kind}-tool tasks: ${tasks} tasks over ${tools} tools\n`);
    console.log("| embedder | top-1 | hit@5 | needed@5 | MRR |\n| --- | --- | --- | --- | --- |");
    for (const r of results) {
      const e = r.external.find((x) => x.catalog === catalog && x.kind === kind);
      if (!e) continue;
      console.log(`| ${r.label} | ${pct(e.top1)} | ${pct(e.recall5)} | ${pct(e.needed5)} | ${e.mrr.toFixed(3)} |`);
    }
  }
  console.log(`\n${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; 1-min load average ${machine.loadAverageAtStart.toFixed(1)} at start, ${machine.loadAverageAtEnd.toFixed(1)} at end`);
  if (jsonAt >= 0) writeFileSync(process.argv[jsonAt + 1], `${JSON.stringify({ machine, results }, null, 2)}\n`);
}
