import { MemoryMcpSessionRegistry } from "./mcp-session-registry.js";
import { MemoryResponseCache, type MemoryResponseCacheOptions } from "./memory-response-cache.js";
import { MemorySessionStore, type MemorySessionStoreOptions } from "./memory-session-store.js";
import type { StoreHealth } from "./redis-connection.js";
import { MemoryCircuitStateStore, MemoryHealthStore, MemoryPerformanceStore } from "./shared-state-stores.js";
import type { StoreEventOptions } from "./store-events.js";

/** Options of {@link createMemoryStores}. */
export interface MemoryStoresOptions extends StoreEventOptions {
  /** Clock in epoch ms shared by the stores (inject one to test expiry). @default Date.now */
  now?: (() => number) | undefined;
  /** Response cache settings. */
  responseCache?: Omit<MemoryResponseCacheOptions, "now" | "trace" | "onEvent"> | undefined;
  /** Session memory settings. */
  sessions?: Omit<MemorySessionStoreOptions, "now"> | undefined;
}

/** The stores of one backend (Redis or memory), each of its own type. */
export interface StoreSet<Cache, Sessions, Performance, Health, Circuits, Registry> {
  /** Answers by (tenant, scope, flow, question). */
  readonly responseCache: Cache;
  /** Conversation memory. */
  readonly sessionStore: Sessions;
  /** Rolling latency/success windows for routing. */
  readonly performanceStore: Performance;
  /** Backend health snapshots. */
  readonly healthStore: Health;
  /** Circuit-breaker states. */
  readonly circuitStateStore: Circuits;
  /** MCP Streamable HTTP sessions (`Mcp-Session-Id`): of this process in memory, of every gateway instance on Redis. */
  readonly mcpSessionRegistry: Registry;
  /** Whether the stores answer (Redis: a PING within `operationTimeoutMs`; memory: always ok). */
  health(): Promise<StoreHealth>;
  /** Releases what the stores hold (Redis: flushes pending counters and closes the connection it created). Idempotent. */
  close(): Promise<void>;
}

/** The stores in process memory: the embedded default for one gateway process. */
export type MemoryStores = StoreSet<MemoryResponseCache, MemorySessionStore, MemoryPerformanceStore, MemoryHealthStore, MemoryCircuitStateStore, MemoryMcpSessionRegistry>;

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
    performanceStore: new MemoryPerformanceStore(),
    healthStore: new MemoryHealthStore({ now }),
    circuitStateStore: new MemoryCircuitStateStore(),
    mcpSessionRegistry: new MemoryMcpSessionRegistry({ now }),
    health: async () => ({ ok: true, backend: "memory", mode: "memory", status: "ready", latencyMs: 0 }),
    close: async () => {},
  };
}
