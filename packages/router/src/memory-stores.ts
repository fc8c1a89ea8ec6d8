import type {
  BackendHealth,
  CircuitState,
  CircuitStateStore,
  HealthStore,
  PerformanceSample,
  PerformanceStore,
  PerformanceTarget,
} from "@afw/contracts";

/** Options of {@link createInMemoryPerformanceStore}. */
export interface InMemoryPerformanceStoreOptions {
  /** Samples kept per backend and per (backend, flow). @default 100 */
  windowSize?: number;
}

const targetKey = (target: PerformanceTarget) => (target.flowId === undefined ? `b|${target.backendId}` : `f|${target.backendId}|${target.flowId}`);

/**
 * A {@link PerformanceStore} in process memory: a ring of the last `windowSize` samples per backend
 * and per (backend, flow). For one gateway instance; `@afw/cache` provides a Redis one to share.
 *
 * @example
 * ```ts
 * const store = createInMemoryPerformanceStore();
 * await store.record({ backendId: "flowise", flowId: "flowise:qa", latencyMs: 420, success: true, timestamp: Date.now() });
 * ```
 */
export function createInMemoryPerformanceStore(options: InMemoryPerformanceStoreOptions = {}): PerformanceStore {
  const windowSize = Math.max(1, options.windowSize ?? 100);
  const windows = new Map<string, { target: PerformanceTarget; samples: PerformanceSample[] }>();
  const push = (target: PerformanceTarget, sample: PerformanceSample) => {
    const key = targetKey(target);
    let entry = windows.get(key);
    if (!entry) {
      entry = { target, samples: [] };
      windows.set(key, entry);
    }
    entry.samples.push(sample);
    if (entry.samples.length > windowSize) entry.samples.splice(0, entry.samples.length - windowSize);
  };
  return {
    async record(sample) {
      push({ backendId: sample.backendId }, sample);
      if (sample.flowId !== undefined) push({ backendId: sample.backendId, flowId: sample.flowId }, sample);
    },
    async window(target) {
      return [...(windows.get(targetKey(target))?.samples ?? [])];
    },
    async targets() {
      return [...windows.values()].map((e) => ({ ...e.target }));
    },
  };
}

/** Options of the in-memory stores that expire entries. */
export interface InMemoryClockOptions {
  /** Clock in epoch milliseconds (inject for tests). @default Date.now */
  now?: () => number;
}

/**
 * A {@link HealthStore} in process memory; snapshots expire after their TTL.
 *
 * @example
 * ```ts
 * const store = createInMemoryHealthStore();
 * await store.set(health, 30_000);
 * ```
 */
export function createInMemoryHealthStore(options: InMemoryClockOptions = {}): HealthStore {
  const now = options.now ?? Date.now;
  const entries = new Map<string, { health: BackendHealth; expiresAt: number }>();
  const fresh = (id: string) => {
    const entry = entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt <= now()) {
      entries.delete(id);
      return undefined;
    }
    return entry.health;
  };
  return {
    async get(backendId) {
      return fresh(backendId);
    },
    async set(health, ttlMs) {
      entries.set(health.backendId, { health, expiresAt: now() + Math.max(0, ttlMs) });
    },
    async all() {
      return [...entries.keys()].map(fresh).filter((h): h is BackendHealth => h !== undefined);
    },
  };
}

/**
 * A {@link CircuitStateStore} in process memory.
 *
 * @example
 * ```ts
 * const breaker = createCircuitBreaker({ store: createInMemoryCircuitStateStore() });
 * ```
 */
export function createInMemoryCircuitStateStore(): CircuitStateStore {
  const states = new Map<string, CircuitState>();
  return {
    async get(key) {
      const s = states.get(key);
      return s ? { ...s } : undefined;
    },
    async set(state) {
      states.set(state.key, { ...state });
    },
    async all() {
      return [...states.values()].map((s) => ({ ...s }));
    },
  };
}
