/**
 * `@afw/server`: The Agentic Flywheel MCP server: query pipeline, MCP tools, transports and configuration.
 *
 * Not implemented yet: see the package README.
 *
 * @packageDocumentation
 */
export {};
