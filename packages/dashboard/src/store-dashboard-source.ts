import type {
  CacheInvalidation,
  CacheStats,
  CircuitStateStore,
  HealthStore,
  PerformanceStore,
  PerformanceTarget,
  SessionStore,
  TraceEvent,
  TraceEventType,
} from "@afw/contracts";
import {
  type BackendView,
  type CacheFlowView,
  type DashboardSource,
  type FlowView,
  type GatewayInfo,
  type ToolSearchView,
  type ToolServerView,
} from "./dashboard-source.js";
import { buildQuerySummary, queriesFromTraceEvents } from "./query-summary.js";
import { cacheHitRateSeries, summarizePerformance, type SeriesWindow } from "./time-series.js";

type MaybePromise<T> = T | Promise<T>;

/** A log of recent trace events, such as the gateway's trace ring buffer (`@afw/server`'s `TraceRingBuffer` has this shape). */
export interface TraceEventLog {
  /** The most recent events, oldest first, optionally only of some types. */
  recent(options?: { limit?: number; types?: readonly TraceEventType[] }): MaybePromise<TraceEvent[]>;
  /** Every kept event of one trace, oldest first. */
  byTraceId(traceId: string): MaybePromise<TraceEvent[]>;
  /** Calls `listener` for every new event; returns an unsubscribe function. */
  subscribe?(listener: (event: TraceEvent) => void): () => void;
}

/** The parts of the response cache the dashboard uses (contracts `ResponseCache` fits). */
export interface DashboardCacheAccess {
  stats(): Promise<CacheStats>;
  /** Removes matching entries; resolves to how many were removed. */
  invalidate(selector: CacheInvalidation): Promise<number>;
}

/** Parts of the gateway {@link createStoreDashboardSource} reads. Leave out what you do not have. */
export interface StoreDashboardSourceParts {
  /** Gateway name/version. */
  info?: GatewayInfo;
  /** The configured backends. Required for the backends section. */
  backends?: () => MaybePromise<ReadonlyArray<Pick<BackendView, "id" | "kind">>>;
  /** Every known flow (contracts `UniversalFlow` fits; other fields are dropped). */
  flows?: () => MaybePromise<readonly FlowView[]>;
  /** Shared health snapshots. */
  healthStore?: HealthStore;
  /** Shared circuit-breaker states (keys `<backendId>` and `<backendId>:<flowId>`). */
  circuitStore?: CircuitStateStore;
  /** Rolling performance windows. */
  performanceStore?: PerformanceStore;
  /** Recent trace events (the gateway's ring buffer): queries, their events and the live feed. */
  traces?: TraceEventLog;
  /** The question of a trace, which no trace event carries; without it the feed shows lengths only. */
  questionOf?: (traceId: string) => string | undefined;
  /** The response cache. */
  cache?: DashboardCacheAccess;
  /** Session memory. */
  sessionStore?: Pick<SessionStore, "list" | "get">;
  /** Downstream MCP servers (`@afw/downstream`'s `DownstreamServerStatus` fits: `connected` defaults to `state === "connected"`). */
  toolServers?: () => MaybePromise<ReadonlyArray<Omit<ToolServerView, "connected"> & { connected?: boolean | undefined }>>;
  /** What `search_tools` returns for a query (contracts `ToolSearchResult` fits). */
  searchTools?: (query: string, options: { limit: number }) => MaybePromise<ToolSearchView>;
  /** Clock, epoch milliseconds. @default Date.now */
  now?: () => number;
}

/**
 * Builds a {@link DashboardSource} from the gateway's parts: the contracts stores (health,
 * circuits, performance, cache, sessions), the trace ring buffer, the registry and the tool zoo.
 * Sections whose parts are missing show as "not configured".
 *
 * @example
 * ```ts
 * const source = createStoreDashboardSource({ flows: () => flowRegistry.all(), traces: ringBuffer, cache: stores.cache });
 * ```
 */
export function createStoreDashboardSource(parts: StoreDashboardSourceParts): DashboardSource {
  const now = parts.now ?? Date.now;
  const scanLimit = 5_000; // trace events scanned to list queries and the cache hit rate
  const window = (): SeriesWindow => ({ now: now() }); // the last hour in 30 buckets
  const source: DashboardSource = {};
  const traces = parts.traces;

  if (parts.info !== undefined) {
    const info = parts.info;
    source.info = async () => info;
  }

  if (parts.backends) {
    const listBackends = parts.backends;
    source.backends = async () => {
      const [descriptors, healthList, circuits, targets] = await Promise.all([
        listBackends(),
        parts.healthStore?.all(),
        parts.circuitStore?.all(),
        parts.performanceStore?.targets(),
      ]);
      const health = new Map((healthList ?? []).map((snapshot) => [snapshot.backendId, snapshot]));
      const circuitByKey = new Map((circuits ?? []).map((state) => [state.key, state]));
      const currentWindow = window();
      return Promise.all(
        descriptors.map(async (descriptor): Promise<BackendView> => {
          const store = parts.performanceStore;
          const figuresOf = async (target: PerformanceTarget) => summarizePerformance(store ? await store.window(target) : [], currentWindow);
          const flowTargets = (targets ?? []).filter((target) => target.backendId === descriptor.id && target.flowId !== undefined);
          const [figures, flows] = await Promise.all([
            figuresOf({ backendId: descriptor.id }),
            Promise.all(flowTargets.map(async (target) => ({ flowId: target.flowId!, ...(await figuresOf(target)) }))),
          ]);
          const snapshot = health.get(descriptor.id);
          const circuit = circuitByKey.get(descriptor.id);
          return {
            id: descriptor.id,
            kind: descriptor.kind,
            health: snapshot?.status ?? "unknown",
            healthMessage: snapshot?.message,
            checkedAt: snapshot?.checkedAt,
            healthLatencyMs: snapshot?.latencyMs,
            circuit: circuit?.state ?? "closed",
            circuitFailures: circuit?.failures,
            nextProbeAt: circuit?.nextProbeAt,
            ...figures,
            flows,
          };
        }),
      );
    };
  }

  if (parts.flows) {
    const listFlows = parts.flows;
    source.flows = async () =>
      (await listFlows()).map(({ id, backendId, name, intents, description, generalPurpose, cacheable, cacheClass }) => {
        return { id, backendId, name, intents: [...intents], description, generalPurpose, cacheable, cacheClass };
      });
  }

  if (traces) {
    source.recentQueries = async ({ limit }) => queriesFromTraceEvents(await traces.recent({ limit: scanLimit }), { limit, questionOf: parts.questionOf });
    source.query = async (traceId) => buildQuerySummary(await traces.byTraceId(traceId), { question: parts.questionOf?.(traceId) });
    source.queryEvents = async (traceId) => {
      const events = await traces.byTraceId(traceId);
      return events.length > 0 ? events : undefined;
    };
    if (traces.subscribe) {
      const subscribe = traces.subscribe.bind(traces);
      source.subscribe = (listener) => subscribe(listener);
    }
  }

  if (parts.cache) {
    const cache = parts.cache;
    source.cache = async () => {
      const [stats, events] = await Promise.all([cache.stats(), traces ? traces.recent({ limit: scanLimit, types: ["cache-hit", "cache-miss"] }) : []]);
      const byFlow: CacheFlowView[] = Object.entries(stats.byFlow).map(([flowId, counters]) => ({ flowId, ...counters }));
      return {
        stats,
        byFlow: byFlow.sort((a, b) => a.flowId.localeCompare(b.flowId)),
        hitRateSeries: cacheHitRateSeries(events, window()),
      };
    };
    source.clearCache = (selector) => cache.invalidate(selector);
  }

  if (parts.sessionStore) {
    const sessions = parts.sessionStore;
    source.sessions = ({ limit, pattern }) => sessions.list(pattern, { limit });
    source.session = (sessionId) => sessions.get(sessionId);
  }

  if (parts.toolServers) {
    const listServers = parts.toolServers;
    source.toolServers = async () =>
      (await listServers()).map(({ name, mode, connected, toolCount, transport, state, lastError }) => {
        return { name, mode, connected: connected ?? state === "connected", toolCount, transport, state, lastError };
      });
  }

  if (parts.searchTools) {
    const search = parts.searchTools;
    source.searchTools = async (query, options) => search(query, options);
  }

  return source;
}
