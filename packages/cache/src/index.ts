/**
 * `@afw/cache`: Response cache, session memory and shared gateway state over Redis (ioredis) or memory.
 *
 * Not implemented yet: see the package README.
 *
 * @packageDocumentation
 */
export {};
