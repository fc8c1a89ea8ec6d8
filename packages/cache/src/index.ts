/**
 * `@afw/cache`: the response cache, session memory and shared gateway state (performance
 * windows, health snapshots, circuit states, MCP sessions) of Agentic Flywheel, each with a Redis (ioredis:
 * standalone, Sentinel, Cluster) and an in-memory implementation of the `@afw/contracts` store
 * interfaces. Redis trouble never reaches callers: operations are bounded and degrade to misses.
 *
 * @packageDocumentation
 */
export { createRedisStores, type RedisStores, type RedisStoresOptions } from "./redis-stores.js";
export { createMemoryStores } from "./memory-stores.js";
export { RedisConnection, createRedisConnection, type RedisClient } from "./redis-connection.js";
export { parseRedisUrl, createRedisClient } from "./redis-config.js";
export { createRedisResponseCache } from "./redis-response-cache.js";
export { createMemoryResponseCache, type MemoryCacheRecord } from "./memory-response-cache.js";
export type { SemanticCacheOptions, CacheGetOptions, CacheSetOptions } from "./response-cache-shared.js";
export { prepareCacheKey } from "./response-cache-shared.js";
export { questionsAgree } from "./semantic-guard.js";
export { RedisSessionStore, createRedisSessionStore } from "./redis-session-store.js";
export { createMemorySessionStore } from "./memory-session-store.js";
export type { SessionStoreOptions } from "./session-store-shared.js";

export { createRedisPerformanceStore } from "./redis-performance-store.js";
export { createMemoryPerformanceStore } from "./memory-performance-store.js";

export { createRedisHealthStore } from "./redis-health-store.js";
export { createMemoryHealthStore } from "./memory-health-store.js";
export { createRedisCircuitStateStore } from "./redis-circuit-state-store.js";
export { createMemoryCircuitStateStore } from "./memory-circuit-state-store.js";
export { RedisMcpSessionRegistry, createRedisMcpSessionRegistry } from "./redis-mcp-session-registry.js";
export type { RedisRateLimiter } from "./redis-rate-limiter.js";
export { MemoryMcpSessionRegistry, createMemoryMcpSessionRegistry } from "./memory-mcp-session-registry.js";
export { DEFAULT_CACHE_TTL_POLICY, createCacheTtlPolicy, resolveCacheTtl } from "./ttl-policy.js";

export type { CacheStoreEvent, CacheStoreEventHandler } from "./store-events.js";
// Types (and schemas) of the signatures above.
export { type CacheGroup } from "./keyspace.js";
export { type MemoryCircuitStateStore } from "./memory-circuit-state-store.js";
export { type MemoryHealthStore, type MemoryHealthStoreOptions } from "./memory-health-store.js";
export { type MemoryMcpSessionRegistryOptions } from "./memory-mcp-session-registry.js";
export { type MemoryPerformanceStore } from "./memory-performance-store.js";
export { type MemoryResponseCache, type MemoryResponseCacheOptions } from "./memory-response-cache.js";
export { type MemorySessionStore, type MemorySessionStoreOptions } from "./memory-session-store.js";
export { type MemoryStores, type MemoryStoresOptions } from "./memory-stores.js";
export { type PerformanceStoreOptions } from "./performance-store-shared.js";
export { type RedisCircuitStateStore, type RedisCircuitStateStoreOptions } from "./redis-circuit-state-store.js";
export { type ReconnectOptions, type RedisClientSettings, type RedisConnectionConfig } from "./redis-config.js";
export { type RedisConnectionOptions, type RedisOutcome, type RedisRunOptions, type StoreHealth } from "./redis-connection.js";
export { type RedisHealthStore, type RedisHealthStoreOptions } from "./redis-health-store.js";
export { type RedisMcpSessionRegistryOptions } from "./redis-mcp-session-registry.js";
export { type RedisPerformanceStore, type RedisPerformanceStoreOptions } from "./redis-performance-store.js";
export { type RateLimitRule, type SharedRateLimitDecision } from "./redis-rate-limiter.js";
export { type RedisResponseCache, type RedisResponseCacheOptions } from "./redis-response-cache.js";
export { type RedisSessionStoreOptions } from "./redis-session-store.js";
export { type ResponseCacheOptions } from "./response-cache-shared.js";
export { type SessionBufferOptions } from "./session-write-buffer.js";
export { type StoreName } from "./store-events.js";
export { type CacheTtlPolicy, type CacheTtlPolicyOverrides, type CacheTtlSubject } from "./ttl-policy.js";
export { type RedisAddress, type RedisAuth } from "./redis-config.js";
