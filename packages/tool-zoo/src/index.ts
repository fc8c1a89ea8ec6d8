/**
 * `@afw/tool-zoo`: hybrid (BM25F + vector) search over MCP tools and a workflow catalog, with
 * in-process and Chroma vector stores.
 *
 * @packageDocumentation
 */
export {
  createToolIndex,
  type ToolIndex,
  type ToolIndexOptions,
  type ToolBundle,
  type FusionSettings,
  type RankedTool,
  type RankOptions,
  type Ranking,
  type ToolSearchInput,
} from "./tool-index.js";
export type { ServerInfo } from "./domain-detector.js";
export { parseToolCatalog, loadToolCatalogFile } from "./tool-catalog.js";
export { affordanceSummary, buildToolDocument, type ToolDocument } from "./tool-document.js";
export { Bm25Index } from "./bm25.js";
export {
  createTextAnalyzer,
  type TextAnalyzer,
  type TextAnalyzerOptions,
} from "./text-analysis.js";
export { splitQuotedContent, type QueryParts } from "./query-text.js";
export { createInMemoryUsageStore, type ToolUsageStore, type ToolUsageRecord, type InMemoryUsageStoreOptions } from "./usage-store.js";
export { openEmbeddingCache, type EmbeddingCache, type EmbeddingCacheStore } from "./embedding-cache.js";
export {
  type VectorStore,
  type VectorRecord,
  type VectorQuery,
  type VectorMatch,
  type VectorMetadata,
  type MetadataValue,
  type MetadataFilter,
  type MetadataCondition,
} from "./vector-store.js";
export { createInMemoryVectorStore } from "./in-memory-vector-store.js";
export { createChromaVectorStore, type ChromaVectorStoreOptions } from "./chroma-vector-store.js";
export {
  createWorkflowCatalog,
  type WorkflowCatalog,
  type WorkflowCatalogOptions,
  type WorkflowSearchInput,
  type WorkflowSearchResponse,
  type RecognizedQuery,
} from "./workflow-catalog.js";
export { loadWorkflowCatalog, parseWorkflowCatalog, exampleCatalogDir } from "./workflow-loader.js";
