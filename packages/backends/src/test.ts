/**
 * `@afw/backends/test`: local reproductions of Flowise and Langflow (for tests, demos and benchmarks) and the shared
 * conformance suite every backend adapter must pass.
 * @packageDocumentation
 */
export * from "./test-servers.js";
export { runBackendConformance, type BackendConformanceOptions, type ConformanceBackendSettings } from "./testing/conformance.js";
export { BaseBackendSettingsSchema, type BaseBackendSettingsInput } from "./settings.js";
