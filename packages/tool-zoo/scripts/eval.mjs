#!/usr/bin/env node
// Retrieval quality per catalog: top-1 / hit@5 / needed@5 / MRR for plain BM25, keyword and hybrid.
//   pnpm --filter @afw/tool-zoo eval                     # the table
//   pnpm --filter @afw/tool-zoo eval -- --misses bfcl    # also the hybrid misses of one tuning set
//   pnpm --filter @afw/tool-zoo eval -- --tuning --only dev --modes hybrid   # tuning sets of one catalog, one ranking
//   pnpm --filter @afw/tool-zoo eval -- --tuning --synonyms wordnet   # the index with another synonym source
// Catalogs: the development catalog (398 tools; ../shared/data) with its task sets, and the public
// catalogs of eval/DATA-SOURCES.md (found through $AFW_TOOL_EVAL_DATA). Sets marked `unseen` were
// never looked at while tuning; their misses are printed only with --unseen-misses (for a final
// report, never while tuning).
import { resolve } from "node:path";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createCachingEmbedder, createUseEmbedder } from "@afw/embeddings";
import { Bm25Index, createToolIndex, loadToolCatalogFile, parseToolCatalog } from "../dist/internal.js";
import { embeddingCachePath, loadExternalCatalogs, loadTasks, pct, scoreRankings, sharedDataDir, packageRoot } from "./eval-lib.mjs";

const argv = process.argv.slice(2);
const missesOf = argv.includes("--misses") ? argv[argv.indexOf("--misses") + 1] : undefined;
const unseenMisses = argv.includes("--unseen-misses");
const tuningOnly = argv.includes("--tuning");
/** `--synonyms builtin|wordnet|both`: the index's synonym source (default: the index's default). */
const synonyms = argv.includes("--synonyms") ? argv[argv.indexOf("--synonyms") + 1] : undefined;
const only = argv.includes("--only") ? argv[argv.indexOf("--only") + 1] : undefined;
const modes = argv.includes("--modes") ? argv[argv.indexOf("--modes") + 1].split(",") : ["bm25", "keyword", "hybrid"];
const embedder = createCachingEmbedder(createUseEmbedder());

const catalogs = [];
const dataDir = sharedDataDir();
if (dataDir) {
  const authored = (file) => JSON.parse(readFileSync(resolve(packageRoot, "scripts", file), "utf8")).tasks;
  catalogs.push({
    catalog: "dev",
    tools: loadToolCatalogFile(resolve(dataDir, "tools-catalog.json")),
    sets: [
      { name: "dev tasks", role: "tuning", tasks: loadTasks(dataDir) },
      { name: "authored-1", role: "tuning", tasks: authored("authored-tasks.json") },
      { name: "authored-3", role: "tuning", tasks: authored("authored-tasks-3.json") },
      { name: "authored-4 multi", role: "tuning", tasks: authored("authored-tasks-4.json") },
      { name: "authored-5", role: "tuning", tasks: authored("authored-tasks-5.json").filter((t) => !t.needed) },
      { name: "authored-5 multi", role: "tuning", tasks: authored("authored-tasks-5.json").filter((t) => t.needed) },
      { name: "authored-2", role: "unseen", tasks: authored("authored-tasks-2.json") },
      // Set 6: written blind to the engine on 2026-11-29 (eval/HELDOUT-TASKS-6.md), single-tool and multi-step tasks apart.
      { name: "authored-6", role: "unseen", tasks: authored("authored-tasks-6.json").filter((t) => !t.needed) },
      { name: "authored-6 multi", role: "unseen", tasks: authored("authored-tasks-6.json").filter((t) => t.needed) },
    ],
  });
} else console.error("development catalog not found (set AFW_SHARED_DATA); skipping it");
for (const external of loadExternalCatalogs()) {
  const kinds = [...new Set(external.tasks.map((t) => t.kind ?? "single"))];
  catalogs.push({
    catalog: external.catalog,
    tools: parseToolCatalog({ tools: external.tools }, external.catalog),
    sets: kinds.map((kind) => ({ name: kind, role: external.role, tasks: external.tasks.filter((t) => (t.kind ?? "single") === kind) })),
  });
}
if (catalogs.length === 1) console.error("no public catalogs found (see eval/DATA-SOURCES.md; set AFW_TOOL_EVAL_DATA)");

// Reference: plain Okapi BM25 over name + description + parameter names, lower-cased words, no
// stemming, synonyms, fields or query analysis.
const plainTokens = (text) => text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
function plainBm25(tools) {
  const index = new Bm25Index({ fields: { text: { weight: 1 } } });
  for (const tool of tools) {
    const parameters = Object.keys(tool.inputSchema.properties ?? {}).join(" ");
    index.add(`${tool.server}/${tool.name}`, { text: plainTokens(`${tool.server} ${tool.name.replace(/[_-]/g, " ")} ${tool.description} ${parameters}`) });
  }
  return {
    async search({ query, top_k }) {
      return { results: index.search(plainTokens(query).map((term) => ({ term, weight: 1 }))).slice(0, top_k) };
    },
  };
}

async function evaluate(index, mode, tasks) {
  const rankings = [];
  for (const task of tasks) {
    const result = await index.search({ query: task.query.slice(0, 2000), top_k: 10, mode: mode === "bm25" ? "keyword" : mode });
    rankings.push(result.results.map((r) => r.id));
  }
  return scoreRankings(tasks, rankings);
}

const started = Date.now();
const rows = [];
for (const { catalog, tools, sets } of catalogs) {
  if (only && catalog !== only) continue;
  const servers = new Set(tools.map((t) => t.server)).size;
  const indexes = {};
  if (modes.includes("bm25")) indexes.bm25 = plainBm25(tools);
  if (modes.includes("keyword")) {
    indexes.keyword = createToolIndex(synonyms ? { synonyms } : {});
    await indexes.keyword.add(tools);
  }
  if (modes.includes("hybrid")) {
    indexes.hybrid = createToolIndex({ embedder, embeddingCachePath, ...(synonyms ? { synonyms } : {}) });
    await indexes.hybrid.add(tools);
  }
  for (const set of sets) {
    if (tuningOnly && set.role !== "tuning") continue;
    for (const mode of modes) {
      const result = await evaluate(indexes[mode], mode, set.tasks);
      rows.push({ catalog: `${catalog} (${tools.length} tools, ${servers} servers)`, name: catalog, set: set.name, role: set.role, n: set.tasks.length, mode, result });
    }
  }
}

console.log(`\n(${Date.now() - started} ms; embedder ${embedder.id})\n`);
console.log("| catalog | tasks | seen | ranking | top-1 | hit@5 | needed@5 | MRR |\n| --- | --- | --- | --- | --- | --- | --- | --- |");
for (const { catalog, set, role, n, mode, result: r } of rows) {
  console.log(`| ${catalog} | ${set} (${n}) | ${role === "tuning" ? "tuning" : "unseen"} | ${mode === "bm25" ? "plain BM25" : mode} | ${pct(r.top1)} | ${pct(r.recall5)} | ${pct(r.needed5)} | ${r.mrr.toFixed(3)} |`);
}
for (const row of rows) {
  if (row.mode !== "hybrid" && !(row.mode === "keyword" && !modes.includes("hybrid"))) continue;
  const wanted = (missesOf && (row.name === missesOf || row.set === missesOf) && row.role === "tuning") || (unseenMisses && row.role === "unseen");
  if (!wanted) continue;
  console.log(`\n${row.mode} misses on ${row.name} / ${row.set} (rank of the first right tool; top 3 returned):`);
  for (const miss of row.result.misses) console.log(`  ${miss.id} [${miss.rank ?? "-"}] ${miss.query.slice(0, 300)}\n      want ${miss.relevant.join(" | ")}; got ${miss.got.join(", ")}`);
}
mkdirSync(resolve(packageRoot, "node_modules/.cache/afw-tool-zoo"), { recursive: true });
writeFileSync(
  resolve(packageRoot, "node_modules/.cache/afw-tool-zoo/eval-last.json"),
  JSON.stringify(rows.map(({ result, ...row }) => ({ ...row, ...result, misses: result.misses.map((m) => m.id) })), null, 2),
);
