/** `@afw/server`: the Agentic Flywheel MCP server — the query pipeline, the MCP tools, the stdio and Streamable
 * HTTP transports, the configuration schema and loader, trace sinks and metrics. */
export { GatewayConfigSchema, type GatewayConfigInput, type BackendConfigInput, type FlowRegistryEntry, type GatewayConfig, type BackendConfig } from "./config-schema.js";
export { loadGatewayConfig, CONFIG_ENV_VARIABLES } from "./config-loader.js";
export { createGatewayServer } from "./gateway-server.js";
export type { GatewayServer, GatewayParts, GatewayStores, ReadinessReport, GatewayReloadReport, WorkflowCatalogPort } from "./gateway-types.js";
export { describeSetup, type SetupReport, type BackendSetupStatus } from "./setup-report.js";
export { createGatewayDashboardSource } from "./gateway-dashboard.js";
export { type TraceRingBuffer } from "./trace-sinks.js";
export { startHttpTransport, type HttpTransportHandle, type HttpTransportOptions } from "./http-transport.js";
export { startStdioTransport, type StdioTransportOptions, type StdioTransportHandle } from "./stdio-transport.js";
export { exportTraining, TrainingExportOptionsSchema, type TrainingExportOptions } from "./training-export.js";
export { type BackendFactory, type BackendFactoryOptions } from "./backend-factory.js";
export { type GatewayMetrics } from "./metrics.js";
// Types (and schemas) of the signatures above.
export { type BackendRegistry } from "./backend-registry.js";
export { type BackendSetupState } from "./setup-report.js";
export { type BackendLease, type DiscoveryProblem, type RegisteredBackend } from "./backend-registry.js";
export { type AuthenticatedClient } from "./bearer-auth.js";
