import { AfwError, type Embedder, type TraceSink } from "@afw/contracts";
import { createCachingEmbedder, createHashingEmbedder, createUseEmbedder } from "@afw/embeddings";
import { createChromaVectorStore, createToolIndex, createWorkflowCatalog, loadToolCatalogFile, loadWorkflowCatalog, type ToolIndex, type WorkflowCatalog } from "@afw/tool-zoo";
import type { GatewayConfig, ToolsConfig, WorkflowsConfig } from "./config-schema.js";
import type { WorkflowCatalogPort } from "./ports.js";
import { newTraceContext } from "./trace-context.js";

/** The embedder named by `tools.embedder` (`none` gives undefined: keyword search only). */
export function embedderFromConfig(kind: ToolsConfig["embedder"]): Embedder | undefined {
  if (kind === "use") return createCachingEmbedder(createUseEmbedder());
  if (kind === "hashing") return createCachingEmbedder(createHashingEmbedder());
  return undefined;
}

/**
 * Builds the `search_tools` index with `@afw/tool-zoo`: indexes every catalog file of
 * `tools.catalogs` with the given embedder (none = keyword only) and the low-confidence fallback set.
 * With `chroma` (the gateway's `chroma` section), the vectors live in that Chroma server's
 * `<collectionPrefix>-tools` collection (embeddings are always computed here and passed
 * explicitly); otherwise in the in-process store.
 *
 * @throws AfwError `CONFIG_INVALID` when a catalog cannot be read or is invalid.
 */
export async function createToolSearchFromConfig(
  tools: ToolsConfig,
  options: { sink?: TraceSink; embedder?: Embedder; chroma?: GatewayConfig["chroma"] } = {},
): Promise<ToolIndex> {
  const index = createToolIndex({
    ...(options.embedder ? { embedder: options.embedder } : {}),
    ...(options.chroma ? { store: await createChromaVectorStore({ url: options.chroma.url, collection: `${options.chroma.collectionPrefix}-tools` }) } : {}),
    confidence: {
      ...(tools.confidenceThreshold === undefined ? {} : { threshold: tools.confidenceThreshold }),
      fallbackToolIds: tools.fallbackToolIds,
    },
    ...(options.sink ? { trace: newTraceContext(options.sink, { requestId: "tool-index" }) } : {}),
  });
  for (const file of tools.catalogs) await index.add(loadToolCatalogFile(file));
  return index;
}

/** Adapts a `@afw/tool-zoo` {@link WorkflowCatalog} to the server's {@link WorkflowCatalogPort}. */
export function workflowCatalogPort(catalog: WorkflowCatalog): WorkflowCatalogPort {
  return {
    get size() {
      return catalog.size;
    },
    async search(input, options) {
      const response = await catalog.searchWorkflowCatalog(input, options);
      return { results: response.results, ...(response.degraded ? { degraded: true } : {}) };
    },
    async get(input) {
      try {
        return catalog.getPlaybookDetails(input);
      } catch (error) {
        if (AfwError.isInstance(error) && error.code === "NOT_FOUND") return undefined;
        throw error;
      }
    },
  };
}

/**
 * Builds the workflow catalog with `@afw/tool-zoo` from `workflows.catalogs` (files or
 * directories of JSON/YAML playbooks).
 *
 * @throws AfwError `CONFIG_INVALID` when a catalog cannot be read or a workflow is invalid.
 */
export async function createWorkflowCatalogFromConfig(workflows: WorkflowsConfig, options: { sink?: TraceSink; embedder?: Embedder } = {}): Promise<WorkflowCatalogPort> {
  const catalog = await createWorkflowCatalog({
    ...(options.embedder ? { embedder: options.embedder } : {}),
    ...(options.sink ? { trace: newTraceContext(options.sink, { requestId: "workflow-catalog" }) } : {}),
  });
  if (workflows.catalogs.length > 0) await catalog.add(loadWorkflowCatalog(workflows.catalogs));
  return workflowCatalogPort(catalog);
}
