import { emitTrace, type BackendHealth, type FlowBackendV1, type HealthStore, type TraceContext } from "@afw/contracts";
import { createMemoryHealthStore } from "@afw/cache";
import { withinMs } from "./flow-discovery-cache.js";

/** Options of {@link createHealthCache}. */
export interface HealthCacheOptions {
  /** Shared snapshots. @default in-memory */
  store?: HealthStore;
  /** How long a snapshot is fresh. @default 30000 */
  ttlMs?: number;
  /** Longest wait for one probe; a probe that takes longer counts as `down`. @default 5000 */
  probeTimeoutMs?: number;
  /** Clock (epoch ms). @default Date.now */
  now?: () => number;
  /** Where `health-checked` events go (background probes have no request of their own). */
  trace?: TraceContext;
}

/**
 * Health snapshots of backends with a routing fast path: {@link HealthCache.peek} answers
 * synchronously from the last snapshot and refreshes a stale one in the background, so routing
 * never waits on a probe once a snapshot exists. Snapshots are shared through a
 * {@link HealthStore}; a fresh snapshot written by another instance is used instead of probing.
 */
export interface HealthCache {
  /** Last known snapshot (possibly stale, then refreshed in the background), or undefined. */
  peek(backend: FlowBackendV1): BackendHealth | undefined;
  /** A fresh snapshot: from the store when fresh there, else a probe (deduplicated). */
  get(backend: FlowBackendV1, trace?: TraceContext): Promise<BackendHealth>;
  /** Probes now, ignoring freshness. */
  refresh(backend: FlowBackendV1, trace?: TraceContext): Promise<BackendHealth>;
}

/** Creates a {@link HealthCache}. */
export function createHealthCache(options: HealthCacheOptions = {}): HealthCache {
  const store = options.store ?? createMemoryHealthStore({ now: options.now });
  const ttlMs = options.ttlMs ?? 30_000;
  const probeTimeoutMs = options.probeTimeoutMs ?? 5_000;
  const now = options.now ?? Date.now;
  const local = new Map<string, { health: BackendHealth; fetchedAt: number }>();
  const inflight = new Map<string, Promise<BackendHealth>>();

  const probe = async (backend: FlowBackendV1, trace?: TraceContext): Promise<BackendHealth> => {
    const started = performance.now();
    let health: BackendHealth;
    try {
      health = await withinMs(probeTimeoutMs, "timeout", (signal) => backend.checkHealth(signal));
    } catch (error) {
      health = {
        backendId: backend.id,
        kind: backend.kind,
        status: "down",
        latencyMs: performance.now() - started,
        checkedAt: new Date(now()).toISOString(),
        message: (error as Error)?.message === "timeout" ? `health probe timed out after ${probeTimeoutMs} ms` : "health probe failed",
        errorCode: (error as Error)?.message === "timeout" ? "BACKEND_TIMEOUT" : "BACKEND_UNAVAILABLE",
      };
    }
    local.set(backend.id, { health, fetchedAt: now() });
    emitTrace(trace ?? options.trace, "health-checked", { backendId: backend.id, status: health.status, latencyMs: health.latencyMs });
    try {
      await store.set(health, ttlMs);
    } catch {
      // a failing shared store must not break routing; the local snapshot still serves
    }
    return health;
  };

  const refreshDeduplicated = (backend: FlowBackendV1, trace?: TraceContext, preferStore = true): Promise<BackendHealth> => {
    let pending = inflight.get(backend.id);
    if (!pending) {
      pending = (async () => {
        if (preferStore) {
          try {
            const shared = await store.get(backend.id);
            if (shared) {
              local.set(backend.id, { health: shared, fetchedAt: now() });
              return shared;
            }
          } catch {
            // fall through to probing
          }
        }
        return probe(backend, trace);
      })().finally(() => inflight.delete(backend.id));
      inflight.set(backend.id, pending);
    }
    return pending;
  };

  return {
    peek(backend) {
      const entry = local.get(backend.id);
      if (!entry) return undefined;
      if (now() - entry.fetchedAt >= ttlMs && !inflight.has(backend.id)) {
        refreshDeduplicated(backend).catch(() => {});
      }
      return entry.health;
    },
    async get(backend, trace) {
      const entry = local.get(backend.id);
      if (entry && now() - entry.fetchedAt < ttlMs) return entry.health;
      return refreshDeduplicated(backend, trace);
    },
    refresh(backend, trace) {
      return refreshDeduplicated(backend, trace, false);
    },
  };
}
