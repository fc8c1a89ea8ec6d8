import { emitTrace, type FlowBackendV1, type TraceContext, type UniversalFlow } from "@afw/contracts";

/** How long a discovered list is fresh. */
const TTL_MS = 300_000;
/** Longest wait for one discovery; then the stale list is served. */
const DISCOVERY_TIMEOUT_MS = 10_000;

/** Runs `task` with a signal aborted after `ms`, rejecting with `Error(message)` then even when `task` ignores the signal. */
export async function withinMs<T>(ms: number, message: string, task: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(message));
    }, ms);
  });
  try {
    return await Promise.race([task(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Options of {@link createFlowDiscoveryCache}. */
export interface FlowDiscoveryCacheOptions {
  /** Clock (epoch ms). @default Date.now */
  now?: () => number;
  /** Where `flows-discovered` events of background refreshes go. */
  trace?: TraceContext;
}

/**
 * Where a {@link Router} gets each backend's flow lists. The router's own ({@link createFlowDiscoveryCache}) serves a list
 * stale-while-revalidate: a fresh list from memory; an expired one at once while a background refresh runs; when discovery
 * fails or times out the previous list keeps being served (event `flows-discovered` with `stale: true`).
 */
export interface BackendFlowSource {
  /** The backend's flows. Waits only when there is no list yet. @throws the discovery error when there is no list at all. */
  get(backend: FlowBackendV1, trace?: TraceContext): Promise<UniversalFlow[]>;
  /** The current list without waiting (undefined before the first discovery); may start a background refresh when stale. */
  peek(backend: FlowBackendV1): UniversalFlow[] | undefined;
  /** Rediscovers now; serves the previous list on failure when there is one. */
  refresh(backend: FlowBackendV1, trace?: TraceContext): Promise<UniversalFlow[]>;
}

/** Creates the router's own {@link BackendFlowSource}. */
export function createFlowDiscoveryCache(options: FlowDiscoveryCacheOptions = {}): BackendFlowSource {
  const now = options.now ?? Date.now;
  const entries = new Map<string, { flows: UniversalFlow[]; fetchedAt: number }>();
  const inflight = new Map<string, Promise<UniversalFlow[]>>();

  const discover = (backend: FlowBackendV1, trace?: TraceContext): Promise<UniversalFlow[]> => {
    let pending = inflight.get(backend.id);
    if (pending) return pending;
    pending = (async () => {
      try {
        const flows = await withinMs(DISCOVERY_TIMEOUT_MS, `flow discovery of ${backend.id} timed out after ${DISCOVERY_TIMEOUT_MS} ms`, (signal) => backend.discoverFlows(signal));
        entries.set(backend.id, { flows, fetchedAt: now() });
        emitTrace(trace ?? options.trace, "flows-discovered", { backendId: backend.id, count: flows.length, stale: false });
        return flows;
      } catch (error) {
        const previous = entries.get(backend.id);
        if (previous) {
          // keep serving, but retry after a short pause rather than a full TTL
          previous.fetchedAt = now() - TTL_MS + 30_000;
          emitTrace(trace ?? options.trace, "flows-discovered", { backendId: backend.id, count: previous.flows.length, stale: true });
          return previous.flows;
        }
        throw error;
      } finally {
        inflight.delete(backend.id);
      }
    })();
    inflight.set(backend.id, pending);
    return pending;
  };

  return {
    async get(backend, trace) {
      const entry = entries.get(backend.id);
      if (!entry) return discover(backend, trace);
      if (now() - entry.fetchedAt >= TTL_MS) discover(backend, trace).catch(() => {});
      return entry.flows;
    },
    peek(backend) {
      const entry = entries.get(backend.id);
      if (entry && now() - entry.fetchedAt >= TTL_MS && !inflight.has(backend.id)) discover(backend).catch(() => {});
      return entry?.flows;
    },
    refresh(backend, trace) {
      return discover(backend, trace);
    },
  };
}
