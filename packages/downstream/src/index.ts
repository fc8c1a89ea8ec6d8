/**
 * `@afw/downstream`: connects to downstream MCP servers (stdio or Streamable HTTP), hot or cold, restarts them with
 * backoff, lists their tools under namespaced names (`server__tool`) and proxies calls with timeouts, retries and typed
 * errors.
 * @packageDocumentation
 */
export { DownstreamConfigSchema, DownstreamServerConfigSchema, parseDownstreamConfig, type DownstreamServerConfigInput, type DownstreamConfig, type DownstreamConfigInput } from "./config.js";
export { importMcpJson } from "./mcp-json.js";
export { namespaceToolName, parseNamespacedToolName } from "./namespacing.js";
export type { DownstreamCaller, DownstreamLogMessage, DownstreamProgress } from "./forwarding.js";
export { toMcpTool, type DownstreamTool } from "./downstream-tool.js";
export type { DownstreamServerState, DownstreamServerStatus } from "./server-status.js";
export { createDownstreamManager, type DownstreamManager, type DownstreamManagerOptions, type ToolsChangedEvent, type ToolCallReport } from "./downstream-manager.js";
// Types (and schemas) of the signatures above.
export { type CatalogChangedEvent, type DownstreamCallOptions, type DownstreamRequestOptions, type ListToolsOptions } from "./downstream-manager.js";
export { type ImportMcpJsonOptions } from "./mcp-json.js";
export { type ToolsChangeReason } from "./server-status.js";
