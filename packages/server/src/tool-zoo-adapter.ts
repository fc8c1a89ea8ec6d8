import type { Embedder, TraceSink } from "@afw/contracts";
import { createHashingEmbedder, createUseEmbedder } from "@afw/embeddings";
import { createToolIndex, loadToolCatalogFile } from "@afw/tool-zoo";
import type { ToolsConfig } from "./config-schema.js";
import type { ToolSearchPort } from "./ports.js";
import { newTraceContext } from "./trace-context.js";

/**
 * Builds the `search_tools` index from configuration with `@afw/tool-zoo`: indexes every catalog
 * file of `tools.catalogs`, with the configured embedder (`none` = keyword only, `hashing`, or
 * `use` = the offline Universal Sentence Encoder) and low-confidence fallback set.
 *
 * @throws AfwError `CONFIG_INVALID` when a catalog cannot be read or is invalid.
 */
export async function createToolSearchFromConfig(tools: ToolsConfig, options: { sink?: TraceSink; embedder?: Embedder } = {}): Promise<ToolSearchPort> {
  const embedder = options.embedder ?? (tools.embedder === "use" ? createUseEmbedder() : tools.embedder === "hashing" ? createHashingEmbedder() : undefined);
  const index = createToolIndex({
    ...(embedder ? { embedder } : {}),
    confidence: {
      ...(tools.confidenceThreshold === undefined ? {} : { threshold: tools.confidenceThreshold }),
      fallbackToolIds: tools.fallbackToolIds,
    },
    ...(options.sink ? { trace: newTraceContext(options.sink, { requestId: "tool-index" }) } : {}),
  });
  for (const file of tools.catalogs) await index.add(loadToolCatalogFile(file));
  return index;
}
