#!/usr/bin/env node
// Fits the learned re-ranking of the leading candidates (src/learned-fusion.ts) and measures it leave-one-catalog-out
// on the tuning catalogs: for each tuning catalog, a model fitted on the other tuning catalogs and the training
// catalogs (Seal-Tools, ToolAlpaca) re-ranks it; compared with the hand-weighted ranking. Never reads unseen sets.
//   pnpm --filter @afw/tool-zoo build
//   AFW_TOOL_EVAL_DATA=... node scripts/fit-fusion.mjs --seal-tools <fairyshine/Seal-Tools dir> \
//     --toolalpaca <tangqiaoyu/ToolAlpaca dir> [--loss pairwise|pointwise] [--l2 0.01] [--candidates 30]
//     [--external-weight 1] [--drop feature,feature] [--anchor] [--write src/fusion-model.json]
// --groups all|whole|single|assigned|step-assigned: which ranked queries train: all (the requests and their steps,
// every needed tool right in each), whole (the requests only), single (requests needing one tool), assigned (all, a
// needed tool right only in the list of the request or step that ranks it best), step-assigned (all, every needed
// tool right in the request's list, a needed tool right only in the step's list that ranks it best among the steps).
// --anchor: the L2 penalty pulls toward the hand-weighted score (a correction of it) instead of toward 0.
// Candidates and features are collected once per catalog (node_modules/.cache/afw-tool-zoo/fusion-groups.json,
// --recollect to refresh). Sources, commits and licences: eval/DATA-SOURCES.md.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createCachingEmbedder, createUseEmbedder } from "@afw/embeddings";
import { createToolIndex, FUSION_FEATURES, parseToolCatalog } from "../dist/internal.js";
import { embeddingCachePath, evalCatalogs, packageRoot, pct, scoreRankings } from "./eval-lib.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const loss = option("--loss", "pairwise");
const l2 = Number(option("--l2", "0.01"));
const candidates = Number(option("--candidates", "30"));
const externalWeight = Number(option("--external-weight", "1"));
const anchored = argv.includes("--anchor");
const groupKind = option("--groups", "all");
const dropped = new Set((option("--drop", "") ?? "").split(",").filter(Boolean));
const write = option("--write");
const cacheDir = resolve(packageRoot, "node_modules/.cache/afw-tool-zoo");
const groupsPath = resolve(cacheDir, "fusion-groups.json");
const embedder = createCachingEmbedder(createUseEmbedder());

/** A file of a checkout, or of the HEAD commit of a (bare) git directory. */
const read = (source, path) =>
  existsSync(join(source, path)) ? readFileSync(join(source, path), "utf8") : execFileSync("git", ["-C", source, "show", `HEAD:${path}`], { encoding: "utf8", maxBuffer: 64 << 20 });
const jsonl = (text) => text.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
const slug = (text) => text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "api";

/** Seal-Tools as a catalog: every 3rd request of its dev and test splits; its needed tools and others up to 1,000 tools. */
function sealToolsCatalog(source) {
  const all = jsonl(read(source, "Seal-Tools_Dataset/tool.jsonl"));
  const byName = new Map(all.map((t) => [t.api_name, t]));
  const tasks = [];
  for (const split of ["dev", "test_in_domain", "test_out_domain"]) {
    jsonl(read(source, `Seal-Tools_Dataset/${split}.jsonl`)).forEach((item, i) => {
      const needed = [...new Set(item.calling.map((call) => call.api))].filter((api) => byName.has(api));
      if (i % 3 === 0 && needed.length) tasks.push({ id: item.id, query: item.query, needed, kind: needed.length > 1 ? "multi" : "single" });
    });
  }
  const used = new Set(tasks.flatMap((t) => t.needed));
  const chosen = all.filter((t, i) => used.has(t.api_name) || i % 7 === 0).slice(0, Math.max(1000, used.size));
  const server = (t) => slug(t.field.split("/")[0]);
  const tools = chosen.map((t) => ({
    server: server(t),
    name: t.api_name,
    description: t.api_description,
    inputSchema: {
      type: "object",
      properties: Object.fromEntries(Object.entries(t.parameters ?? {}).map(([name, p]) => [name, { type: "string", description: p.description ?? "" }])),
      required: t.required ?? [],
    },
  }));
  const idOf = new Map(chosen.map((t) => [t.api_name, `${server(t)}/${t.api_name}`]));
  return { catalog: "seal-tools", tools: parseToolCatalog({ tools }, "seal-tools"), tasks: tasks.map((t) => ({ ...t, needed: t.needed.map((api) => idOf.get(api)) })) };
}

/** ToolAlpaca's evaluation APIs as a catalog (server: the API), with the instructions that have golden calls. */
function toolAlpacaCatalog(source) {
  const tools = [];
  const tasks = [];
  for (const file of ["data/eval_real.json", "data/eval_simulated.json"]) {
    for (const api of JSON.parse(read(source, file))) {
      const server = slug(api.Name);
      for (const [name, text] of Object.entries(api.Function_Description ?? {})) {
        const [description, ...rest] = text.split("\n");
        let properties = {};
        try {
          const parameters = JSON.parse(/^Parameters: (.*)$/m.exec(rest.join("\n"))?.[1] ?? "{}");
          properties = Object.fromEntries(Object.entries(parameters).map(([p, d]) => [p, { type: "string", description: String(d) }]));
        } catch {
          // parameters that are not JSON are left out
        }
        tools.push({ server, name, description: description ?? name, inputSchema: { type: "object", properties } });
      }
      api.Instructions.forEach((query, i) => {
        const needed = [...new Set((api.Golden_Answers?.[i] ?? []).map((step) => step.Action))].filter((fn) => api.Function_Description?.[fn]);
        if (needed.length) tasks.push({ id: `${server}-${i}`, query, needed: needed.map((fn) => `${server}/${fn}`), kind: needed.length > 1 ? "multi" : "single" });
      });
    }
  }
  return { catalog: "toolalpaca", tools: parseToolCatalog({ tools }, "toolalpaca"), tasks };
}

/** Runs a catalog's tasks through the full search; returns the top-10 ids per task and, when observing, the groups. */
async function runCatalog(tools, tasks, model) {
  let current;
  const groups = [];
  const observe = (query, list) => {
    const right = new Set(current.needed ?? current.relevant);
    groups.push({ task: current.id, whole: query === current.query.slice(0, 2000), ids: list.map((c) => c.id), labels: list.map((c) => (right.has(c.id) ? 1 : 0)), x: list.map((c) => FUSION_FEATURES.map((f) => c.features[f])) });
  };
  const index = createToolIndex({ embedder, embeddingCachePath, fusion: model === undefined ? { model: null, observe } : { model } });
  await index.add(tools);
  const rankings = [];
  for (const task of tasks) {
    current = task;
    const { results } = await index.search({ query: task.query.slice(0, 2000), top_k: 10 });
    rankings.push(results.map((r) => r.id));
  }
  await index.close();
  return { rankings, groups };
}

// 1. candidates and features of every catalog (hand-weighted ranking), and its scores
const tuning = evalCatalogs()
  .map((c) => ({ ...c, sets: c.sets.filter((s) => s.role === "tuning") }))
  .filter((c) => c.sets.length > 0);
let collected = existsSync(groupsPath) && !argv.includes("--recollect") ? JSON.parse(readFileSync(groupsPath, "utf8")) : undefined;
if (!collected) {
  const sealTools = option("--seal-tools");
  const toolAlpaca = option("--toolalpaca");
  if (!sealTools || !toolAlpaca) throw new Error("usage: node scripts/fit-fusion.mjs --seal-tools <dir> --toolalpaca <dir> [options]");
  collected = { features: FUSION_FEATURES, catalogs: {} };
  for (const { catalog, tools, tasks } of [sealToolsCatalog(sealTools), toolAlpacaCatalog(toolAlpaca)]) {
    const started = Date.now();
    const { groups } = await runCatalog(tools, tasks);
    collected.catalogs[catalog] = { role: "training", groups };
    console.error(`${catalog}: ${tools.length} tools, ${tasks.length} tasks, ${groups.length} ranked queries (${Date.now() - started} ms)`);
  }
  for (const { catalog, tools, sets } of tuning) {
    const started = Date.now();
    const baseline = {};
    const groups = [];
    for (const set of sets) {
      const run = await runCatalog(tools, set.tasks);
      groups.push(...run.groups);
      const { misses, ...scores } = scoreRankings(set.tasks, run.rankings);
      baseline[set.name] = scores;
    }
    collected.catalogs[catalog] = { role: "tuning", groups, baseline };
    console.error(`${catalog}: ${groups.length} ranked queries (${Date.now() - started} ms)`);
  }
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(groupsPath, JSON.stringify(collected));
}
if (collected.features.join() !== FUSION_FEATURES.join()) throw new Error("collected features differ from FUSION_FEATURES: --recollect");

// 2. the fit: a linear score over standardised features; pairwise (each right candidate above each wrong one of its
// query) or pointwise logistic loss; each catalog weighs the same (the training catalogs times --external-weight),
// each query the same within it
function selectGroups(list) {
  if (groupKind === "whole") return list.filter((g) => g.whole);
  if (groupKind === "single") return list.filter((g) => g.whole && list.filter((other) => other.task === g.task).length === 1 && g.labels.filter(Boolean).length <= 1);
  if (groupKind !== "assigned" && groupKind !== "step-assigned") return list;
  // a needed tool is right in the list (the request's or a step's; step-assigned: a step's) that ranks it best
  const best = new Map();
  for (const g of list) {
    if (groupKind === "step-assigned" && g.whole) continue;
    g.ids.forEach((id, rank) => {
      if (!g.labels[rank]) return;
      const key = `${g.task}\0${id}`;
      if (!best.has(key) || best.get(key).rank > rank) best.set(key, { group: g, rank });
    });
  }
  return list.map((g) =>
    groupKind === "step-assigned" && g.whole ? g : { ...g, labels: g.labels.map((label, rank) => (label && best.get(`${g.task}\0${g.ids[rank]}`).group === g ? 1 : 0)) },
  );
}
const useFeature = FUSION_FEATURES.map((f) => !dropped.has(f));
function fit(catalogNames) {
  const groups = catalogNames.flatMap((name) => {
    const { role } = collected.catalogs[name];
    const list = selectGroups(collected.catalogs[name].groups);
    const usable = list.map((g) => ({ ...g, x: g.x.slice(0, candidates), labels: g.labels.slice(0, candidates) })).filter((g) => g.labels.includes(1) && g.labels.includes(0));
    const weight = (role === "training" ? externalWeight : 1) / Math.max(1, usable.length);
    return weight > 0 ? usable.map((g) => ({ ...g, weight })) : [];
  });
  const d = FUSION_FEATURES.length;
  const rows = groups.flatMap((g) => g.x);
  const mean = FUSION_FEATURES.map((_, j) => rows.reduce((s, r) => s + r[j], 0) / rows.length);
  const scale = FUSION_FEATURES.map((_, j) => Math.sqrt(rows.reduce((s, r) => s + (r[j] - mean[j]) ** 2, 0) / rows.length) || 1);
  const z = (row) => row.map((v, j) => (useFeature[j] ? (v - mean[j]) / scale[j] : 0));
  const prepared = groups.map((g) => ({ weight: g.weight, labels: g.labels, x: g.x.map(z) }));
  const total = prepared.reduce((s, g) => s + g.weight, 0);
  const w = new Array(d).fill(0);
  w[FUSION_FEATURES.indexOf("score")] = 1; // start from the hand-weighted order
  const prior = anchored ? [...w] : new Array(d).fill(0);
  let bias = 0;
  // Adam on the full batch
  const m = new Array(d + 1).fill(0);
  const v = new Array(d + 1).fill(0);
  const dot = (x) => x.reduce((s, xj, j) => s + xj * w[j], 0);
  for (let step = 1; step <= 400; step++) {
    const grad = new Array(d + 1).fill(0);
    for (const g of prepared) {
      const s = g.x.map(dot);
      if (loss === "pairwise") {
        const pos = [];
        const neg = [];
        g.labels.forEach((label, i) => (label ? pos : neg).push(i));
        const pairWeight = g.weight / (pos.length * neg.length) / total;
        for (const p of pos) {
          for (const n of neg) {
            const sigma = 1 / (1 + Math.exp(s[p] - s[n]));
            for (let j = 0; j < d; j++) grad[j] -= pairWeight * sigma * (g.x[p][j] - g.x[n][j]);
          }
        }
      } else {
        const rowWeight = g.weight / g.labels.length / total;
        g.labels.forEach((label, i) => {
          const r = 1 / (1 + Math.exp(-(s[i] + bias))) - label;
          for (let j = 0; j < d; j++) grad[j] += rowWeight * r * g.x[i][j];
          grad[d] += rowWeight * r;
        });
      }
    }
    for (let j = 0; j < d; j++) grad[j] += l2 * (w[j] - prior[j]);
    for (let j = 0; j <= d; j++) {
      m[j] = 0.9 * m[j] + 0.1 * grad[j];
      v[j] = 0.999 * v[j] + 0.001 * grad[j] ** 2;
      const update = (0.05 * (m[j] / (1 - 0.9 ** step))) / (Math.sqrt(v[j] / (1 - 0.999 ** step)) + 1e-8);
      if (j < d) w[j] = useFeature[j] ? w[j] - update : 0;
      else bias -= update;
    }
  }
  const round = (x) => Math.round(x * 1e4) / 1e4;
  return { features: [...FUSION_FEATURES], mean: mean.map(round), scale: scale.map(round), weights: w.map(round), candidates };
}

// 3. leave one tuning catalog out: fit on the rest, search the left-out catalog with the model
const names = Object.keys(collected.catalogs);
console.log(`\nloss ${loss}, l2 ${l2}${anchored ? " toward the hand-weighted score" : ""}, candidates ${candidates}, groups ${groupKind}, external weight ${externalWeight}${dropped.size ? `, without ${[...dropped].join(",")}` : ""}\n`);
console.log("| catalog | set | top-1 | hit@5 | needed@5 | MRR |\n| --- | --- | --- | --- | --- | --- |");
const cell = (before, after, key) => (key === "mrr" ? `${before.toFixed(3)} → ${after.toFixed(3)}` : `${pct(before)} → ${pct(after)}`);
for (const { catalog, tools, sets } of tuning) {
  if (!collected.catalogs[catalog]) continue;
  const model = fit(names.filter((name) => name !== catalog));
  for (const set of sets) {
    const { rankings } = await runCatalog(tools, set.tasks, model);
    const { misses, ...after } = scoreRankings(set.tasks, rankings);
    const before = collected.catalogs[catalog].baseline[set.name];
    console.log(`| ${catalog} | ${set.name} (${set.tasks.length}) | ${cell(before.top1, after.top1)} | ${cell(before.recall5, after.recall5)} | ${cell(before.needed5, after.needed5)} | ${cell(before.mrr, after.mrr, "mrr")} |`);
  }
}
const full = fit(names);
console.log(`\nmodel fitted on every catalog:\n${FUSION_FEATURES.map((f, j) => `  ${f}: ${full.weights[j]}`).join("\n")}`);
if (write) {
  writeFileSync(resolve(packageRoot, write), `${JSON.stringify(full, null, 2)}\n`);
  console.log(`→ ${write}`);
}
