/**
 * `@afw/embeddings`: Embedder implementations for Agentic Flywheel: offline Universal Sentence Encoder, hashing embedder for tests, content-hash cache.
 *
 * Not implemented yet: see the package README.
 *
 * @packageDocumentation
 */
export {};
