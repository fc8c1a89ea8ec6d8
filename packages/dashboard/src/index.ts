/**
 * `@afw/dashboard`: the operator dashboard.
 *
 * Not implemented yet: see the package README.
 *
 * @packageDocumentation
 */
export {};
