/**
 * Entry point of the repository's evaluation scripts and benchmarks (`dist/internal.js`): the
 * index's building blocks. Not in the package's exports map, so not part of its API.
 *
 * @internal
 * @packageDocumentation
 */
export * from "./index.js";
export { Bm25Index } from "./bm25.js";
export { createTextAnalyzer } from "./text-analysis.js";
export { splitQuotedContent } from "./query-text.js";
export { requestSteps, splitTaskSteps } from "./task-steps.js";
export { buildToolDocument } from "./tool-document.js";
export { openEmbeddingCache } from "./embedding-cache.js";
