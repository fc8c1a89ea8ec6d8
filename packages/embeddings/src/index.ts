/**
 * `@afw/embeddings`: {@link @afw/contracts!Embedder} implementations shared by the router and the
 * tool zoo — the offline Universal Sentence Encoder lite, a static embedder distilled from it, a deterministic
 * hashing embedder for tests, and a content-hash cache.
 *
 * @packageDocumentation
 */
export { createUseEmbedder, useOnnxRuntimeInstalled } from "./use-embedder.js";
export { createStaticEmbedder, STATIC_EMBEDDINGS_URL } from "./static-embedder.js";
export { createHashingEmbedder } from "./hashing-embedder.js";
export { createCachingEmbedder } from "./caching-embedder.js";
// Types (and schemas) of the signatures above.
export { type CachingEmbedder } from "./caching-embedder.js";
export { type HashingEmbedderOptions } from "./hashing-embedder.js";
export { type UseEmbedder, type UseEmbedderOptions, type UseRuntime } from "./use-embedder.js";
export { type StaticEmbedder, type StaticEmbeddingTable } from "./static-embedder.js";
