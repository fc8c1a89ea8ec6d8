/**
 * `@afw/backends`: Flowise and Langflow adapters implementing the FlowBackendV1 spec, and a backend registry.
 *
 * Not implemented yet: see the package README.
 *
 * @packageDocumentation
 */
export {};
