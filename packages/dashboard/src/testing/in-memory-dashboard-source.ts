import { matchesGlob, type CacheStats, type HistoryHit, type HistoryQuery, type SessionRecord, type ToolSearchHit, type TraceEvent } from "@afw/contracts";
import type { FlowAnalysis, PatternAnalysis, TimeRangePreset as AnalyticsRange } from "@afw/analytics";
import type { AnalyticsSummaryView, LearnedPriorView, MetricsExportView } from "../dashboard-source.js";
import type {
  BackendView,
  CacheFlowView,
  CacheView,
  DashboardCacheSelector,
  DashboardSource,
  FlowView,
  GatewayInfo,
  QuerySummary,
  SemanticCacheStatsView,
  ToolSearchView,
  ToolServerView,
  TraceEventListener,
} from "../dashboard-source.js";
import { buildQuerySummary, queriesFromTraceEvents } from "../query-summary.js";
import { cacheHitRateSeries, type SeriesWindow } from "../time-series.js";

/** One cached answer known to the {@link InMemoryDashboardSource} (for entries by flow and clearing). */
export interface InMemoryCacheEntry {
  /** Flow the answer came from. */
  flowId: string;
  /** Session the answer belongs to (session scope). */
  sessionId?: string | undefined;
}

/** The methods of {@link DashboardSource}, by name. */
export type DashboardSourceMethod = keyof DashboardSource;

/** Initial content of {@link createInMemoryDashboardSource}. Everything is optional. */
export interface InMemoryDashboardSourceInit {
  /** Gateway name/version. */
  info?: GatewayInfo;
  /** Backends shown as given. */
  backends?: BackendView[];
  /** Flows shown as given. */
  flows?: FlowView[];
  /** Cached answers (entries by flow are counted from these; `clearCache` removes them). */
  cacheEntries?: InMemoryCacheEntry[];
  /** Cache counters. */
  cacheStats?: CacheStats;
  /** Sessions with their turns. */
  sessions?: SessionRecord[];
  /** Downstream MCP servers. */
  toolServers?: ToolServerView[];
  /** Tools searched by the built-in keyword search (when `searchTools` is not given). */
  tools?: ToolSearchHit[];
  /** Replaces the built-in keyword search. */
  searchTools?: (query: string, options: { limit: number }) => ToolSearchView | Promise<ToolSearchView>;
  /** Counters of the semantic answer cache (without them `semanticCacheStats` resolves `undefined`). */
  semanticCache?: SemanticCacheStatsView;
  /** Trace events to start with (questions can be attached with `questions`). */
  events?: TraceEvent[];
  /** Questions by trace id. */
  questions?: Record<string, string>;
  /** Most trace events kept; older ones are dropped. @default 5000 */
  traceCapacity?: number;
  /** Window of the cache hit-rate series. @default the last hour in 30 buckets */
  series?: SeriesWindow;
  /**
   * Analytics to serve. Without it the source has no analytics methods (the page hides its
   * Analytics panel); each part that is absent leaves its method out.
   */
  analytics?: InMemoryAnalyticsData;
  /** Methods to leave out, to show how the page renders a source that lacks them. */
  omit?: DashboardSourceMethod[];
}

/** Fixture data of a report: any subset of its fields, strings anywhere (the page must cope with what a source sends). */
export type AnalyticsFixture<T> = T extends string ? string : T extends readonly (infer U)[] ? AnalyticsFixture<U>[] : T extends object ? { [K in keyof T]?: AnalyticsFixture<T[K]> } : T;

/** The analytics an {@link InMemoryDashboardSource} serves, as given (no computation). */
export interface InMemoryAnalyticsData {
  /** The summary of each range (a range without one resolves `undefined`). */
  summaries?: Partial<Record<AnalyticsRange, AnalyticsFixture<AnalyticsSummaryView>>>;
  /** Flow analyses by gateway-wide flow id (an unknown flow resolves `undefined`, a 404). */
  flowAnalyses?: Record<string, AnalyticsFixture<FlowAnalysis>>;
  /** The pattern analysis (whatever the range). */
  patterns?: AnalyticsFixture<PatternAnalysis>;
  /** The learned prior. */
  learned?: LearnedPriorView;
  /** Metrics rows by grouping (whatever the range). */
  metrics?: Partial<Record<MetricsExportView["groupBy"], MetricsExportView>>;
}

/** One call of an analytics method of an {@link InMemoryDashboardSource}. */
export interface InMemoryAnalyticsCall {
  /** Method called. */
  method: "analyticsSummary" | "flowAnalysis" | "patternAnalysis" | "learnedPrior" | "exportMetrics";
  /** Its options (and `flowId` for `flowAnalysis`). */
  options: Record<string, unknown>;
}

/**
 * A {@link DashboardSource} held in memory, with methods to feed it: for tests, demos and as a
 * reference implementation. Queries are built from the trace events it is given, exactly as a
 * gateway would build them from its trace ring buffer.
 */
export interface InMemoryDashboardSource extends DashboardSource {
  /** Records a trace event and notifies subscribers. */
  emit(event: TraceEvent): void;
  /** Attaches `question` to `events[0].traceId`, then emits every event in order. */
  recordQuery(question: string, events: readonly TraceEvent[]): void;
  /** Attaches the question of a trace. */
  setQuestion(traceId: string, question: string): void;
  /** Replaces the backends. */
  setBackends(backends: BackendView[]): void;
  /** Replaces the flows. */
  setFlows(flows: FlowView[]): void;
  /** Replaces the cached entries. */
  setCacheEntries(entries: InMemoryCacheEntry[]): void;
  /** Replaces the cache counters. */
  setCacheStats(stats: CacheStats | undefined): void;
  /** Replaces the sessions. */
  setSessions(sessions: SessionRecord[]): void;
  /** Replaces the downstream servers. */
  setToolServers(servers: ToolServerView[]): void;
  /** Every `clearCache` call received, in order. */
  readonly clearCacheCalls: readonly DashboardCacheSelector[];
  /** Every `searchTools` query received, in order. */
  readonly searchCalls: readonly string[];
  /** Every `searchHistory` call received, in order, with its tenant. */
  readonly historyCalls: readonly { query: HistoryQuery; tenant?: string | undefined }[];
  /** Every analytics call received, in order. */
  readonly analyticsCalls: readonly InMemoryAnalyticsCall[];
  /** Active subscriptions. */
  readonly subscriberCount: number;
  /** Trace events kept, oldest first. */
  readonly events: readonly TraceEvent[];
  /** Resolves with the next subscription count that satisfies `predicate` (e.g. `(n) => n > 0`). */
  waitForSubscribers(predicate: (count: number) => boolean): Promise<number>;
}

function tokens(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9]+/).filter((token) => token.length > 1);
}

function keywordSearch(tools: readonly ToolSearchHit[], query: string, limit: number): ToolSearchView {
  const wanted = new Set(tokens(query));
  const scored = tools
    .map((tool) => {
      const words = tokens(`${tool.server} ${tool.name} ${tool.description}`);
      const matched = new Set(words.filter((word) => wanted.has(word)));
      return { ...tool, score: wanted.size === 0 ? 0 : Number((matched.size / wanted.size).toFixed(4)) };
    })
    .filter((tool) => tool.score > 0)
    .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
    .slice(0, limit);
  return { results: scored, confidence: scored[0]?.score ?? 0, mode: "keyword", fallback: false };
}

/**
 * The history search of the in-memory source: the turns of the tenant's sessions that pass every
 * criterion, those sharing more words with `text` first, then newest; pages of `limit` with an
 * offset cursor.
 */
function searchSessions(sessions: readonly SessionRecord[], query: HistoryQuery, tenant: string | undefined): { hits: HistoryHit[]; nextCursor?: string } {
  const words = tokens(query.text ?? "");
  const hits: HistoryHit[] = [];
  for (const session of sessions) {
    if (session.tenant !== tenant || (query.sessionId !== undefined && session.sessionId !== query.sessionId)) continue;
    for (const turn of session.turnsList) {
      if (query.tag !== undefined && !turn.tags?.includes(query.tag)) continue;
      if ((query.backendId !== undefined && turn.backendId !== query.backendId) || (query.flowId !== undefined && turn.flowId !== query.flowId)) continue;
      if ((query.from !== undefined && turn.askedAt < query.from) || (query.to !== undefined && turn.askedAt > query.to)) continue;
      const text = new Set(tokens(`${turn.question} ${turn.answer}`));
      const matchedWords = words.filter((word) => text.has(word)).length;
      if (words.length > 0 && matchedWords === 0) continue;
      hits.push({ sessionId: session.sessionId, turn, matchedWords });
    }
  }
  hits.sort((a, b) => b.matchedWords - a.matchedWords || b.turn.askedAt - a.turn.askedAt);
  const offset = Number(/^o(\d+)$/.exec(query.cursor ?? "o0")?.[1] ?? 0);
  const limit = query.limit ?? 10;
  const page = hits.slice(offset, offset + limit);
  return offset + limit < hits.length ? { hits: page, nextCursor: `o${offset + limit}` } : { hits: page };
}

/**
 * Creates an {@link InMemoryDashboardSource}.
 *
 * @example
 * ```ts
 * const source = createInMemoryDashboardSource({ backends: [...], flows: [...] });
 * const dashboard = createDashboard({ source });
 * source.recordQuery("How do I fix this stack trace?", buildQueryTrace({ traceId: "t1", ... }));
 * ```
 */
export function createInMemoryDashboardSource(init: InMemoryDashboardSourceInit = {}): InMemoryDashboardSource {
  const capacity = Math.max(1, init.traceCapacity ?? 5_000);
  const info = init.info;
  let backends = init.backends ? [...init.backends] : [];
  let flows = init.flows ? [...init.flows] : [];
  let cacheEntries = init.cacheEntries ? [...init.cacheEntries] : [];
  let cacheStats = init.cacheStats;
  let sessions = init.sessions ? [...init.sessions] : [];
  let toolServers = init.toolServers ? [...init.toolServers] : [];
  const tools = init.tools ? [...init.tools] : [];
  const events: TraceEvent[] = [];
  const questions = new Map<string, string>(Object.entries(init.questions ?? {}));
  const listeners = new Set<TraceEventListener>();
  const subscriberWaiters = new Set<{ predicate: (count: number) => boolean; resolve: (count: number) => void }>();
  const clearCacheCalls: DashboardCacheSelector[] = [];
  const searchCalls: string[] = [];
  const historyCalls: { query: HistoryQuery; tenant?: string | undefined }[] = [];
  const analyticsCalls: InMemoryAnalyticsCall[] = [];
  const analytics = init.analytics;

  const notifySubscriberWaiters = (): void => {
    for (const waiter of [...subscriberWaiters]) {
      if (waiter.predicate(listeners.size)) {
        subscriberWaiters.delete(waiter);
        waiter.resolve(listeners.size);
      }
    }
  };

  const record = (event: TraceEvent): void => {
    events.push(event);
    if (events.length > capacity) events.splice(0, events.length - capacity);
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch {
        // a listener must not break the source
      }
    }
  };

  const eventsOf = (traceId: string): TraceEvent[] => events.filter((event) => event.traceId === traceId);

  const cacheByFlow = (): CacheFlowView[] => {
    const byFlow = new Map<string, CacheFlowView>();
    for (const entry of cacheEntries) {
      const view = byFlow.get(entry.flowId) ?? { flowId: entry.flowId, entries: 0 };
      view.entries = (view.entries ?? 0) + 1;
      byFlow.set(entry.flowId, view);
    }
    for (const [flowId, counters] of Object.entries(cacheStats?.byFlow ?? {})) {
      const view = byFlow.get(flowId) ?? { flowId, entries: 0 };
      view.hits = counters.hits;
      view.misses = counters.misses;
      view.writes = counters.writes;
      byFlow.set(flowId, view);
    }
    return [...byFlow.values()].sort((a, b) => a.flowId.localeCompare(b.flowId));
  };

  const source: InMemoryDashboardSource = {
    async info() {
      return info;
    },
    async backends() {
      return backends.map((backend) => ({ ...backend }));
    },
    async flows() {
      return flows.map((flow) => ({ ...flow }));
    },
    async recentQueries({ limit }) {
      return queriesFromTraceEvents(events, { limit, questionOf: (traceId) => questions.get(traceId) });
    },
    async query(traceId): Promise<QuerySummary | undefined> {
      return buildQuerySummary(eventsOf(traceId), { question: questions.get(traceId) });
    },
    async queryEvents(traceId) {
      const own = eventsOf(traceId);
      return own.length > 0 ? own : undefined;
    },
    subscribe(listener) {
      listeners.add(listener);
      notifySubscriberWaiters();
      return () => {
        if (listeners.delete(listener)) notifySubscriberWaiters();
      };
    },
    async cache(): Promise<CacheView> {
      return { stats: cacheStats, byFlow: cacheByFlow(), hitRateSeries: cacheHitRateSeries(events, init.series) };
    },
    async clearCache(selector) {
      clearCacheCalls.push(selector);
      const before = cacheEntries.length;
      if ("all" in selector) cacheEntries = [];
      else if ("flowId" in selector) cacheEntries = cacheEntries.filter((entry) => entry.flowId !== selector.flowId);
      else cacheEntries = cacheEntries.filter((entry) => entry.sessionId !== selector.sessionId);
      return before - cacheEntries.length;
    },
    async sessions({ limit, pattern }) {
      return sessions
        .filter((session) => !pattern || matchesGlob(session.sessionId, pattern))
        .sort((a, b) => b.updatedAt - a.updatedAt)
        .slice(0, limit)
        .map(({ turnsList: _turns, ...summary }) => summary);
    },
    async session(sessionId) {
      const session = sessions.find((candidate) => candidate.sessionId === sessionId);
      return session ? { ...session, turnsList: [...session.turnsList] } : undefined;
    },
    async toolServers() {
      return toolServers.map((server) => ({ ...server }));
    },
    async searchTools(query, options) {
      searchCalls.push(query);
      if (init.searchTools) return init.searchTools(query, options);
      return keywordSearch(tools, query, options.limit);
    },
    async searchHistory(query, { tenant }) {
      historyCalls.push({ query, tenant });
      return searchSessions(sessions, query, tenant);
    },
    async semanticCacheStats() {
      return init.semanticCache && { ...init.semanticCache };
    },
    emit(event) {
      record(event);
    },
    recordQuery(question, traceEvents) {
      const first = traceEvents[0];
      if (first) questions.set(first.traceId, question);
      for (const event of traceEvents) record(event);
    },
    setQuestion(traceId, question) {
      questions.set(traceId, question);
    },
    setBackends(next) {
      backends = [...next];
    },
    setFlows(next) {
      flows = [...next];
    },
    setCacheEntries(next) {
      cacheEntries = [...next];
    },
    setCacheStats(next) {
      cacheStats = next;
    },
    setSessions(next) {
      sessions = [...next];
    },
    setToolServers(next) {
      toolServers = [...next];
    },
    get clearCacheCalls() {
      return clearCacheCalls;
    },
    get searchCalls() {
      return searchCalls;
    },
    get historyCalls() {
      return historyCalls;
    },
    get analyticsCalls() {
      return analyticsCalls;
    },
    get subscriberCount() {
      return listeners.size;
    },
    get events() {
      return events;
    },
    waitForSubscribers(predicate) {
      if (predicate(listeners.size)) return Promise.resolve(listeners.size);
      return new Promise((resolve) => subscriberWaiters.add({ predicate, resolve }));
    },
  };
  if (analytics?.summaries) {
    const summaries = analytics.summaries;
    source.analyticsSummary = async (options) => {
      analyticsCalls.push({ method: "analyticsSummary", options: { ...options } });
      return summaries[options.range] as AnalyticsSummaryView | undefined;
    };
  }
  if (analytics?.flowAnalyses) {
    const analyses = new Map(Object.entries(analytics.flowAnalyses));
    source.flowAnalysis = async (flowId, options) => {
      analyticsCalls.push({ method: "flowAnalysis", options: { flowId, ...options } });
      return analyses.get(flowId) as FlowAnalysis | undefined;
    };
  }
  if (analytics?.patterns) {
    const patterns = analytics.patterns;
    source.patternAnalysis = async (options) => {
      analyticsCalls.push({ method: "patternAnalysis", options: { ...options } });
      return patterns as PatternAnalysis;
    };
  }
  if (analytics?.learned) {
    const learned = analytics.learned;
    source.learnedPrior = async (options) => {
      analyticsCalls.push({ method: "learnedPrior", options: { ...options } });
      return { ...learned, adjustments: learned.adjustments.filter((entry) => options.intent === undefined || entry.intent === options.intent) };
    };
  }
  if (analytics?.metrics) {
    const metrics = analytics.metrics;
    source.exportMetrics = async (options) => {
      analyticsCalls.push({ method: "exportMetrics", options: { ...options } });
      return metrics[options.groupBy];
    };
  }
  for (const method of init.omit ?? []) delete (source as unknown as Record<string, unknown>)[method];
  return source;
}
