/**
 * `@afw/downstream`: connects to downstream MCP servers and proxies their tools.
 *
 * Not implemented yet: see the package README.
 *
 * @packageDocumentation
 */
export {};
