/**
 * `@afw/backends`: Flowise and Langflow adapters implementing the `FlowBackendV1` spec of
 * `@afw/contracts`, and a `BackendRegistry` to hold them.
 *
 * Adapters are also on their own subpaths (`@afw/backends/flowise`, `@afw/backends/langflow`);
 * local reproductions of both platforms and the shared conformance suite are on
 * `@afw/backends/test`.
 *
 * @packageDocumentation
 */
export {
  createFlowiseBackend,
  FlowiseBackendSettingsSchema,
  FLOWISE_FLOW_TYPES,
  type FlowiseBackend,
  type FlowiseBackendSettings,
} from "./flowise-backend.js";
export {
  extractFlowiseText,
  parseFollowUpPrompts,
  FlowisePredictionSchema,
  FlowiseChatflowSchema,
  FlowiseChatflowListSchema,
  FlowiseSourceDocumentSchema,
  FlowiseStreamingCheckSchema,
  FlowiseStreamFrameSchema,
  FlowiseVersionSchema,
  type FlowisePrediction,
  type FlowiseChatflow,
} from "./flowise-reply.js";
export {
  createLangflowBackend,
  LangflowBackendSettingsSchema,
  type LangflowBackend,
  type LangflowBackendSettings,
} from "./langflow-backend.js";
export {
  extractLangflowAnswer,
  LangflowRunResponseSchema,
  LangflowResultDataSchema,
  LangflowFlowSchema,
  LangflowFlowListSchema,
  LangflowHealthSchema,
  LangflowStreamEventSchema,
  LangflowVersionSchema,
  type LangflowRunResponse,
  type LangflowFlow,
  type LangflowAnswer,
} from "./langflow-reply.js";
export {
  BackendRegistry,
  BackendConfigSchema,
  type BackendConfig,
  type BackendFactory,
  type BackendConnectionStatus,
  type BackendRegistryEvent,
  type BackendRegistryOptions,
  type ConnectOptions,
} from "./backend-registry.js";
export {
  BaseBackendSettingsSchema,
  BackendTimeoutsSchema,
  BackendLimitsSchema,
  ConfiguredFlowSchema,
  ParameterMappingSchema,
  ParameterTargetSchema,
  normalizeBaseURL,
  type BaseBackendSettings,
  type BaseBackendSettingsInput,
  type BackendTimeouts,
  type BackendLimits,
  type ConfiguredFlow,
  type ConfiguredFlowInput,
  type ParameterMapping,
  type ParameterTarget,
} from "./settings.js";
export { inferFlowIntents, type FlowInference, type FlowInferenceInput } from "./flow-inference.js";
export { toUniversalFlow, mergeFlows, type DiscoveredFlow } from "./universal-flow.js";
export { SseParser, type SseEvent } from "./sse-parser.js";
export { JsonStreamParser } from "./json-stream-parser.js";
export {
  errorFromStatus,
  errorFromStreamEvent,
  errorFromException,
  errorMessageFromBody,
  redactSecrets,
  badResponse,
  errorFromRefusedConnection,
  type ErrorContext,
  type AbortReason,
} from "./error-mapping.js";
export {
  ConnectRefusedError,
  checkedLookup,
  checkLiteralHost,
  decideConnect,
  findConnectRefusal,
  type ConnectPolicy,
  type HostLookup,
} from "./connect-policy.js";
export { HttpClient, RequestScope, iterateBody, parseJsonWith, type HttpClientConfig, type HttpRequestOptions, type OpenResponse } from "./http-client.js";
export { findUsage, toSourceDocuments } from "./reply-utils.js";
