/**
 * `@afw/backends/langflow`: the Langflow adapter alone.
 * @packageDocumentation
 */
export { createLangflowBackend, LangflowBackendSettingsSchema, type LangflowBackend, type LangflowBackendSettings } from "./langflow-backend.js";
