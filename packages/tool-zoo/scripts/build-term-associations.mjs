#!/usr/bin/env node
// Learns which tool-text words a request word points at from public tool-retrieval training data (none of the
// evaluation sets): (request, tool called) pairs of Seal-Tools and ToolAlpaca. Writes src/term-associations.json, the
// query expansion of the tool index (see docs/decisions/2026-11-29-tool-search-learned-associations.md).
//   pnpm --filter @afw/tool-zoo build
//   node scripts/build-term-associations.mjs --seal-tools <fairyshine/Seal-Tools checkout or git dir> \
//     --toolalpaca <tangqiaoyu/ToolAlpaca checkout or git dir>
// Sources, commits and licences: eval/DATA-SOURCES.md. Deterministic: same inputs, same file.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createTextAnalyzer } from "../dist/internal.js";
import { packageRoot } from "./eval-lib.mjs";

const argv = process.argv.slice(2);
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const sealTools = option("--seal-tools");
const toolAlpaca = option("--toolalpaca");
const out = option("--out") ?? resolve(packageRoot, "src/term-associations.json");
if (!sealTools || !toolAlpaca) {
  console.error("usage: node scripts/build-term-associations.mjs --seal-tools <dir> --toolalpaca <dir> [--out file]");
  process.exit(1);
}

/** A file of a checkout, or of the HEAD commit of a (bare) git directory. */
const read = (source, path) =>
  existsSync(join(source, path)) ? readFileSync(join(source, path), "utf8") : execFileSync("git", ["-C", source, "show", `HEAD:${path}`], { encoding: "utf8", maxBuffer: 64 << 20 });
const commitOf = (source) => (existsSync(join(source, ".git")) || !existsSync(join(source, "HEAD")) ? "working tree" : execFileSync("git", ["-C", source, "rev-parse", "HEAD"], { encoding: "utf8" }).trim());
const jsonl = (text) => text.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
const nameWords = (name) => name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_.]/g, " ");

/** Training pairs: a request and the tools it needs (their API, and text: name words, description, parameter names). */
const pairs = [];
{
  const tools = new Map(
    jsonl(read(sealTools, "Seal-Tools_Dataset/tool.jsonl")).map((t) => [
      t.api_name,
      { api: t.api_name, text: `${nameWords(t.api_name)}. ${t.api_description} ${Object.keys(t.parameters ?? {}).map(nameWords).join(" ")}` },
    ]),
  );
  for (const split of ["dev", "test_in_domain", "test_out_domain"]) {
    for (const item of jsonl(read(sealTools, `Seal-Tools_Dataset/${split}.jsonl`))) {
      const texts = [...new Set(item.calling.map((call) => call.api))].map((api) => tools.get(api)).filter(Boolean);
      if (texts.length) pairs.push({ query: item.query, tools: texts });
    }
  }
}
{
  for (const file of ["data/eval_real.json", "data/eval_simulated.json"]) {
    for (const api of JSON.parse(read(toolAlpaca, file))) {
      const describe = (fn) => ({ api: api.Name, text: `${nameWords(fn)}. ${(api.Function_Description?.[fn] ?? "").split("\n")[0]}` });
      api.Instructions.forEach((query, i) => {
        const actions = [...new Set((api.Golden_Answers?.[i] ?? []).map((step) => step.Action))].filter((fn) => api.Function_Description?.[fn]);
        if (actions.length) pairs.push({ query, tools: actions.map(describe) });
      });
    }
  }
}

// Co-occurrence of a request's terms and each needed tool's terms (a request needing k tools counts 1/k per tool).
const analyzer = createTextAnalyzer();
const queryCount = new Map();
const toolTermMass = new Map();
const joint = new Map();
/** The distinct APIs behind each association (one API's many requests must not make it general). */
const supporters = new Map();
let toolMass = 0;
for (const { query, tools } of pairs) {
  const queryTerms = new Set(analyzer.terms(query).filter((t) => /^[a-z]{3,}$/.test(t)));
  for (const q of queryTerms) queryCount.set(q, (queryCount.get(q) ?? 0) + 1);
  for (const { api, text } of tools) {
    const share = 1 / tools.length;
    toolMass += share;
    const toolTerms = new Set(analyzer.terms(text).filter((t) => /^[a-z]{3,}$/.test(t)));
    for (const t of toolTerms) toolTermMass.set(t, (toolTermMass.get(t) ?? 0) + share);
    for (const q of queryTerms) {
      let row = joint.get(q);
      if (!row) joint.set(q, (row = new Map()));
      for (const t of toolTerms) {
        row.set(t, (row.get(t) ?? 0) + share);
        const key = `${q} ${t}`;
        if (!supporters.has(key)) supporters.set(key, new Set());
        supporters.get(key).add(api);
      }
    }
  }
}

/**
 * Least requests a query term occurs in, least (weighted) co-occurrences, least distinct APIs behind them, least
 * P(t | q), least lift P(t | q) / P(t).
 */
const MIN_QUERY_COUNT = 5;
const MIN_JOINT = 2;
const MIN_APIS = 3;
const MIN_CONFIDENCE = 0.2;
const MIN_LIFT = 4;
/** Associations kept per query term. */
const PER_TERM = 4;
const associations = {};
for (const q of [...joint.keys()].sort()) {
  const n = queryCount.get(q);
  if (n < MIN_QUERY_COUNT) continue;
  const kept = [...joint.get(q)]
    .filter(([t, c]) => t !== q && c >= MIN_JOINT && supporters.get(`${q} ${t}`).size >= MIN_APIS)
    .map(([t, c]) => ({ t, confidence: c / n, lift: c / n / (toolTermMass.get(t) / toolMass) }))
    .filter((a) => a.confidence >= MIN_CONFIDENCE && a.lift >= MIN_LIFT)
    .sort((a, b) => b.confidence - a.confidence || (a.t < b.t ? -1 : 1))
    .slice(0, PER_TERM)
    .map((a) => [a.t, Math.round(Math.min(1, a.confidence) * 100) / 100]);
  if (kept.length) associations[q] = kept;
}
const sources = [
  { repository: "https://github.com/fairyshine/Seal-Tools", commit: commitOf(sealTools), licence: "Apache-2.0", files: "Seal-Tools_Dataset/{tool,dev,test_in_domain,test_out_domain}.jsonl" },
  { repository: "https://github.com/tangqiaoyu/ToolAlpaca", commit: commitOf(toolAlpaca), licence: "Apache-2.0", files: "data/eval_real.json, data/eval_simulated.json" },
];
writeFileSync(out, `${JSON.stringify({ sources, pairs: pairs.length, associations })}\n`);
console.log(`${pairs.length} pairs, ${Object.keys(associations).length} query terms, ${Object.values(associations).flat().length} associations → ${out}`);
