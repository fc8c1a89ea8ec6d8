/**
 * `@afw/tool-zoo`: hybrid (BM25F + vector) search over MCP tools and a workflow catalog, with
 * in-process and Chroma vector stores.
 *
 * @packageDocumentation
 */
export { createToolIndex } from "./tool-index.js";
export type { ToolIndex, ToolIndexOptions } from "./tool-index-options.js";
export type { SynonymSource } from "./wordnet-synonyms.js";
export type { ServerInfo } from "./domain-detector.js";
export { parseToolCatalog, loadToolCatalogFile } from "./catalog-files.js";
export { affordanceSummary } from "./tool-document.js";
export { type EmbeddingCacheStore } from "./embedding-cache.js";
export { type VectorStore } from "./vector-store.js";
export { createInMemoryVectorStore } from "./in-memory-vector-store.js";
export { createChromaVectorStore, type ChromaVectorStoreOptions } from "./chroma-vector-store.js";
export { createWorkflowCatalog, type WorkflowCatalog, type WorkflowCatalogOptions } from "./workflow-catalog.js";
export { loadWorkflowCatalog, exampleCatalogDir } from "./catalog-files.js";
