// Prints the score components of the best tools for each query given on the command line:
//   node scripts/explain.mjs "squash-merge PR 88 in my-org/api"
import { resolve } from "node:path";
import { createCachingEmbedder, createUseEmbedder } from "@afw/embeddings";
import { createToolIndex, loadToolCatalogFile, splitQuotedContent, createTextAnalyzer } from "../dist/internal.js";
import { embeddingCachePath, sharedDataDir } from "./eval-lib.mjs";
const tools = loadToolCatalogFile(resolve(sharedDataDir(), "tools-catalog.json"));
const index = createToolIndex({ embedder: createCachingEmbedder(createUseEmbedder()), embeddingCachePath });
await index.add(tools);
const a = createTextAnalyzer();
for (const q of process.argv.slice(2)) {
  const r = await index.rank(q);
  const p = splitQuotedContent(q);
  console.log(`\n# ${q}\n  intent: ${p.intent} | terms ${JSON.stringify(a.queryTerms(p.intent).map(t=>t.term+(t.weight<1?'~':'')))} | domains ${JSON.stringify([...r.domains])}`);
  for (const t of r.tools.slice(0, 6)) console.log(`  ${t.score.toFixed(3)} kw ${t.keyword.toFixed(3)} sem ${t.semantic.toFixed(3)} dom ${t.domain.toFixed(2)} ${t.id}`);
}
