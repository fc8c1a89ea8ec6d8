#!/usr/bin/env node
// Records the Universal Sentence Encoder vectors of every embedding view of the shared tool
// catalog into src/__fixtures__/tool-vectors.use-lite-512.json (int8-quantised), so the quality
// test runs the real model only on the queries. Re-run after changing how tool views are built:
//   pnpm --filter @afw/tool-zoo build && node scripts/record-tool-vectors.mjs
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { createUseEmbedder } from "@afw/embeddings";
import { buildToolDocument, createTextAnalyzer, loadToolCatalogFile, openEmbeddingCache } from "../dist/internal.js";
import { embeddingCachePath, packageRoot, sharedDataDir } from "./eval-lib.mjs";

const dataDir = sharedDataDir();
if (!dataDir) throw new Error("tools-catalog.json not found: set AFW_SHARED_DATA");
const tools = loadToolCatalogFile(resolve(dataDir, "tools-catalog.json"));
const analyzer = createTextAnalyzer();
const texts = [...new Set(tools.flatMap((tool) => buildToolDocument(tool, analyzer).views))];
const embedder = createUseEmbedder();
const cache = await openEmbeddingCache(embedder, embeddingCachePath);
const vectors = await cache.embedAll(texts);
await cache.flush();
// per-vector scale: int8 = round(x * 127 / max|x|)
const entries = texts.map((text, i) => {
  const vector = vectors[i];
  const max = vector.reduce((m, x) => Math.max(m, Math.abs(x)), 1e-9);
  const quantised = Int8Array.from(vector, (x) => Math.round((x * 127) / max));
  return [text, max / 127, Buffer.from(quantised.buffer).toString("base64")];
});
const out = resolve(packageRoot, "src/__fixtures__/tool-vectors.use-lite-512.json");
writeFileSync(out, JSON.stringify({ embedderId: embedder.id, dimensions: embedder.dimensions, format: "[text, scale, base64 int8]", entries }) + "\n");
console.log(`wrote ${entries.length} vectors to ${out}`);
