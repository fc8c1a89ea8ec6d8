/**
 * `@afw/embeddings`: {@link @afw/contracts!Embedder} implementations shared by the router and the
 * tool zoo — the offline Universal Sentence Encoder lite, a deterministic hashing embedder for
 * tests, and a content-hash cache.
 *
 * @packageDocumentation
 */
export { createUseEmbedder, type UseEmbedder, type UseEmbedderOptions, type UseEngine, type UseRuntimeInfo } from "./use-embedder.js";
export { createHashingEmbedder, type HashingEmbedderOptions } from "./hashing-embedder.js";
export { createCachingEmbedder, type CachingEmbedder, type CachingEmbedderOptions } from "./caching-embedder.js";
