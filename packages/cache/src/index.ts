/**
 * `@afw/cache`: the response cache, session memory and shared gateway state (performance windows, health snapshots,
 * circuit states, MCP sessions) of Agentic Flywheel, each with a Redis (ioredis: standalone, Sentinel, Cluster) and an
 * in-memory implementation of the `@afw/contracts` store interfaces.
 * @packageDocumentation
 */
export { createRedisStores, type RedisStores, type RedisStoresOptions } from "./redis-stores.js";
export { createMemoryStores, type MemoryStores, type MemoryStoresOptions } from "./memory-stores.js";
export { LuaScript, RedisConnection, type RedisClient, type RedisConnectionOptions } from "./redis-connection.js";
export { parseRedisUrl, createRedisClient, type RedisConnectionConfig, type RedisClientSettings, type ReconnectOptions } from "./redis-config.js";
export type { ResponseCacheOptions, SemanticCacheOptions } from "./response-cache-shared.js";
export { DEFAULT_CACHE_TTL_POLICY, type CacheTtlPolicy } from "./ttl-policy.js";
export { createMemoryHealthStore, createMemoryPerformanceStore, createMemoryCircuitStateStore } from "./shared-state-stores.js";
export { MemoryMcpSessionRegistry, RedisMcpSessionRegistry } from "./mcp-session-registry.js";
export type { RedisRateLimiter, RateLimitRule, SharedRateLimitDecision } from "./redis-rate-limiter.js";
export type { CacheStoreEvent, CacheStoreEventHandler } from "./store-events.js";
export type { SessionStoreOptions } from "./session-store-shared.js";
