/**
 * `@afw/tool-zoo`: hybrid (BM25F + vector) search over MCP tools and a workflow catalog, with
 * in-process and Chroma vector stores.
 *
 * @packageDocumentation
 */
export { createToolIndex, type ToolIndex, type Ranking } from "./tool-index.js";
export type { ServerInfo } from "./domain-detector.js";
export { parseToolCatalog, loadToolCatalogFile } from "./tool-catalog.js";
export { affordanceSummary, buildToolDocument } from "./tool-document.js";
export { Bm25Index } from "./bm25.js";
export { createTextAnalyzer } from "./text-analysis.js";
export { splitQuotedContent } from "./query-text.js";
export { createInMemoryUsageStore, type ToolUsageStore } from "./usage-store.js";
export { openEmbeddingCache, type EmbeddingCacheStore } from "./embedding-cache.js";
export { type VectorStore } from "./vector-store.js";
export { createInMemoryVectorStore } from "./in-memory-vector-store.js";
export { createChromaVectorStore } from "./chroma-vector-store.js";
export { createWorkflowCatalog, type WorkflowCatalog } from "./workflow-catalog.js";
export { loadWorkflowCatalog, exampleCatalogDir } from "./workflow-loader.js";
// Types (and schemas) of the signatures above.
export { type Bm25Hit, type Bm25Options } from "./bm25.js";
export { type ChromaVectorStoreOptions } from "./chroma-vector-store.js";
export { type EmbeddingCache } from "./embedding-cache.js";
export { type QueryParts } from "./query-text.js";
export { type TextAnalyzer, type TextAnalyzerOptions, type WeightedTerm } from "./text-analysis.js";
export { type ToolDocument } from "./tool-document.js";
export { type RankOptions, type RankedTool, type ToolBundle, type ToolIndexOptions } from "./tool-index-options.js";
export { type InMemoryUsageStoreOptions, type ToolUsageRecord } from "./usage-store.js";
export { type MetadataFilter, type VectorMatch, type VectorQuery, type VectorRecord } from "./vector-store.js";
export { type WorkflowCatalogOptions, type WorkflowSearchResponse } from "./workflow-catalog.js";
export { type Bm25FieldSettings } from "./bm25.js";
export { type DomainDetectorOptions } from "./domain-detector.js";
export { type ToolField } from "./tool-document.js";
export { type FusionSettings } from "./tool-index-options.js";
export { type MetadataCondition, type MetadataValue, type VectorMetadata } from "./vector-store.js";
export { type RecognizedQuery } from "./workflow-catalog.js";
