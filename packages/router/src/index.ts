/**
 * `@afw/router`: Intent classification, backend/flow scoring and execution with retry, fallback, circuit breaking and hedging.
 *
 * Not implemented yet: see the package README.
 *
 * @packageDocumentation
 */
export {};
