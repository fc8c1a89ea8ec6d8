import { describe, expect, it } from "vitest";
import type {
  BackendHealth,
  CacheInvalidation,
  CacheStats,
  CircuitState,
  CircuitStateStore,
  HealthStore,
  PerformanceSample,
  PerformanceStore,
  PerformanceTarget,
  SessionRecord,
  SessionStore,
  TraceEvent,
  TraceEventType,
} from "@afw/contracts";
import { createStoreDashboardSource, type TraceEventLog } from "./store-dashboard-source.js";
import { buildQueryTrace } from "./testing.js";

const NOW = Date.parse("2026-03-01T09:00:00.000Z");

/** Minimal in-test implementations of the contracts store interfaces. */
function listStore<T>(items: T[], keyOf: (item: T) => string) {
  return {
    async get(key: string) {
      return items.find((item) => keyOf(item) === key);
    },
    async set() {},
    async all() {
      return items;
    },
  };
}

const healthStore = (snapshots: BackendHealth[]): HealthStore => listStore(snapshots, (snapshot) => snapshot.backendId);
const circuitStore = (states: CircuitState[]): CircuitStateStore => listStore(states, (state) => state.key);

function performanceStore(samples: PerformanceSample[]): PerformanceStore {
  const key = (target: PerformanceTarget) => `${target.backendId}|${target.flowId ?? ""}`;
  return {
    async record(sample) {
      samples.push(sample);
    },
    async window(target) {
      return samples.filter((sample) => sample.backendId === target.backendId && (target.flowId === undefined || sample.flowId === target.flowId));
    },
    async targets() {
      const seen = new Map<string, PerformanceTarget>();
      for (const sample of samples) {
        seen.set(key({ backendId: sample.backendId }), { backendId: sample.backendId });
        if (sample.flowId) seen.set(key(sample), { backendId: sample.backendId, flowId: sample.flowId });
      }
      return [...seen.values()];
    },
  };
}

function traceLog(events: TraceEvent[]): TraceEventLog & { listeners: Set<(event: TraceEvent) => void> } {
  const listeners = new Set<(event: TraceEvent) => void>();
  return {
    listeners,
    recent({ limit = 100, types }: { limit?: number; types?: readonly TraceEventType[] } = {}) {
      const filtered = types ? events.filter((event) => types.includes(event.type)) : events;
      return filtered.slice(-limit);
    },
    byTraceId(traceId) {
      return events.filter((event) => event.traceId === traceId);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

describe("createStoreDashboardSource", () => {
  it("offers only the methods whose parts were given", () => {
    expect(Object.keys(createStoreDashboardSource({}))).toEqual([]);
    const withTraces = createStoreDashboardSource({ traces: traceLog([]) });
    expect(Object.keys(withTraces).sort()).toEqual(["query", "queryEvents", "recentQueries", "subscribe"]);
    const withoutSubscribe = createStoreDashboardSource({ traces: { recent: () => [], byTraceId: () => [] } });
    expect(withoutSubscribe.subscribe).toBeUndefined();
  });

  it("builds backend views from health, circuit and performance stores", async () => {
    const sample = (backendId: string, flowId: string, minutesAgo: number, latencyMs: number, success: boolean): PerformanceSample => ({
      backendId,
      flowId,
      latencyMs,
      success,
      timestamp: NOW - minutesAgo * 60_000,
    });
    const source = createStoreDashboardSource({
      now: () => NOW,
      backends: () => [
        { id: "fw", kind: "flowise" },
        { id: "lf", kind: "langflow" },
        { id: "new", kind: "flowise" },
      ],
      healthStore: healthStore([
        { backendId: "fw", kind: "flowise", status: "healthy", latencyMs: 12, checkedAt: new Date(NOW).toISOString() },
        { backendId: "lf", kind: "langflow", status: "down", latencyMs: 3000, checkedAt: new Date(NOW).toISOString(), message: "HTTP 503", errorCode: "BACKEND_UNAVAILABLE" },
      ]),
      circuitStore: circuitStore([
        { key: "lf", state: "open", failures: 5, openedAt: NOW - 1000, nextProbeAt: NOW + 29_000, updatedAt: NOW },
        { key: "fw:fw:code", state: "half-open", failures: 2, updatedAt: NOW },
      ]),
      performanceStore: performanceStore([
        sample("fw", "fw:code", 50, 100, true),
        sample("fw", "fw:code", 46, 300, true),
        sample("fw", "fw:docs", 5, 200, false),
        sample("lf", "lf:arch", 1, 900, false),
      ]),
    });
    const backends = await source.backends?.();
    expect(backends?.map((backend) => [backend.id, backend.health, backend.circuit])).toEqual([
      ["fw", "healthy", "closed"],
      ["lf", "down", "open"],
      ["new", "unknown", "closed"],
    ]);
    const [fw, lf, fresh] = backends ?? [];
    expect(fw).toMatchObject({ kind: "flowise", requestCount: 3, latencyP50Ms: 200, latencyP95Ms: 300, healthLatencyMs: 12 });
    expect(fw?.successRate).toBeCloseTo(2 / 3);
    // the last hour in 30 buckets of 2 minutes: samples 50, 46 and 5 minutes ago
    expect(fw?.series.flatMap((point, index) => (point.count > 0 ? [[index, point.count]] : []))).toEqual([[5, 1], [7, 1], [27, 1]]);
    expect(fw?.flows.map((flow) => [flow.flowId, flow.requestCount])).toEqual([
      ["fw:code", 2],
      ["fw:docs", 1],
    ]);
    expect(lf).toMatchObject({ healthMessage: "HTTP 503", circuitFailures: 5, nextProbeAt: NOW + 29_000, successRate: 0 });
    expect(fresh).toMatchObject({ requestCount: 0, flows: [] });
    expect(fresh?.successRate).toBeUndefined();
  });

  it("maps flows to views without their metadata", async () => {
    const source = createStoreDashboardSource({
      flows: () => [
        { id: "fw:code", backendId: "fw", name: "Code", intents: ["technical-analysis"], generalPurpose: false, cacheable: true, cacheClass: "technical", metadata: { apiKey: "sk-secret" } } as never,
      ],
    });
    const flows = await source.flows?.();
    expect(flows).toEqual([{ id: "fw:code", backendId: "fw", name: "Code", intents: ["technical-analysis"], generalPurpose: false, cacheable: true, cacheClass: "technical" }]);
  });

  it("lists queries from the trace log with their questions and forwards the subscription", async () => {
    const events = [
      ...buildQueryTrace({ traceId: "q1", startedAt: NOW - 2000, attempts: [{ backendId: "fw", flowId: "fw:code" }] }),
      ...buildQueryTrace({ traceId: "q2", startedAt: NOW - 1000, cache: "hit" }),
    ];
    const log = traceLog(events);
    const source = createStoreDashboardSource({ traces: log, questionOf: (traceId) => (traceId === "q1" ? "first?" : undefined) });
    const queries = await source.recentQueries?.({ limit: 10 });
    expect(queries?.map((query) => [query.traceId, query.question, query.cache])).toEqual([
      ["q2", undefined, "exact"],
      ["q1", "first?", "miss"],
    ]);
    expect((await source.query?.("q1"))?.question).toBe("first?");
    expect(await source.query?.("nope")).toBeUndefined();
    expect((await source.queryEvents?.("q1"))?.length).toBe(events.filter((event) => event.traceId === "q1").length);
    expect(await source.queryEvents?.("nope")).toBeUndefined();
    const seen: string[] = [];
    const unsubscribe = await source.subscribe?.((event) => seen.push(event.type));
    for (const listener of log.listeners) listener(events[0] as TraceEvent);
    expect(seen).toEqual(["query-received"]);
    unsubscribe?.();
    expect(log.listeners.size).toBe(0);
  });

  it("lists cache counters by flow and clears through invalidate", async () => {
    const stats: CacheStats = {
      hits: 3,
      semanticHits: 1,
      misses: 1,
      writes: 2,
      errors: 0,
      hitRate: 0.75,
      byFlow: { "fw:code": { hits: 3, misses: 1, writes: 2 } },
    };
    const invalidations: CacheInvalidation[] = [];
    const source = createStoreDashboardSource({
      now: () => NOW,
      cache: {
        stats: async () => stats,
        invalidate: async (selector) => {
          invalidations.push(selector);
          return 7;
        },
      },
      traces: traceLog([{ type: "cache-hit", traceId: "t", requestId: "r", timestamp: new Date(NOW - 60_000).toISOString(), scope: "shared", flowId: "fw:code", kind: "exact" }]),
    });
    const cache = await source.cache?.();
    expect(cache?.stats).toBe(stats);
    expect(cache?.byFlow).toEqual([
      { flowId: "fw:code", hits: 3, misses: 1, writes: 2 },
    ]);
    expect(cache?.hitRateSeries.at(-1)).toMatchObject({ hits: 1, misses: 0, hitRate: 1 });
    expect(await source.clearCache?.({ flowId: "fw:code" })).toBe(7);
    await source.clearCache?.({ sessionId: "s" });
    await source.clearCache?.({ all: true });
    expect(invalidations).toEqual([{ flowId: "fw:code" }, { sessionId: "s" }, { all: true }]);
  });

  it("reads sessions from the session store and maps downstream statuses", async () => {
    const record: SessionRecord = { sessionId: "s1", turns: 1, createdAt: 1, updatedAt: 2, turnsList: [{ question: "q", answer: "a", askedAt: 1, answeredAt: 2 }] };
    const calls: unknown[] = [];
    const sessions: Pick<SessionStore, "list" | "get"> = {
      async list(pattern, options) {
        calls.push([pattern, options]);
        return [record];
      },
      async get(sessionId) {
        return sessionId === "s1" ? record : undefined;
      },
    };
    const source = createStoreDashboardSource({
      sessionStore: sessions,
      toolServers: () => [
        { name: "files", mode: "hot", state: "connected", toolCount: 11, transport: "stdio", pid: 123, inFlightCalls: 0 } as never,
        { name: "gh", mode: "cold", state: "backing-off", toolCount: 0, lastError: "refused" } as never,
      ],
      searchTools: (query, { limit }) => ({ results: [], confidence: limit / 10, mode: query }),
    });
    expect(await source.sessions?.({ limit: 5, pattern: "s*" })).toEqual([record]);
    expect(calls).toEqual([["s*", { limit: 5 }]]);
    expect(await source.session?.("s1")).toBe(record);
    expect(await source.session?.("s2")).toBeUndefined();
    expect(await source.toolServers?.()).toEqual([
      { name: "files", mode: "hot", connected: true, toolCount: 11, transport: "stdio", state: "connected" },
      { name: "gh", mode: "cold", connected: false, toolCount: 0, state: "backing-off", lastError: "refused" },
    ]);
    expect(await source.searchTools?.("hybrid", { limit: 5 })).toEqual({ results: [], confidence: 0.5, mode: "hybrid" });
  });
});
