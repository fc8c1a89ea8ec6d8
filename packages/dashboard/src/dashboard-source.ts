import type {
  CacheStats,
  CircuitState,
  HealthStatus,
  HistoryPage,
  HistoryQuery,
  SessionRecord,
  SessionSummary,
  ToolSearchHit,
  TraceEvent,
  UniversalFlow,
} from "@afw/contracts";
import type { AnalyticsDashboard, FlowAnalysis, PatternAnalysis, QueryRecord, TimeRangePreset as AnalyticsRange } from "@afw/analytics";

/** One bucket of a chart, starting at `t` (epoch ms); rates and latencies are absent when `count` is 0. */
export interface TimeSeriesPoint {
  t: number;
  /** Calls in the bucket. */
  count: number;
  /** Share of successful calls, 0..1. */
  successRate?: number | undefined;
  p50Ms?: number | undefined;
  p95Ms?: number | undefined;
}

/** Latency and success figures of one backend or one (backend, flow) pair; rates and latencies are absent without calls. */
export interface PerformanceFigures {
  /** Calls measured (in the window the source keeps). */
  requestCount: number;
  /** Share of successful calls, 0..1. */
  successRate?: number | undefined;
  latencyP50Ms?: number | undefined;
  latencyP95Ms?: number | undefined;
  /** Per-bucket figures over the last hour, oldest first. */
  series: TimeSeriesPoint[];
}

/** What the dashboard shows about one backend. */
export interface BackendView extends PerformanceFigures {
  /** Configured backend id, e.g. `flowise-prod`. */
  id: string;
  /** Backend kind, e.g. `flowise` or `langflow`. */
  kind: string;
  /** Latest health status, `unknown` when never probed. */
  health: HealthStatus | "unknown";
  /** Why the backend is slow or down (secret-free). */
  healthMessage?: string | undefined;
  /** When the health was last checked (ISO 8601). */
  checkedAt?: string | undefined;
  /** Round-trip time of the last health probe. */
  healthLatencyMs?: number | undefined;
  /** Circuit-breaker state, `closed` when unknown. */
  circuit: CircuitState["state"];
  /** Consecutive failures counted by the circuit breaker. */
  circuitFailures?: number | undefined;
  /** When an open circuit lets a probe through (epoch ms). */
  nextProbeAt?: number | undefined;
  /** Performance of each of its flows (gateway-wide `flowId`) that saw traffic. */
  flows: Array<PerformanceFigures & { flowId: string }>;
}

/** What the dashboard shows about one flow: these fields of a contracts `UniversalFlow`. */
export type FlowView = Pick<UniversalFlow, "id" | "backendId" | "name" | "intents" | "description"> &
  Partial<Pick<UniversalFlow, "generalPurpose" | "cacheable" | "cacheClass">>;

/**
 * One routed query as the live feed shows it: `@afw/analytics`' {@link QueryRecord} (the one fold of a trace's events,
 * times in epoch ms), plus the question, which no trace event carries (it comes from {@link DashboardSource.query}).
 */
export type QuerySummary = QueryRecord & {
  /** The question (truncated, or hidden in redacted mode); absent when the source does not know it. */
  question?: string | undefined;
  /** True when the dashboard hid the question (redacted mode). */
  questionRedacted?: boolean | undefined;
  /** True when the dashboard shortened the question. */
  questionTruncated?: boolean | undefined;
};

/** Entries and counters the cache keeps for one flow. */
export interface CacheFlowView {
  flowId: string;
  /** Entries currently stored, when the cache can count them. */
  entries?: number | undefined;
  hits?: number | undefined;
  misses?: number | undefined;
  writes?: number | undefined;
}

/** One bucket of the cache hit-rate series; `hitRate` is absent for an empty bucket. */
export interface CacheHitRatePoint {
  /** Start of the bucket, epoch ms. */
  t: number;
  /** Hits (exact and semantic). */
  hits: number;
  misses: number;
  hitRate?: number | undefined;
}

/** What the dashboard shows about the answer cache. */
export interface CacheView {
  stats?: CacheStats | undefined;
  byFlow: CacheFlowView[];
  /** Hit rate over the last hour, oldest first. */
  hitRateSeries: CacheHitRatePoint[];
}

/** Which cache entries to clear: a flow, a session, or everything. */
export type DashboardCacheSelector = { flowId: string } | { sessionId: string } | { all: true };

/** A downstream MCP server in the tool zoo. */
export interface ToolServerView {
  /** Configured server name (the namespace of its tools). */
  name: string;
  /** `hot` (kept connected) or `cold` (started on demand). */
  mode: "hot" | "cold";
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

/**
 * What `search_tools` returns for a query (a contracts `ToolSearchResult` fits): hits best first,
 * confidence 0..1, search mode, and `fallback` when confidence was too low and the safe set was returned.
 */
export interface ToolSearchView {
  results: ToolSearchHit[];
  confidence?: number | undefined;
  mode?: string | undefined;
  fallback?: boolean | undefined;
}

/** Name, version and start time (ISO 8601) of the gateway, shown in the page header. */
export interface GatewayInfo {
  name?: string | undefined;
  version?: string | undefined;
  startedAt?: string | undefined;
}

/** Counters of the gateway's semantic answer cache. */
export interface SemanticCacheStatsView {
  enabled: boolean;
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
 * optional: an absent method, or one that resolves `undefined`, shows as "not configured" (for the
 * lookups by id, `undefined` means "not found": 404). A method that throws makes its endpoint
 * answer 500 and is reported to `onError`. {@link createStoreDashboardSource} builds one from the
 * contracts stores.
 *
 * @example
 * ```ts
 * const source: DashboardSource = { async clearCache(selector) { return cache.invalidate(selector); } };
 * ```
 */
export interface DashboardSource {
  info?(): Promise<GatewayInfo | undefined>;
  /** Backends with health, circuit state and performance. */
  backends?(): Promise<BackendView[] | undefined>;
  flows?(): Promise<FlowView[] | undefined>;
  /** The most recent queries, newest first (at most `limit`). */
  recentQueries?(options: { limit: number }): Promise<QuerySummary[] | undefined>;
  /** One query by trace id. The live feed sends its rows from it (without it, only `trace` frames). */
  query?(traceId: string): Promise<QuerySummary | undefined>;
  /** Every trace event of one query, oldest first. */
  queryEvents?(traceId: string): Promise<TraceEvent[] | undefined>;
  /** Calls `listener` for every new trace event until the returned function is called (one subscription while pages are connected). */
  subscribe?(listener: TraceEventListener): (() => void) | Promise<() => void>;
  /** Cache counters, entries by flow and hit rate over time. */
  cache?(): Promise<CacheView | undefined>;
  /** Removes matching cache entries; resolves to how many were removed. */
  clearCache?(selector: DashboardCacheSelector): Promise<number>;
  /** Recent sessions, newest first (at most `limit`, optionally matching a glob `pattern`). */
  sessions?(options: { limit: number; pattern?: string | undefined }): Promise<SessionSummary[] | undefined>;
  /** One session with its turns. */
  session?(sessionId: string): Promise<SessionRecord | undefined>;
  /** Downstream MCP servers of the tool zoo. */
  toolServers?(): Promise<ToolServerView[] | undefined>;
  /** What `search_tools` would return for `query`. */
  searchTools?(query: string, options: { limit: number }): Promise<ToolSearchView | undefined>;
  /** Past turns matching `query` (what `search_history` returns) of the caller's tenant only (`scope.tenant`, the request token's). */
  searchHistory?(query: HistoryQuery, scope: { tenant?: string | undefined }): Promise<HistoryPage | undefined>;
  /** The semantic answer cache's counters; `undefined` (the panel stays hidden) when there is none. */
  semanticCacheStats?(): Promise<SemanticCacheStatsView | undefined>;
  /** The `analytics_dashboard` report of a range (at most `top` flows). Without it the page hides its Analytics panel. */
  analyticsSummary?(options: { range: AnalyticsRange; top: number }): Promise<AnalyticsSummaryView | undefined>;
  /** One flow's analysis with recommendations (`analyze_flow`). */
  flowAnalysis?(flowId: string, options: { range: AnalyticsRange }): Promise<FlowAnalysis | undefined>;
  /** Question patterns and proposals (`pattern_analysis`); `undefined` when the gateway cannot compute them (no embedder). */
  patternAnalysis?(options: { range: AnalyticsRange }): Promise<PatternAnalysis | undefined>;
  /** The learned routing prior's current adjustments, optionally of one intent. */
  learnedPrior?(options: { intent?: string | undefined }): Promise<LearnedPriorView | undefined>;
  /** Metrics per backend, flow or intent (`export_metrics`); the dashboard writes them as JSON or CSV. */
  exportMetrics?(options: { range: AnalyticsRange; groupBy: MetricsExportView["groupBy"] }): Promise<MetricsExportView | undefined>;
}

/** `GET {apiPath}/analytics/summary`: the `analytics_dashboard` report, `truncated` when the range held more events than one report reads. */
export type AnalyticsSummaryView = AnalyticsDashboard & { truncated?: boolean | undefined };

/** The learned prior's current adjustment of one (intent, flow). */
export interface LearnedAdjustmentView {
  intent: string;
  /** Gateway-wide flow id. */
  flowId: string;
  /** Added to the `flow_match` score component (bounded). */
  flowMatch: number;
  /** Added to the `performance` score component (bounded). */
  performance: number;
  /** Decayed number of outcomes behind it. */
  samples: number;
  /** Decayed success rate of the flow for the intent. */
  successRate: number | null;
  /** One-line explanation (as `explain_routing` shows it). */
  reason: string;
}

/** `GET {apiPath}/analytics/learned`: the learned routing prior, bounded by `maxAdjustment`. */
export interface LearnedPriorView {
  maxAdjustment: number;
  /** Every (intent, flow) the prior knows. */
  adjustments: LearnedAdjustmentView[];
}

/** What `GET {apiPath}/analytics/export` writes as JSON or CSV (`export_metrics`): one row per group, `columns` in CSV order. */
export interface MetricsExportView {
  /** Bounds of the export (ISO 8601). */
  range: { from: string; to: string };
  groupBy: "backend" | "flow" | "intent";
  columns: string[];
  rows: Array<Record<string, string | number | null>>;
}
