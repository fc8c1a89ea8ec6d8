/**
 * `@afw/backends/langflow`: the Langflow adapter alone.
 * @packageDocumentation
 */
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
