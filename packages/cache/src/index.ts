/**
 * `@afw/cache`: the response cache, session memory and shared gateway state (performance
 * windows, health snapshots, circuit states, MCP sessions) of Agentic Flywheel, each with a Redis (ioredis:
 * standalone, Sentinel, Cluster) and an in-memory implementation of the `@afw/contracts` store
 * interfaces. Redis trouble never reaches callers: operations are bounded and degrade to misses.
 *
 * @packageDocumentation
 */
export { createRedisStores, type RedisStores, type RedisStoresOptions } from "./redis-stores.js";
export { createMemoryStores, type MemoryStores, type MemoryStoresOptions } from "./memory-stores.js";
export { RedisConnection, createRedisConnection, type RedisClient, type RedisConnectionOptions, type RedisOutcome, type RedisRunOptions, type StoreHealth } from "./redis-connection.js";
export { parseRedisUrl, createRedisClient, type RedisAddress, type RedisAuth, type RedisConnectionConfig, type RedisClientSettings, type ReconnectOptions } from "./redis-config.js";
export { RedisResponseCache, createRedisResponseCache, type RedisResponseCacheOptions } from "./redis-response-cache.js";
export { MemoryResponseCache, createMemoryResponseCache, type MemoryResponseCacheOptions, type MemoryCacheRecord } from "./memory-response-cache.js";
export type { ResponseCacheOptions, SemanticCacheOptions, CacheGetOptions, CacheSetOptions } from "./response-cache-shared.js";
export { prepareCacheKey } from "./response-cache-shared.js";
export { RedisSessionStore, createRedisSessionStore, type RedisSessionStoreOptions } from "./redis-session-store.js";
export { MemorySessionStore, createMemorySessionStore, type MemorySessionStoreOptions } from "./memory-session-store.js";
export type { SessionStoreOptions } from "./session-store-shared.js";
export type { SessionBufferOptions } from "./session-write-buffer.js";
export { RedisPerformanceStore, createRedisPerformanceStore, type RedisPerformanceStoreOptions } from "./redis-performance-store.js";
export { MemoryPerformanceStore, createMemoryPerformanceStore } from "./memory-performance-store.js";
export type { PerformanceStoreOptions } from "./performance-store-shared.js";
export { RedisHealthStore, createRedisHealthStore, type RedisHealthStoreOptions } from "./redis-health-store.js";
export { MemoryHealthStore, createMemoryHealthStore, type MemoryHealthStoreOptions } from "./memory-health-store.js";
export { RedisCircuitStateStore, createRedisCircuitStateStore, type RedisCircuitStateStoreOptions } from "./redis-circuit-state-store.js";
export { MemoryCircuitStateStore, createMemoryCircuitStateStore } from "./memory-circuit-state-store.js";
export { RedisMcpSessionRegistry, createRedisMcpSessionRegistry, type RedisMcpSessionRegistryOptions } from "./redis-mcp-session-registry.js";
export type { RedisRateLimiter } from "./redis-rate-limiter.js";
export { MemoryMcpSessionRegistry, createMemoryMcpSessionRegistry, type MemoryMcpSessionRegistryOptions } from "./memory-mcp-session-registry.js";
export {
  DEFAULT_CACHE_TTL_POLICY,
  createCacheTtlPolicy,
  resolveCacheTtl,
  type CacheTtlPolicy,
  type CacheTtlPolicyOverrides,
  type CacheTtlSubject,
} from "./ttl-policy.js";
export { type CacheGroup } from "./keyspace.js";
export type { CacheStoreEvent, CacheStoreEventHandler, StoreEventOptions, StoreName } from "./store-events.js";
