/**
 * `@afw/backends/flowise`: the Flowise adapter alone.
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
