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
export { createFlowiseBackend } from "./flowise-backend.js";
export { extractFlowiseText } from "./flowise-reply.js";
export { createLangflowBackend } from "./langflow-backend.js";
export { extractLangflowAnswer } from "./langflow-reply.js";
export { ParameterMappingSchema, type ConfiguredFlowInput } from "./settings.js";
export { inferFlowIntents } from "./flow-inference.js";
export { JsonStreamParser } from "./json-stream-parser.js";
export { errorFromStatus, errorFromRefusedConnection } from "./error-mapping.js";
export { ConnectRefusedError, checkedLookup, type ConnectPolicy, type HostLookup } from "./connect-policy.js";
export { HttpClient } from "./http-client.js";
// Types (and schemas) of the signatures above.
export { type ErrorContext } from "./error-mapping.js";
export { type FlowInference, type FlowInferenceInput } from "./flow-inference.js";
export { type FlowiseBackend } from "./flowise-backend.js";
export { type HttpClientConfig, type HttpRequestOptions, type OpenResponse } from "./http-client.js";
export { type LangflowBackend } from "./langflow-backend.js";
export { type LangflowAnswer } from "./langflow-reply.js";
export { type BaseBackendSettingsInput, ConfiguredFlowSchema } from "./settings.js";
export { type RequestScope } from "./http-client.js";
export { BaseBackendSettingsSchema } from "./settings.js";
