import { RedisMcpSessionRegistry } from "./mcp-session-registry.js";
import type { StoreSet } from "./memory-stores.js";
import { RedisConnection, type RedisConnectionOptions } from "./redis-connection.js";
import { RedisRateLimiter } from "./redis-rate-limiter.js";
import { RedisResponseCache } from "./redis-response-cache.js";
import { RedisSessionStore, type RedisSessionStoreOptions } from "./redis-session-store.js";
import type { ResponseCacheOptions } from "./response-cache-shared.js";
import type { SessionStoreOptions } from "./session-store-shared.js";
import type { SessionBufferOptions } from "./session-write-buffer.js";
import { RedisCircuitStateStore, RedisHealthStore, RedisPerformanceStore } from "./shared-state-stores.js";

/** Options of {@link createRedisStores}: the connection (see {@link RedisConnectionOptions}) plus per-store settings. */
export interface RedisStoresOptions extends RedisConnectionOptions {
  /** Prefix of every key. @default "afw:" */
  keyPrefix?: string | undefined;
  /** Response cache settings (semantic hits). */
  responseCache?: ResponseCacheOptions | undefined;
  /** Session memory settings (max turns, sliding TTL, append bound, write-behind buffer, ...). */
  sessions?: (SessionStoreOptions & Pick<RedisSessionStoreOptions, "appendTimeoutMs" | "replayIntervalMs"> & { buffer?: SessionBufferOptions | undefined }) | undefined;
}

/** The stores on one Redis connection. */
export interface RedisStores
  extends StoreSet<RedisResponseCache, RedisSessionStore, RedisPerformanceStore, RedisHealthStore, RedisCircuitStateStore, RedisMcpSessionRegistry> {
  /** The shared connection. */
  readonly connection: RedisConnection;
  /** Token-bucket rate limits shared by every gateway instance. */
  readonly rateLimiter: RedisRateLimiter;
}

/**
 * Creates all the stores on one Redis connection (standalone, Sentinel or Cluster).
 * @throws AfwError `CONFIG_INVALID` for bad options or a malformed URL.
 * @example
 * ```ts
 * const stores = createRedisStores({ url: "redis://127.0.0.1:6379", keyPrefix: "afw:" });
 * const lookup = await stores.responseCache.get({ scope: "shared", flowId: "flowise:faq", question });
 * await stores.close();
 * ```
 */
export function createRedisStores(options: RedisStoresOptions): RedisStores {
  const operationTimeoutMs = options.operationTimeoutMs ?? 100;
  const appendTimeoutMs = options.sessions?.appendTimeoutMs ?? Math.max(1000, operationTimeoutMs);
  const connection = new RedisConnection({ ...options, commandTimeoutMs: options.commandTimeoutMs ?? Math.max(appendTimeoutMs, operationTimeoutMs) });
  const keyPrefix = options.keyPrefix ?? "afw:";
  const responseCache = new RedisResponseCache({ ...options.responseCache, connection, keyPrefix });
  const sessionStore = new RedisSessionStore({ ...options.sessions, appendTimeoutMs, connection, keyPrefix });
  return {
    connection,
    responseCache,
    sessionStore,
    performanceStore: new RedisPerformanceStore({ connection, keyPrefix }),
    healthStore: new RedisHealthStore({ connection, keyPrefix }),
    circuitStateStore: new RedisCircuitStateStore({ connection, keyPrefix }),
    mcpSessionRegistry: new RedisMcpSessionRegistry({ connection, keyPrefix }),
    rateLimiter: new RedisRateLimiter(connection, keyPrefix),
    health: () => connection.health(),
    async close() {
      await sessionStore.close();
      if (connection.ready) await responseCache.flushCounters();
      await connection.close();
    },
  };
}
