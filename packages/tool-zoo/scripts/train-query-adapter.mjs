#!/usr/bin/env node
// Fits a low-rank linear map of request vectors (u = q + U·Vᵀ·q) so that a request's vector points at the vectors
// of the tools it needs, on public tool-retrieval training data (none of the evaluation sets): Seal-Tools' requests
// over its 4,076 tools and ToolAlpaca's over its 115 functions. Writes src/query-adapter.json, read by the tool
// index when its embedder is the one the adapter was fitted for (docs/decisions/2026-11-29-tool-search-query-adapter.md).
//   pnpm --filter @afw/tool-zoo build
//   node scripts/train-query-adapter.mjs --seal-tools <fairyshine/Seal-Tools checkout or git dir> \
//     --toolalpaca <tangqiaoyu/ToolAlpaca checkout or git dir> [--rank 32] [--epochs 12] [--out file]
// Validation (the choice of epochs): Seal-Tools' `test_out_domain` requests, whose tools are of other fields than the
// training requests'. Deterministic for the same inputs (seeded initialisation and order).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createUseEmbedder } from "@afw/embeddings";
import { buildToolDocument, createTextAnalyzer, openEmbeddingCache, parseToolCatalog, splitQuotedContent } from "../dist/internal.js";
import { packageRoot } from "./eval-lib.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const sealTools = option("--seal-tools");
const toolAlpaca = option("--toolalpaca");
const out = option("--out", resolve(packageRoot, "src/query-adapter.json"));
const RANK = Number(option("--rank", "32"));
const EPOCHS = Number(option("--epochs", "12"));
const LEARNING_RATE = Number(option("--lr", "0.002"));
const DECAY = Number(option("--decay", "0.0001"));
const TEMPERATURE = Number(option("--temperature", "0.05"));
const cachePath = option("--cache", resolve(packageRoot, "node_modules/.cache/afw-tool-zoo/adapter-vectors.json"));
if (!sealTools || !toolAlpaca) {
  console.error("usage: node scripts/train-query-adapter.mjs --seal-tools <dir> --toolalpaca <dir> [--rank N] [--epochs N] [--out file]");
  process.exit(1);
}

const read = (source, path) =>
  existsSync(join(source, path)) ? readFileSync(join(source, path), "utf8") : execFileSync("git", ["-C", source, "show", `HEAD:${path}`], { encoding: "utf8", maxBuffer: 64 << 20 });
const commitOf = (source) => execFileSync("git", ["-C", source, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
const jsonl = (text) => text.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
const schemaType = (type) => ({ str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object" })[type] ?? "string";

/** Catalogs: tools as the index reads them, and requests with the indices of the tools they need. */
const catalogs = [];
{
  const raw = jsonl(read(sealTools, "Seal-Tools_Dataset/tool.jsonl"));
  const tools = parseToolCatalog({
    tools: raw.map((t) => ({
      server: (t.field ?? "general").split("/")[0].trim() || "general",
      name: t.api_name,
      description: t.api_description ?? "",
      inputSchema: {
        type: "object",
        properties: Object.fromEntries(Object.entries(t.parameters ?? {}).map(([name, p]) => [name, { type: schemaType(p.type), description: p.description ?? "" }])),
        required: t.required ?? [],
      },
    })),
  });
  const indexOf = new Map(tools.map((t, i) => [t.name, i]));
  const requests = (split) =>
    jsonl(read(sealTools, `Seal-Tools_Dataset/${split}.jsonl`))
      .map((item) => ({ query: item.query, needed: [...new Set(item.calling.map((c) => indexOf.get(c.api)).filter((i) => i !== undefined))] }))
      .filter((r) => r.needed.length);
  catalogs.push({ name: "seal-tools", tools, train: [...requests("dev"), ...requests("test_in_domain")], validation: requests("test_out_domain") });
}
{
  const tools = [];
  const train = [];
  for (const file of ["data/eval_real.json", "data/eval_simulated.json"]) {
    for (const api of JSON.parse(read(toolAlpaca, file))) {
      const functions = api.Function_Description ?? {};
      const server = api.Name.replace(/[^A-Za-z0-9]+/g, "-").toLowerCase();
      const first = tools.length;
      for (const [name, text] of Object.entries(functions)) {
        const [description, parameterLine] = String(text).split("\nParameters: ");
        let properties = {};
        try {
          properties = Object.fromEntries(Object.entries(JSON.parse((parameterLine ?? "{}").split("\n")[0])).map(([p, d]) => [p, { type: "string", description: String(d) }]));
        } catch {}
        tools.push({ server, name, description: description.trim(), inputSchema: { type: "object", properties } });
      }
      const local = new Map(tools.slice(first).map((t, i) => [t.name, first + i]));
      api.Instructions.forEach((query, i) => {
        const needed = [...new Set((api.Golden_Answers?.[i] ?? []).map((step) => local.get(step.Action)).filter((x) => x !== undefined))];
        if (needed.length) train.push({ query, needed });
      });
    }
  }
  catalogs.push({ name: "toolalpaca", tools: parseToolCatalog({ tools }), train, validation: [] });
}

// Vectors: a tool's is the normalised mean of its views' (as the index stores it); a request's embeds its intent part.
const embedder = createUseEmbedder();
mkdirSync(dirname(cachePath), { recursive: true });
const cache = await openEmbeddingCache(embedder, cachePath);
const unit = (v) => {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  const s = n > 0 ? 1 / Math.sqrt(n) : 0;
  return Float32Array.from(v, (x) => x * s);
};
const analyzer = createTextAnalyzer();
for (const catalog of catalogs) {
  const documents = catalog.tools.map((t) => buildToolDocument(t, analyzer));
  const viewVectors = await cache.embedAll(documents.flatMap((d) => d.views));
  catalog.toolVectors = documents.map((d, i) => {
    const mean = new Float32Array(viewVectors[0].length);
    for (const v of viewVectors.slice(2 * i, 2 * i + 2).map(unit)) for (let k = 0; k < v.length; k++) mean[k] += v[k];
    return unit(mean);
  });
  for (const requests of [catalog.train, catalog.validation]) {
    const vectors = await cache.embedAll(requests.map((r) => splitQuotedContent(r.query).intent || r.query));
    requests.forEach((r, i) => (r.vector = vectors[i]));
  }
  await cache.flush();
  console.error(`${catalog.name}: ${catalog.tools.length} tools, ${catalog.train.length} training requests, ${catalog.validation.length} validation`);
}
const DIM = catalogs[0].toolVectors[0].length;

// The adapter: u = q + U (Vᵀ q); U starts at zero (the identity map), V small and random (seeded).
let seed = 42;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const U = new Float64Array(DIM * RANK);
const V = Float64Array.from({ length: DIM * RANK }, () => (random() - 0.5) * 0.1);
const apply = (q, u = new Float64Array(DIM), h = new Float64Array(RANK)) => {
  h.fill(0);
  for (let i = 0; i < DIM; i++) {
    const qi = q[i];
    if (qi === 0) continue;
    for (let r = 0; r < RANK; r++) h[r] += V[i * RANK + r] * qi;
  }
  for (let i = 0; i < DIM; i++) {
    let s = q[i];
    for (let r = 0; r < RANK; r++) s += U[i * RANK + r] * h[r];
    u[i] = s;
  }
  return { u, h };
};
const scoresOf = (catalog, u) => {
  let n = 0;
  for (let i = 0; i < DIM; i++) n += u[i] * u[i];
  const s = 1 / Math.sqrt(n);
  return catalog.toolVectors.map((t) => {
    let d = 0;
    for (let i = 0; i < DIM; i++) d += t[i] * u[i];
    return d * s;
  });
};
/** Mean reciprocal rank of the first needed tool and recall@5 of needed tools. */
const evaluate = (catalog, requests, adapted) => {
  let mrr = 0;
  let recall = 0;
  let top1 = 0;
  for (const r of requests) {
    const scores = scoresOf(catalog, adapted ? apply(r.vector).u : r.vector);
    const order = scores.map((s, i) => [s, i]).sort((a, b) => b[0] - a[0]).map(([, i]) => i);
    const needed = new Set(r.needed);
    const first = order.findIndex((i) => needed.has(i));
    mrr += 1 / (first + 1);
    top1 += first === 0 ? 1 : 0;
    recall += order.slice(0, 5).filter((i) => needed.has(i)).length / Math.min(5, needed.size);
  }
  const n = requests.length || 1;
  return { mrr: mrr / n, top1: top1 / n, recall5: recall / n };
};
const fmt = (m) => `top-1 ${(100 * m.top1).toFixed(1)} recall@5 ${(100 * m.recall5).toFixed(1)} MRR ${m.mrr.toFixed(3)}`;
const seal = catalogs[0];
console.error(`before: validation ${fmt(evaluate(seal, seal.validation, false))}; training (seal) ${fmt(evaluate(seal, seal.train, false))}`);

// Training: softmax over the request's whole catalog (cosine / temperature), loss = mean over needed tools of -log p;
// Adam, L2 decay on U and V.
const examples = catalogs.flatMap((c) => c.train.map((r) => ({ catalog: c, request: r })));
const adam = (size) => ({ m: new Float64Array(size), v: new Float64Array(size) });
const state = { U: adam(U.length), V: adam(V.length) };
let step = 0;
const gU = new Float64Array(U.length);
const gV = new Float64Array(V.length);
const BATCH = 32;
let best = { mrr: -1 };
let bestWeights = null;
for (let epoch = 1; epoch <= EPOCHS; epoch++) {
  for (let i = examples.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [examples[i], examples[j]] = [examples[j], examples[i]];
  }
  let loss = 0;
  for (let b = 0; b < examples.length; b += BATCH) {
    gU.fill(0);
    gV.fill(0);
    const batch = examples.slice(b, b + BATCH);
    for (const { catalog, request } of batch) {
      const q = request.vector;
      const { u, h } = apply(q);
      let n = 0;
      for (let i = 0; i < DIM; i++) n += u[i] * u[i];
      const norm = Math.sqrt(n);
      const un = u.map((x) => x / norm);
      const logits = catalog.toolVectors.map((t) => {
        let d = 0;
        for (let i = 0; i < DIM; i++) d += t[i] * un[i];
        return d / TEMPERATURE;
      });
      const max = Math.max(...logits);
      const exps = logits.map((l) => Math.exp(l - max));
      const z = exps.reduce((a, x) => a + x, 0);
      const target = 1 / request.needed.length;
      for (const k of request.needed) loss -= target * (logits[k] - max - Math.log(z));
      // d loss / d un = Σ_j (p_j - y_j) t_j / T
      const gun = new Float64Array(DIM);
      exps.forEach((e, j) => {
        const coef = e / z / TEMPERATURE;
        const t = catalog.toolVectors[j];
        for (let i = 0; i < DIM; i++) gun[i] += coef * t[i];
      });
      for (const k of request.needed) {
        const t = catalog.toolVectors[k];
        for (let i = 0; i < DIM; i++) gun[i] -= (target / TEMPERATURE) * t[i];
      }
      // through the normalisation: gu = (gun - un (un·gun)) / |u|
      let dot = 0;
      for (let i = 0; i < DIM; i++) dot += un[i] * gun[i];
      const gu = gun.map((g, i) => (g - un[i] * dot) / norm);
      // u = q + U h, h = Vᵀ q
      const Utg = new Float64Array(RANK);
      for (let i = 0; i < DIM; i++) {
        const g = gu[i];
        for (let r = 0; r < RANK; r++) {
          gU[i * RANK + r] += g * h[r];
          Utg[r] += U[i * RANK + r] * g;
        }
      }
      for (let i = 0; i < DIM; i++) {
        const qi = q[i];
        if (qi === 0) continue;
        for (let r = 0; r < RANK; r++) gV[i * RANK + r] += qi * Utg[r];
      }
    }
    step++;
    for (const [W, g, s] of [[U, gU, state.U], [V, gV, state.V]]) {
      for (let i = 0; i < W.length; i++) {
        const grad = g[i] / batch.length + DECAY * W[i];
        s.m[i] = 0.9 * s.m[i] + 0.1 * grad;
        s.v[i] = 0.999 * s.v[i] + 0.001 * grad * grad;
        const mh = s.m[i] / (1 - 0.9 ** step);
        const vh = s.v[i] / (1 - 0.999 ** step);
        W[i] -= (LEARNING_RATE * mh) / (Math.sqrt(vh) + 1e-8);
      }
    }
  }
  const validation = evaluate(seal, seal.validation, true);
  console.error(`epoch ${epoch}: loss ${(loss / examples.length).toFixed(3)}; validation ${fmt(validation)}`);
  if (validation.mrr > best.mrr) {
    best = { ...validation, epoch };
    bestWeights = { U: Float64Array.from(U), V: Float64Array.from(V) };
  }
}
console.error(`kept epoch ${best.epoch}: validation ${fmt(best)}`);

// int8 with one scale per matrix row keeps the file small; the map is applied in float.
const quantise = (W) => {
  const rows = [];
  for (let i = 0; i < DIM; i++) {
    const row = W.slice(i * RANK, (i + 1) * RANK);
    const scale = Math.max(...row.map(Math.abs)) / 127 || 1;
    rows.push({ scale: Number(scale.toPrecision(6)), values: Buffer.from(Int8Array.from(row, (x) => Math.round(x / scale)).buffer).toString("base64") });
  }
  return rows;
};
const file = {
  description:
    "Low-rank map of request vectors of the tool index (u = q + U Vᵀ q), fitted by scripts/train-query-adapter.mjs on Seal-Tools and ToolAlpaca requests; see docs/decisions/2026-11-29-tool-search-query-adapter.md",
  embedder: embedder.id,
  dimensions: DIM,
  rank: RANK,
  sources: { "fairyshine/Seal-Tools": commitOf(sealTools), "tangqiaoyu/ToolAlpaca": commitOf(toolAlpaca) },
  settings: { epochs: EPOCHS, keptEpoch: best.epoch, learningRate: LEARNING_RATE, decay: DECAY, temperature: TEMPERATURE, batch: BATCH },
  validation: { top1: Number(best.top1.toFixed(4)), recall5: Number(best.recall5.toFixed(4)), mrr: Number(best.mrr.toFixed(4)) },
  U: quantise(bestWeights.U),
  V: quantise(bestWeights.V),
};
writeFileSync(out, `${JSON.stringify(file)}\n`);
console.error(`wrote ${out}`);
