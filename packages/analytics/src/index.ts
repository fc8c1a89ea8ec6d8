/**
 * `@afw/analytics`: audit log, analytics and the learning loop.
 *
 * Not implemented yet: see the package README.
 *
 * @packageDocumentation
 */
export {};
