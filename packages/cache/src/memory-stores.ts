import { MemoryMcpSessionRegistry } from "./mcp-session-registry.js";
import { MemoryResponseCache, type MemoryResponseCacheOptions } from "./memory-response-cache.js";
import { MemorySessionStore, type MemorySessionStoreOptions } from "./memory-session-store.js";
import type { StoreHealth } from "./redis-connection.js";
import { MemoryCircuitStateStore, MemoryHealthStore, MemoryPerformanceStore, type PerformanceStoreOptions } from "./shared-state-stores.js";
import type { StoreEventOptions } from "./store-events.js";

/** Options of {@link createMemoryStores}. */
export interface MemoryStoresOptions extends StoreEventOptions {
  /** Clock in epoch ms shared by the stores (inject one to test expiry). @default Date.now */
  now?: (() => number) | undefined;
  /** Response cache settings. */
  responseCache?: Omit<MemoryResponseCacheOptions, "now" | "trace" | "onEvent"> | undefined;
  /** Session memory settings. */
  sessions?: Omit<MemorySessionStoreOptions, "now"> | undefined;
  /** Performance window settings. */
  performance?: PerformanceStoreOptions | undefined;
}

/** The stores in process memory: the embedded default for one gateway process. */
export interface MemoryStores {
  /** Answers by (tenant, scope, flow, question). */
  readonly responseCache: MemoryResponseCache;
  /** Conversation memory. */
  readonly sessionStore: MemorySessionStore;
  /** Rolling latency/success windows for routing. */
  readonly performanceStore: MemoryPerformanceStore;
  /** Backend health snapshots. */
  readonly healthStore: MemoryHealthStore;
  /** Circuit-breaker states. */
  readonly circuitStateStore: MemoryCircuitStateStore;
  /** MCP Streamable HTTP sessions (`Mcp-Session-Id`) of this process. */
  readonly mcpSessionRegistry: MemoryMcpSessionRegistry;
  /** Always ok. */
  health(): Promise<StoreHealth>;
  /** No-op (nothing to release). */
  close(): Promise<void>;
}

/**
 * Creates all the stores in memory, with the same behaviour as {@link createRedisStores} for a single process.
 * @example
 * ```ts
 * const stores = createMemoryStores();
 * await stores.sessionStore.append("s-1", turn);
 * ```
 */
export function createMemoryStores(options: MemoryStoresOptions = {}): MemoryStores {
  const now = options.now ?? Date.now;
  return {
    responseCache: new MemoryResponseCache({ ...options.responseCache, now, trace: options.trace, onEvent: options.onEvent }),
    sessionStore: new MemorySessionStore({ ...options.sessions, now }),
    performanceStore: new MemoryPerformanceStore(options.performance),
    healthStore: new MemoryHealthStore({ now }),
    circuitStateStore: new MemoryCircuitStateStore(),
    mcpSessionRegistry: new MemoryMcpSessionRegistry({ now }),
    health: async () => ({ ok: true, backend: "memory", mode: "memory", status: "ready", latencyMs: 0 }),
    close: async () => {},
  };
}
