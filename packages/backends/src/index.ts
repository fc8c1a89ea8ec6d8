/**
 * `@afw/backends`: Flowise and Langflow adapters implementing the `FlowBackendV1` spec of
 * `@afw/contracts`.
 *
 * Adapters are also on their own subpaths (`@afw/backends/flowise`, `@afw/backends/langflow`);
 * local reproductions of both platforms and the shared conformance suite are on
 * `@afw/backends/test`.
 *
 * @packageDocumentation
 */
export { createFlowiseBackend, type FlowiseBackend, type FlowiseBackendSettings } from "./flowise-backend.js";
export { extractFlowiseText, type FlowisePrediction } from "./flowise-reply.js";
export { createLangflowBackend, type LangflowBackend, type LangflowBackendSettings } from "./langflow-backend.js";
export { extractLangflowAnswer, type LangflowRunResponse, type LangflowAnswer } from "./langflow-reply.js";
export { ParameterMappingSchema, type ConfiguredFlowInput } from "./settings.js";
export { inferFlowIntents, type FlowInference, type FlowInferenceInput } from "./flow-inference.js";
export { JsonStreamParser } from "./json-stream-parser.js";
export { errorFromStatus, errorFromRefusedConnection, type ErrorContext, type AbortReason } from "./error-mapping.js";
export { ConnectRefusedError, checkedLookup, type ConnectPolicy, type HostLookup } from "./connect-policy.js";
export { HttpClient, RequestScope, type HttpClientConfig, type HttpRequestOptions, type OpenResponse } from "./http-client.js";
