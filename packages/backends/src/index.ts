/**
 * `@afw/backends`: Flowise and Langflow adapters implementing the `FlowBackendV1` spec of `@afw/contracts`, and the
 * outbound address policy (SSRF guard) of every outbound HTTP request.
 * @packageDocumentation
 */
export { createFlowiseBackend, type FlowiseBackend } from "./flowise-backend.js";
export { createLangflowBackend, type LangflowBackend } from "./langflow-backend.js";
export { ParameterMappingSchema, type ConfiguredFlowInput } from "./settings.js";
export {
  checkOutboundUrl,
  classifyAddress,
  createOutboundAgent,
  findConnectRefusal,
  lookupFromResolver,
  matchHostPattern,
  normalizeHostName,
  outboundConnectPolicy,
  type ConnectPolicy,
  type HostLookup,
  type HostResolver,
  type OutboundAgentOptions,
  type OutboundUrlDecision,
  type OutboundUrlPolicy,
} from "./address-policy.js";
