import { createCachingEmbedder, createUseEmbedder } from "@afw/embeddings";
import { createToolIndex, loadToolCatalogFile, parseToolCatalog } from "../dist/internal.js";
import { embeddingCachePath, packageRoot } from "./eval-lib.mjs";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
const [catalog, file] = process.argv.slice(2);
let tools, tasks;
if (catalog === "dev") { tools = loadToolCatalogFile("/work/shared/data/tools-catalog.json"); tasks = JSON.parse(readFileSync(resolve(packageRoot, "scripts", file))).tasks; }
else { const c = JSON.parse(readFileSync(`/work/afw-data/tool-eval/${catalog}.json`)); tools = parseToolCatalog({ tools: c.tools }, catalog); tasks = c.tasks.filter((t) => t.kind === "multi"); }
const index = createToolIndex({ embedder: createCachingEmbedder(createUseEmbedder()), embeddingCachePath });
await index.add(tools);
for (const t of tasks) {
  const need = t.needed ?? t.relevant;
  const r = await index.search({ query: t.query, top_k: 10 });
  const top = r.results.map((h) => h.id);
  const missing = need.filter((id) => !top.slice(0, 5).includes(id));
  if (!missing.length) continue;
  console.log(`${t.id}: ${t.query}\n  steps: ${JSON.stringify(r.steps ?? null)}\n  top5: ${r.results.slice(0,5).map((h) => `${h.id}${h.step!==undefined?"@"+h.step:""}`).join(", ")}\n  missing: ${missing.map((m) => `${m}[${top.indexOf(m) + 1 || "-"}]`).join(", ")}`);
}
