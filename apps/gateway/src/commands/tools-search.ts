import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { SearchModeSchema, SearchToolsInputSchema, formatZodError, type SearchMode } from "@afw/contracts";
import { createCachingEmbedder, createUseEmbedder } from "@afw/embeddings";
import { createToolIndex, loadToolCatalogFile } from "@afw/tool-zoo";
import { answerJsonLines } from "../json-lines.js";
import type { CommandIo } from "./io.js";

/** Options of `afw tools search`. */
export interface ToolsSearchOptions {
  catalog: string;
  mode: string;
  topK: number;
  embeddingCache?: string | undefined;
}

/** `afw tools search --catalog FILE [--mode hybrid] [--top-k K]`: indexes the catalog, then answers JSON lines
 * `{"id","query"}` from stdin with `{"id","results":["server/name", ...]}`. */
export async function toolsSearchCommand(options: ToolsSearchOptions, io: CommandIo): Promise<number> {
  const mode = SearchModeSchema.safeParse(options.mode);
  if (!mode.success) return io.fail(`--mode must be one of keyword, semantic, hybrid (got '${options.mode}')`);
  if (!Number.isInteger(options.topK) || options.topK < 1 || options.topK > 50) return io.fail("--top-k must be an integer from 1 to 50");
  if (!existsSync(options.catalog)) return io.fail(`catalog file not found: ${options.catalog}`);
  const tools = loadToolCatalogFile(options.catalog);
  const embedder = mode.data === "keyword" ? undefined : createCachingEmbedder(createUseEmbedder());
  const index = createToolIndex({
    ...(embedder ? { embedder } : {}),
    // Default: `$XDG_CACHE_HOME/afw/tool-embeddings.json` (`~/.cache/afw/...`).
    embeddingCachePath: options.embeddingCache ?? join(process.env["XDG_CACHE_HOME"] || join(homedir(), ".cache"), "afw", "tool-embeddings.json"),
  });
  await index.add(tools);
  io.log(`indexed ${tools.length} tools from ${options.catalog} (mode ${mode.data})`);
  await answerJsonLines(io.stdin, io.stdout, async (value) => {
    const input = SearchToolsInputSchema.safeParse({ query: value["query"], top_k: options.topK, mode: mode.data as SearchMode });
    if (!input.success) throw new Error(formatZodError(input.error));
    return { results: (await index.search(input.data)).results.map((hit) => hit.id) };
  });
  return 0;
}
