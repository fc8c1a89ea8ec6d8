/**
 * `@afw/backends`: Flowise and Langflow adapters implementing the `FlowBackendV1` spec of `@afw/contracts`, and the
 * outbound address policy (SSRF guard) of every outbound HTTP request.
 * @packageDocumentation
 */
export { createFlowiseBackend, type FlowiseBackend } from "./flowise-backend.js";
export { createLangflowBackend, type LangflowBackend } from "./langflow-backend.js";
export { inferFlowIntents, type FlowInference, type FlowInferenceInput } from "./flow-inference.js";
export { applyConfiguredFlows } from "./universal-flow.js";
export { ConfiguredFlowSchema, ParameterMappingSchema, type ConfiguredFlowInput } from "./settings.js";
export type { AdapterBackend } from "./adapter-common.js";
export {
  checkOutboundUrl,
  classifyAddress,
  ConnectRefusedError,
  createOutboundAgent,
  findConnectRefusal,
  lookupFromResolver,
  matchHostPattern,
  normalizeHostName,
  outboundConnectPolicy,
  type AddressClass,
  type ConnectPolicy,
  type HostMatch,
  type HostLookup,
  type HostResolver,
  type OutboundAgentOptions,
  type OutboundUrlDecision,
  type OutboundUrlPolicy,
  type ResolvedTarget,
} from "./address-policy.js";
