/**
 * `@afw/tool-zoo`: hybrid (BM25F + vector) search over MCP tools and a workflow catalog, with
 * in-process and Chroma vector stores.
 *
 * @packageDocumentation
 */
export {
  createToolIndex,
  toolFilter,
  DEFAULT_FIELD_WEIGHTS,
  ACTION_CLASSES,
  type ToolIndex,
  type ToolIndexOptions,
  type ToolBundle,
  type FusionSettings,
  type RankedTool,
  type RankOptions,
  type Ranking,
  type ToolSearchInput,
} from "./tool-index.js";
export { parseToolCatalog, loadToolCatalogFile } from "./tool-catalog.js";
export { affordanceSummary, buildToolDocument, withoutDocstringSections, toolParameters, toolNameWords, type ToolDocument, type ToolField, type ToolParameter } from "./tool-document.js";
export { Bm25Index, type Bm25Hit, type Bm25Options, type Bm25FieldSettings } from "./bm25.js";
export { reciprocalRankFusion, weightedScoreFusion, normalizeScores, type RankedList } from "./fusion.js";
export {
  createTextAnalyzer,
  splitIdentifier,
  stripMarkdown,
  firstSentence,
  words,
  STOP_WORDS,
  DEFAULT_ABBREVIATIONS,
  DEFAULT_SYNONYM_GROUPS,
  type TextAnalyzer,
  type TextAnalyzerOptions,
  type WeightedTerm,
} from "./text-analysis.js";
export { porterStem } from "./porter-stemmer.js";
export { splitQuotedContent, type QueryParts } from "./query-text.js";
export { createDomainDetector, DEFAULT_DOMAIN_HINTS, DEFAULT_DOMAIN_IGNORE, type DomainDetector, type DomainDetectorOptions } from "./domain-detector.js";
export { createInMemoryUsageStore, type ToolUsageStore, type ToolUsageRecord, type InMemoryUsageStoreOptions } from "./usage-store.js";
export { openEmbeddingCache, type EmbeddingCache } from "./embedding-cache.js";
export {
  matchesFilter,
  andFilters,
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
export { createChromaVectorStore, toChromaWhere, type ChromaVectorStoreOptions } from "./chroma-vector-store.js";
export {
  createWorkflowCatalog,
  type WorkflowCatalog,
  type WorkflowCatalogOptions,
  type WorkflowSearchInput,
  type WorkflowSearchResponse,
  type RecognizedQuery,
} from "./workflow-catalog.js";
export { loadWorkflowCatalog, parseWorkflowCatalog, exampleCatalogDir } from "./workflow-loader.js";
