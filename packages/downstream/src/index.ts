/**
 * `@afw/downstream`: connects to downstream MCP servers (stdio or Streamable HTTP), hot or cold,
 * restarts them with backoff, lists their tools under namespaced names (`server__tool`) and
 * proxies calls with timeouts, retries and typed errors.
 *
 * @packageDocumentation
 */
export { DownstreamConfigSchema, parseDownstreamConfig, type DownstreamServerConfigInput, type DownstreamConfig, type DownstreamConfigInput } from "./config.js";
export { importMcpJson, type ImportMcpJsonOptions, type DownstreamServerSettings } from "./mcp-json.js";
export { NAMESPACE_SEPARATOR, namespaceToolName, parseNamespacedToolName } from "./namespacing.js";
export { isToolAllowed } from "./tool-filter.js";
export { computeBackoffDelay, type BackoffPolicy } from "./backoff.js";
export { systemClock, type DownstreamClock } from "./clock.js";
export { parseIpAddress, classifyAddress, matchHostPattern, checkOutboundUrl, outboundConnectPolicy, lookupFromResolver, systemResolver, type AddressClass, type ParsedIpAddress, type HostMatch, type HostResolver, type OutboundUrlPolicy, type OutboundUrlDecision, type ResolvedTarget, type OutboundConnectPolicy, type HostLookup } from "./network-policy.js";
export { createOutboundFetch, OutboundAddressRefusedError, type OutboundFetch, type OutboundFetchOptions } from "./outbound-fetch.js";
export type { DownstreamCaller, DownstreamLogMessage, DownstreamProgress } from "./forwarding.js";
export { namespaceResourceUri, parseNamespacedResourceUri } from "./catalog.js";
export { toMcpTool, type DownstreamTool } from "./downstream-tool.js";
export type { DownstreamServerState, DownstreamServerStatus, ToolsChangeReason } from "./server-status.js";
export {
  createDownstreamManager,
  type DownstreamManager,
  type DownstreamManagerOptions,
  type DownstreamCallOptions,
  type DownstreamCallResult,
  type ListToolsOptions,
  type ToolsChangedEvent,
  type ToolCallReport,
  type CatalogChangedEvent,
  type DownstreamRequestOptions,
} from "./downstream-manager.js";
