import type {
  CacheInvalidation,
  CacheStats,
  CircuitState,
  HealthStatus,
  HistoryPage,
  HistoryQuery,
  Intent,
  RoutingCandidate,
  SessionRecord,
  SessionSummary,
  ToolSearchHit,
  TraceEvent,
} from "@afw/contracts";
import type { QueryRecord } from "@afw/analytics";
import type { AnalyticsRange, AnalyticsSummaryView, FlowAnalysisView, LearnedPriorView, MetricsExportView, PatternAnalysisView } from "./analytics-views.js";

/**
 * One point of a small time series: a bucket of `bucketMs` starting at `t`.
 *
 * Empty buckets are kept (with `count: 0` and no rates) so a chart can draw gaps.
 */
export interface TimeSeriesPoint {
  /** Start of the bucket, epoch milliseconds. */
  t: number;
  /** Calls (or cache lookups) in the bucket. */
  count: number;
  /** Share of successful calls in the bucket, 0..1; absent when `count` is 0. */
  successRate?: number | undefined;
  /** Median latency in the bucket, milliseconds; absent when `count` is 0. */
  p50Ms?: number | undefined;
  /** 95th-percentile latency in the bucket, milliseconds; absent when `count` is 0. */
  p95Ms?: number | undefined;
}

/** Latency and success figures of one backend or one (backend, flow) pair. */
export interface PerformanceFigures {
  /** Calls measured (in the window the source keeps). */
  requestCount: number;
  /** Share of successful calls, 0..1; absent without calls. */
  successRate?: number | undefined;
  /** Median latency, milliseconds; absent without calls. */
  latencyP50Ms?: number | undefined;
  /** 95th-percentile latency, milliseconds; absent without calls. */
  latencyP95Ms?: number | undefined;
  /** Per-bucket figures over the last hour, oldest first (see {@link TimeSeriesPoint}). */
  series: TimeSeriesPoint[];
}

/** Performance of one flow of a backend. */
export interface FlowPerformanceView extends PerformanceFigures {
  /** Gateway-wide flow id (`<backendId>:<backendFlowId>`). */
  flowId: string;
}

/** `closed`, `open` or `half-open`, as in contracts {@link CircuitState}; `closed` when unknown. */
export type CircuitStateName = CircuitState["state"];

/** What the dashboard shows about one backend. */
export interface BackendView extends PerformanceFigures {
  /** Configured backend id, e.g. `flowise-prod`. */
  id: string;
  /** Backend kind, e.g. `flowise` or `langflow`. */
  kind: string;
  /** Latest health status, or `unknown` when the backend was never probed. */
  health: HealthStatus | "unknown";
  /** Why the backend is slow or down (secret-free). */
  healthMessage?: string | undefined;
  /** When the health was last checked (ISO 8601). */
  checkedAt?: string | undefined;
  /** Round-trip time of the last health probe, milliseconds. */
  healthLatencyMs?: number | undefined;
  /** Circuit-breaker state of the backend. */
  circuit: CircuitStateName;
  /** Consecutive failures counted by the circuit breaker. */
  circuitFailures?: number | undefined;
  /** When an open circuit lets a probe through (epoch milliseconds). */
  nextProbeAt?: number | undefined;
  /** Performance of each of its flows that saw traffic. */
  flows: FlowPerformanceView[];
}

/** What the dashboard shows about one flow. */
export interface FlowView {
  /** Gateway-wide flow id (`<backendId>:<backendFlowId>`). */
  id: string;
  /** Backend the flow lives on. */
  backendId: string;
  /** Display name. */
  name: string;
  /** Intents the flow serves, best first. */
  intents: Intent[];
  /** Optional description. */
  description?: string | undefined;
  /** Suitable as a catch-all for low-confidence questions. */
  generalPurpose?: boolean | undefined;
  /** Whether its answers may be cached. */
  cacheable?: boolean | undefined;
  /** TTL class of the cache, e.g. `technical`. */
  cacheClass?: string | undefined;
}

/** How a query used the answer cache. */
export type QueryCacheOutcome = "hit" | "semantic-hit" | "miss" | "bypass" | "unknown";

/** One ended attempt of a query against a backend flow (from `backend-call-end`), as `@afw/analytics` folds it. */
export type QueryAttempt = Omit<QueryRecord["attempts"][number], "at">;

/** A fallback from one candidate to the next (from `fallback-triggered`). */
export type QueryFallback = QueryRecord["fallbacks"][number];

/** A backend and one of its flows. */
export interface FlowRef {
  /** Backend id. */
  backendId: string;
  /** Gateway-wide flow id. */
  flowId: string;
}

/**
 * One routed query as the live feed shows it. Build it from a query's trace events with
 * {@link buildQuerySummary}; the question itself is not in any trace event and comes from the
 * source (see {@link DashboardSource.query}).
 */
export type QuerySummary = Pick<
  QueryRecord,
  "traceId" | "sessionId" | "tool" | "questionLength" | "intent" | "confidence" | "method" | "errorCode" | "errorMessage" | "durationMs"
> & {
  /** Id of the MCP/HTTP request. */
  requestId?: string | undefined;
  /** When the query entered the gateway (ISO 8601). */
  startedAt: string;
  /** When it was answered or failed (ISO 8601). */
  finishedAt?: string | undefined;
  /** The question (truncated, or hidden in redacted mode); absent when the source does not know it. */
  question?: string | undefined;
  /** True when the dashboard hid the question (redacted mode). */
  questionRedacted?: boolean | undefined;
  /** True when the dashboard shortened the question. */
  questionTruncated?: boolean | undefined;
  /** Routing strategy (`direct`, `hedge`, …). */
  strategy?: string | undefined;
  /** The router's first choice. */
  chosen?: FlowRef | undefined;
  /** The backend and flow that produced the answer (differs from `chosen` after a fallback). */
  answeredBy?: FlowRef | undefined;
  /** Every scored candidate, best first, with its score breakdown. */
  candidates: Pick<RoutingCandidate, "backendId" | "flowId" | "flowName" | "rank" | "score" | "breakdown" | "excluded">[];
  /** Every attempt, in order. */
  attempts: QueryAttempt[];
  /** Every fallback, in order. */
  fallbacks: QueryFallback[];
  /** How the cache was used. */
  cache: QueryCacheOutcome;
  /** `success`, `error`, or `pending` while no final event was seen. */
  outcome: "success" | "error" | "pending";
  /** Number of trace events the summary was built from. */
  eventCount: number;
};

/** Entries kept in the cache for one flow. */
export interface CacheFlowView {
  /** Gateway-wide flow id. */
  flowId: string;
  /** Entries currently stored, when the cache can count them. */
  entries?: number | undefined;
  /** Hits counted for the flow. */
  hits?: number | undefined;
  /** Misses counted for the flow. */
  misses?: number | undefined;
  /** Writes counted for the flow. */
  writes?: number | undefined;
}

/** One bucket of the cache hit-rate series. */
export interface CacheHitRatePoint {
  /** Start of the bucket, epoch milliseconds. */
  t: number;
  /** Hits (exact and semantic) in the bucket. */
  hits: number;
  /** Misses in the bucket. */
  misses: number;
  /** `hits / (hits + misses)`; absent for an empty bucket. */
  hitRate?: number | undefined;
}

/** What the dashboard shows about the answer cache. */
export interface CacheView {
  /** The cache's counters (contracts {@link CacheStats}), when known. */
  stats?: CacheStats | undefined;
  /** Entries (and counters) by flow. */
  byFlow: CacheFlowView[];
  /** Hit rate over the last hour, oldest first. */
  hitRateSeries: CacheHitRatePoint[];
}

/**
 * Which cache entries to clear: exactly one of a flow, a session, or everything. A subset of
 * contracts {@link CacheInvalidation}.
 */
export type DashboardCacheSelector =
  | {
      /** Clear the answers of this gateway-wide flow id. */
      flowId: string;
    }
  | {
      /** Clear the answers of this session. */
      sessionId: string;
    }
  | {
      /** Clear every answer. */
      all: true;
    };

/** A downstream MCP server in the tool zoo. */
export interface ToolServerView {
  /** Configured server name (the namespace of its tools). */
  name: string;
  /** `hot` (kept connected) or `cold` (started on demand). */
  mode: "hot" | "cold";
  /** Whether it is connected now. */
  connected: boolean;
  /** Tools it exposes (0 while unknown). */
  toolCount: number;
  /** `stdio` or `http`. */
  transport?: string | undefined;
  /** Lifecycle state, e.g. `connected`, `idle`, `backing-off`. */
  state?: string | undefined;
  /** The last failure (secret-free). */
  lastError?: string | undefined;
}

/** What `search_tools` returns for a query (shape of contracts `ToolSearchResult`). */
export interface ToolSearchView {
  /** Hits, best first, with their scores. */
  results: ToolSearchHit[];
  /** Confidence of the search, 0..1. */
  confidence?: number | undefined;
  /** Search mode used (`hybrid`, `keyword`, `semantic`). */
  mode?: string | undefined;
  /** True when confidence was too low and the safe set was returned. */
  fallback?: boolean | undefined;
}

/** Name and version of the gateway, shown in the page header. */
export interface GatewayInfo {
  /** Display name. @default "Agentic Flywheel" */
  name?: string | undefined;
  /** Version string. */
  version?: string | undefined;
  /** When the gateway started (ISO 8601). */
  startedAt?: string | undefined;
}

/** Counters of the gateway's semantic answer cache (shown as hit rate and guard rejections). */
export interface SemanticCacheStatsView {
  /** Whether semantic lookups are on. */
  enabled: boolean;
  /** Semantic lookups made. */
  lookups: number;
  /** Lookups answered from a similar earlier question. */
  hits: number;
  /** Similar answers refused by the guard (a different number, name or negation). */
  guardRejections: number;
  /** Similarity threshold of a hit, 0..1. */
  threshold: number;
}

/** Receives new trace events from {@link DashboardSource.subscribe}. Must not throw. */
export type TraceEventListener = (event: TraceEvent) => void;

/**
 * Everything the dashboard reads, implemented by the gateway (`@afw/server`). Every method is
 * optional: an absent method, or one that resolves `undefined`, shows as "not configured" on the
 * page (for the lookups by id — {@link DashboardSource.query}, {@link DashboardSource.queryEvents},
 * {@link DashboardSource.session} — `undefined` means "not found" and yields a 404).
 *
 * Implementations may throw; the dashboard answers 500 and reports the error to
 * `onError`. Use {@link createStoreDashboardSource} to build one from the contracts stores, or
 * {@link createInMemoryDashboardSource} in tests.
 *
 * @example
 * ```ts
 * const source: DashboardSource = {
 *   async backends() { return [{ id: "flowise", kind: "flowise", health: "healthy", circuit: "closed", requestCount: 0, series: [], flows: [] }]; },
 *   async clearCache(selector) { return cache.invalidate(selector); },
 * };
 * ```
 */
export interface DashboardSource {
  /** Name/version for the page header. */
  info?(): Promise<GatewayInfo | undefined>;
  /** Backends with health, circuit state and performance. */
  backends?(): Promise<BackendView[] | undefined>;
  /** Flows with their intents. */
  flows?(): Promise<FlowView[] | undefined>;
  /** The most recent queries, newest first (at most `limit`). */
  recentQueries?(options: { limit: number }): Promise<QuerySummary[] | undefined>;
  /** One query by trace id; `undefined` when unknown. Used by the live feed to attach the question. */
  query?(traceId: string): Promise<QuerySummary | undefined>;
  /** Every trace event of one query, oldest first; `undefined` when unknown. */
  queryEvents?(traceId: string): Promise<TraceEvent[] | undefined>;
  /**
   * Calls `listener` for every new trace event until the returned function is called. The
   * dashboard keeps one subscription while at least one page is connected to the live feed.
   */
  subscribe?(listener: TraceEventListener): (() => void) | Promise<() => void>;
  /** Cache counters, entries by flow and hit rate over time. */
  cache?(): Promise<CacheView | undefined>;
  /** Removes matching cache entries; resolves to how many were removed. */
  clearCache?(selector: DashboardCacheSelector): Promise<number>;
  /** Recent sessions, newest first (at most `limit`, optionally matching a glob `pattern`). */
  sessions?(options: { limit: number; pattern?: string | undefined }): Promise<SessionSummary[] | undefined>;
  /** One session with its turns; `undefined` when unknown. */
  session?(sessionId: string): Promise<SessionRecord | undefined>;
  /** Downstream MCP servers of the tool zoo. */
  toolServers?(): Promise<ToolServerView[] | undefined>;
  /** What `search_tools` would return for `query`. */
  searchTools?(query: string, options: { limit: number }): Promise<ToolSearchView | undefined>;
  /**
   * Past turns matching `query` (what the `search_history` tool returns), of the caller's tenant
   * only: `scope.tenant` is the tenant of the request's token (absent for a token without one).
   */
  searchHistory?(query: HistoryQuery, scope: { tenant?: string | undefined }): Promise<HistoryPage | undefined>;
  /** The semantic answer cache's counters; `undefined` (the panel stays hidden) when there is none. */
  semanticCacheStats?(): Promise<SemanticCacheStatsView | undefined>;
  /**
   * Analytics of a range (`analytics_dashboard`): totals, top flows (at most `top`), success,
   * latency, cache hit rate, intents and the A/B comparison. Without it the page hides its
   * Analytics panel.
   */
  analyticsSummary?(options: { range: AnalyticsRange; top: number }): Promise<AnalyticsSummaryView | undefined>;
  /** One flow's analysis with recommendations (`analyze_flow`). */
  flowAnalysis?(flowId: string, options: { range: AnalyticsRange }): Promise<FlowAnalysisView | undefined>;
  /**
   * Question patterns (`pattern_analysis`): clusters, low-confidence questions, intents that fall
   * back, and proposals. `undefined` when the gateway cannot compute them (no embedder).
   */
  patternAnalysis?(options: { range: AnalyticsRange }): Promise<PatternAnalysisView | undefined>;
  /** The learned routing prior's current adjustments, optionally of one intent. */
  learnedPrior?(options: { intent?: string | undefined }): Promise<LearnedPriorView | undefined>;
  /** Metrics per backend, flow or intent (`export_metrics`); the dashboard writes them as JSON or CSV. */
  exportMetrics?(options: { range: AnalyticsRange; groupBy: MetricsExportView["groupBy"] }): Promise<MetricsExportView | undefined>;
}

/** Converts a {@link DashboardCacheSelector} to the contracts {@link CacheInvalidation}. */
export function toCacheInvalidation(selector: DashboardCacheSelector): CacheInvalidation {
  if ("flowId" in selector) return { flowId: selector.flowId };
  if ("sessionId" in selector) return { sessionId: selector.sessionId };
  return { all: true };
}
