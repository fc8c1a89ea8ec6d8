/**
 * `@afw/backends/flowise`: the Flowise adapter alone.
 * @packageDocumentation
 */
export { createFlowiseBackend, FlowiseBackendSettingsSchema, type FlowiseBackend, type FlowiseBackendSettings } from "./flowise-backend.js";
