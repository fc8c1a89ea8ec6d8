/**
 * `@afw/server`: the Agentic Flywheel MCP server — the query pipeline, the MCP tools, the stdio
 * and Streamable HTTP transports, the configuration schema and loader, trace sinks and metrics.
 *
 * @example
 * ```ts
 * import { createGatewayServer, loadGatewayConfig, startHttpTransport } from "@afw/server";
 *
 * const gateway = await createGatewayServer(await loadGatewayConfig("afw.yaml"));
 * const http = await startHttpTransport(gateway);
 * console.error(`listening on ${http.url}`);
 * ```
 *
 * @packageDocumentation
 */
export {
  GatewayConfigSchema,
  BackendConfigSchema,
  FlowRegistryEntrySchema,
  AuthTokenConfigSchema,
  HttpConfigSchema,
  RoutingConfigSchema,
  CacheConfigSchema,
  SessionsConfigSchema,
  ToolsConfigSchema,
  WorkflowsConfigSchema,
  TraceConfigSchema,
  AnalyticsConfigSchema,
  ToolExposureSchema,
  DownstreamSectionSchema,
  DashboardConfigSchema,
  type ToolExposure,
  type DownstreamSectionConfig,
  type DashboardConfig,
  type GatewayConfig,
  type GatewayConfigInput,
  type BackendConfig,
  type BackendConfigInput,
  type FlowRegistryEntry,
  type AuthTokenConfig,
  type HttpConfig,
  type RoutingConfig,
  type CacheConfig,
  type SessionsConfig,
  type ToolsConfig,
  type WorkflowsConfig,
  type TraceConfig,
  type AnalyticsConfig,
} from "./config-schema.js";
export { loadGatewayConfig, parseGatewayConfig, CONFIG_ENV_VARIABLES, type ConfigIssue, type ParseGatewayConfigOptions } from "./config-loader.js";
export { renderConfigReference, configReferenceRows, type ConfigReferenceRow } from "./config-reference.js";
export {
  createGatewayServer,
  type GatewayServer,
  type GatewayParts,
  type GatewayStores,
  type RouterDependencies,
  type ReadinessCheck,
  type ReadinessReport,
  type GatewayReloadReport,
} from "./gateway-server.js";
export { describeSetup, type SetupReport, type BackendSetupStatus, type BackendSetupState } from "./setup-report.js";
export {
  AUDIT_LOG_MAX_AGE_MS,
  MEMORY_AUDIT_LOG_CAPACITY,
  REDIS_AUDIT_LOG_MAX_LENGTH,
  createAnalyticsTools,
  createGatewayAnalyticsStores,
  createGatewayLearning,
  createRedactingSink,
  type GatewayLearning,
  type GatewayLearningOptions,
  type AnalyticsToolDependencies,
  type AnalyticsTools,
  type GatewayAnalyticsStores,
} from "./gateway-analytics.js";
export { ToolErrorBodySchema, ToolFailure, displayUrl, isHostAllowed, type GatewayTool, type ToolContext, type ToolErrorBody, type ToolDependencies } from "./gateway-tools.js";
export {
  FlowiseQueryInputShape,
  ListFlowsInputShape,
  BackendStatusInputShape,
  HealthCheckInputShape,
  BackendPerformanceCompareInputShape,
  BackendConnectInputShape,
  ListSessionsInputShape,
  GetSessionInputShape,
  ClearCacheInputShape,
  ExplainRoutingInputShape,
} from "./tool-schemas.js";
export {
  type RouterPort,
  type RoutingRequest,
  type RoutingOutcome,
  type ExecutionRequest,
  type ExecuteOptions,
  type ExecutionOutcome,
  type ToolSearchPort,
  type ToolSearchPortInput,
  type ToolRanking,
  type WorkflowCatalogPort,
  type WorkflowSearchResult,
  type FlowSource,
} from "./ports.js";
export { type BackendFactory, type BackendFactoryOptions, backendFactoryByKind } from "./backend-factory.js";
export { builtInBackendFactories, defaultBackendFactory, adapterSettings } from "./backend-adapters.js";
export { createBackendRegistry, type BackendLease, type BackendRegistry, type BackendRegistryOptions, type RegisteredBackend, type DiscoveryProblem } from "./backend-registry.js";
export { createAfwRouterPort, routerIntentPatterns, type AfwRouterPortOptions, type ReloadableRouterPort } from "./afw-router-adapter.js";
export { createToolSearchFromConfig, createWorkflowCatalogFromConfig, workflowCatalogPort, embedderFromConfig } from "./tool-zoo-adapter.js";
export {
  createQueryPipeline,
  cacheTtlSeconds,
  type QueryPipeline,
  type QueryPipelineOptions,
  type QueryCallOptions,
  type QueryOutcome,
  type ExplainRoutingInput,
  type RoutingExplanation,
} from "./query-pipeline.js";
export {
  createDownstreamTools,
  downstreamManagerConfig,
  CALL_TOOL_NAME,
  CallToolInputShape,
  type DownstreamTools,
  type DownstreamToolsOptions,
  type DownstreamSessionState,
} from "./downstream-tools.js";
export { createAnalyticsDashboardSource, createGatewayDashboardSource, type DashboardAnalytics } from "./gateway-dashboard.js";
export { configSecrets } from "./redactor.js";
export { createGatewayLogger, type GatewayLoggerOptions } from "./logger.js";
export { createTraceRingBuffer, createLogTraceSink, type TraceRingBuffer } from "./trace-sinks.js";
export { createOtlpTraceSink, type OtlpTraceSink, type OtlpTraceSinkOptions } from "./otlp-trace-sink.js";
export { createGatewayMetrics, type GatewayMetrics } from "./metrics.js";
export { newTraceContext, newTraceId } from "./trace-context.js";
export {
  startHttpTransport,
  isLoopbackHost,
  type HttpTransportOptions,
  type HttpTransportHandle,
  type HttpRoute,
  type HttpRouteContext,
} from "./http-transport.js";
export { startStdioTransport, type StdioTransportOptions, type StdioTransportHandle } from "./stdio-transport.js";
export { createBearerAuthenticator, type BearerAuthenticator, type AuthenticatedClient } from "./bearer-auth.js";
export { createRateLimiter, type RateLimiter, type RateLimiterOptions, type RateLimitDecision } from "./rate-limiter.js";
