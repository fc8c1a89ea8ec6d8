/**
 * `@afw/tool-zoo`: Hybrid (BM25 + vector) search over MCP tools and a workflow catalog, with in-process and Chroma stores.
 *
 * Not implemented yet: see the package README.
 *
 * @packageDocumentation
 */
export {};
