import type { PerformanceSample, PerformanceStore, PerformanceTarget } from "@afw/contracts";
import { createMemoryPerformanceStore } from "@afw/cache";
import { NEUTRAL_PERFORMANCE_SCORE, summarizePerformance, type PerformanceSummary } from "./scoring.js";

/** How long a cached summary is used before it is re-read from the store in the background. */
const SUMMARY_TTL_MS = 5_000;

/** Options of {@link createPerformanceTracker}. */
export interface PerformanceTrackerOptions {
  /** Where samples are kept (shared across instances when Redis-backed). @default in-memory, 100 per window */
  store?: PerformanceStore;
  /** Clock (epoch ms). @default Date.now */
  now?: () => number;
}

/**
 * Records calls into a {@link PerformanceStore} and serves `performance` scores synchronously from cached summaries (re-read from
 * the store in the background), so routing never awaits the store.
 */
export interface PerformanceTracker {
  /** Adds a sample to the store and updates the cached summaries of its backend and flow. */
  record(sample: PerformanceSample): Promise<void>;
  /** The cached summary of a target (neutral when unknown); refreshes it in the background when old. */
  summary(target: PerformanceTarget): PerformanceSummary;
  /** Re-reads a target's window from the store now. */
  load(target: PerformanceTarget): Promise<PerformanceSummary>;
  /** The underlying store. */
  readonly store: PerformanceStore;
}

/** Creates a {@link PerformanceTracker}. */
export function createPerformanceTracker(options: PerformanceTrackerOptions = {}): PerformanceTracker {
  const store = options.store ?? createMemoryPerformanceStore();
  const now = options.now ?? Date.now;
  const neutral: PerformanceSummary = Object.freeze({ samples: 0, successRate: Number.NaN, p50Ms: undefined, p95Ms: undefined, score: NEUTRAL_PERFORMANCE_SCORE });
  const cache = new Map<string, { summary: PerformanceSummary; at: number; loading: boolean }>();
  const keys = new WeakMap<PerformanceTarget, string>();
  const keyOf = (t: PerformanceTarget) => {
    let key = keys.get(t);
    if (key === undefined) {
      key = t.flowId === undefined ? t.backendId : `${t.backendId}\u0000${t.flowId}`;
      keys.set(t, key);
    }
    return key;
  };
  // Background re-reads are spread out: at most this many in flight, so one decision never schedules hundreds of store
  // reads at once.
  const maxBackgroundLoads = 8;
  let backgroundLoads = 0;
  const loadInBackground = (target: PerformanceTarget) => {
    if (backgroundLoads >= maxBackgroundLoads) return false;
    backgroundLoads++;
    load(target)
      .catch(() => {})
      .finally(() => backgroundLoads--);
    return true;
  };

  const load = async (target: PerformanceTarget): Promise<PerformanceSummary> => {
    const key = keyOf(target);
    const entry = cache.get(key);
    if (entry) entry.loading = true;
    try {
      const samples = await store.window(target);
      const summary = summarizePerformance(samples, now());
      cache.set(key, { summary, at: now(), loading: false });
      return summary;
    } catch {
      if (entry) entry.loading = false;
      return entry?.summary ?? neutral;
    }
  };

  // Re-reads after a record are coalesced per target: a record joins the re-read queued behind the
  // one in flight (it starts after this record's sample was stored), so N concurrent records
  // cost two window reads and summaries per target instead of N.
  const queued = new Map<string, Promise<PerformanceSummary>>();
  const running = new Map<string, Promise<PerformanceSummary>>();
  const reloadAfterWrite = (target: PerformanceTarget): Promise<PerformanceSummary> => {
    const key = keyOf(target);
    const waiting = queued.get(key);
    if (waiting) return waiting;
    const before = running.get(key);
    const next = (before ? before.catch(() => neutral) : Promise.resolve(neutral)).then(() => {
      queued.delete(key);
      const run = load(target);
      running.set(key, run);
      void run
        .finally(() => {
          if (running.get(key) === run) running.delete(key);
        })
        .catch(() => {});
      return run;
    });
    queued.set(key, next);
    return next;
  };

  return {
    store,
    async record(sample) {
      try {
        await store.record(sample);
      } catch {
        // a failing shared store must not fail the request that produced the sample
      }
      await Promise.all([
        reloadAfterWrite({ backendId: sample.backendId }),
        sample.flowId === undefined ? undefined : reloadAfterWrite({ backendId: sample.backendId, flowId: sample.flowId }),
      ]);
    },
    summary(target) {
      const key = keyOf(target);
      const entry = cache.get(key);
      if (!entry) {
        if (loadInBackground(target)) cache.set(key, { summary: neutral, at: now(), loading: true });
        return neutral;
      }
      if (!entry.loading && now() - entry.at >= SUMMARY_TTL_MS) loadInBackground(target);
      return entry.summary;
    },
    load,
  };
}
