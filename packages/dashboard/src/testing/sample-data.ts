import type { Intent, RoutingCandidate, ScoreBreakdown, SessionRecord, ToolSearchHit, TraceEvent } from "@afw/contracts";
import type { BackendView, FlowView, TimeSeriesPoint, ToolServerView } from "../dashboard-source.js";
import { createInMemoryDashboardSource, type InMemoryDashboardSource, type InMemoryDashboardSourceInit } from "./in-memory-dashboard-source.js";
import { sampleAnalyticsData } from "./sample-analytics.js";

/** One candidate of {@link QueryTraceSpec}. */
export interface QueryTraceCandidate {
  /** Backend id. */
  backendId: string;
  /** Backend kind. @default "flowise" */
  backendKind?: string;
  /** Gateway-wide flow id (`<backendId>:<backendFlowId>`). */
  flowId: string;
  /** Display name. @default the part of `flowId` after the colon */
  flowName?: string;
  /** Total score. */
  score: number;
  /** Score components. @default derived from `score` */
  breakdown?: ScoreBreakdown;
  /** Why it cannot be chosen, if so. */
  excluded?: string;
}

/** One attempt of {@link QueryTraceSpec}. */
export interface QueryTraceAttempt {
  /** Backend id. */
  backendId: string;
  /** Flow id. */
  flowId: string;
  /** Outcome. @default "success" */
  outcome?: "success" | "error" | "timeout";
  /** Latency, milliseconds. @default 120 */
  latencyMs?: number;
  /** Error code of a failure. @default "BACKEND_UNAVAILABLE" for failures */
  errorCode?: string;
  /** HTTP status of a failure. */
  statusCode?: number;
}

/** Describes one query for {@link buildQueryTrace}. */
export interface QueryTraceSpec {
  /** Trace id. */
  traceId: string;
  /** Request id. @default `req-<traceId>` */
  requestId?: string;
  /** Session id. */
  sessionId?: string;
  /** When the query arrived (epoch milliseconds). @default Date.now() */
  startedAt?: number;
  /** Length of the question. @default 42 */
  questionLength?: number;
  /** Classified intent. @default "technical-analysis" */
  intent?: Intent;
  /** Confidence. @default 0.9 */
  confidence?: number;
  /** Scored candidates, best first. @default the flows of `attempts` */
  candidates?: QueryTraceCandidate[];
  /** Cache outcome; a hit skips routing and attempts. @default "miss" */
  cache?: "hit" | "semantic-hit" | "miss";
  /** Attempts in order; a failed attempt followed by one on another flow emits `fallback-triggered`. */
  attempts?: QueryTraceAttempt[];
  /** Failure of the whole query (after the attempts), as an error code. */
  failWith?: string;
}

function breakdownFor(score: number): ScoreBreakdown {
  const unit = Math.max(0, Math.min(1, score));
  return { flow_match: unit, health: Math.min(1, unit + 0.1), performance: unit * 0.9, capability: unit * 0.8 };
}

/**
 * Builds the trace events of one query as the gateway emits them: `query-received`, then the
 * cache lookup, `intent-classified`, `routing-decided`, one `backend-call-start`/`-end` pair per
 * attempt (with `fallback-triggered` between flows), and `query-answered` or `query-failed`.
 * Timestamps are spaced a few milliseconds apart from `startedAt`.
 *
 * @example
 * ```ts
 * source.recordQuery("Why does my build fail?", buildQueryTrace({
 *   traceId: "t1",
 *   attempts: [
 *     { backendId: "flowise", flowId: "flowise:code", outcome: "error", errorCode: "BACKEND_UNAVAILABLE" },
 *     { backendId: "langflow", flowId: "langflow:code" },
 *   ],
 * }));
 * ```
 */
export function buildQueryTrace(spec: QueryTraceSpec): TraceEvent[] {
  const start = spec.startedAt ?? Date.now();
  let clock = start;
  const at = (deltaMs: number): string => {
    clock += deltaMs;
    return new Date(clock).toISOString();
  };
  const base = {
    traceId: spec.traceId,
    requestId: spec.requestId ?? `req-${spec.traceId}`,
    ...(spec.sessionId === undefined ? {} : { sessionId: spec.sessionId }),
  };
  const intent = spec.intent ?? "technical-analysis";
  const confidence = spec.confidence ?? 0.9;
  const attempts = spec.attempts ?? [];
  const cache = spec.cache ?? "miss";
  const events: TraceEvent[] = [];
  events.push({ ...base, type: "query-received", timestamp: at(0), tool: "universal_query", questionLength: spec.questionLength ?? 42 });
  if (cache !== "miss") {
    const flowId = spec.candidates?.[0]?.flowId ?? attempts[0]?.flowId ?? "cached";
    const backendId = spec.candidates?.[0]?.backendId ?? attempts[0]?.backendId ?? "cache";
    events.push({ ...base, type: "cache-hit", timestamp: at(1), scope: "shared", flowId, kind: cache === "hit" ? "exact" : "semantic", ...(cache === "semantic-hit" ? { similarity: 0.94 } : {}) });
    events.push({ ...base, type: "query-answered", timestamp: at(2), backendId, flowId, durationMs: 3, attempts: 0, fallbackUsed: false, cacheHit: cache === "hit" ? true : "semantic" });
    return events;
  }
  events.push({ ...base, type: "cache-miss", timestamp: at(1), scope: "shared", reason: "absent" });
  events.push({ ...base, type: "intent-classified", timestamp: at(1), intent, confidence, method: "hybrid", alternatives: [], durationMs: 1 });
  const candidateSpecs: QueryTraceCandidate[] =
    spec.candidates ??
    attempts
      .filter((attempt, index) => attempts.findIndex((other) => other.flowId === attempt.flowId) === index)
      .map((attempt, index) => ({ backendId: attempt.backendId, flowId: attempt.flowId, score: Math.max(0.1, 0.9 - index * 0.15) }));
  const candidates: RoutingCandidate[] = candidateSpecs.map((candidate, index) => ({
    backendId: candidate.backendId,
    backendKind: candidate.backendKind ?? "flowise",
    flowId: candidate.flowId,
    backendFlowId: candidate.flowId.split(":").slice(1).join(":") || candidate.flowId,
    flowName: candidate.flowName ?? (candidate.flowId.split(":").slice(1).join(":") || candidate.flowId),
    score: candidate.score,
    breakdown: candidate.breakdown ?? breakdownFor(candidate.score),
    rank: index + 1,
    ...(candidate.excluded === undefined ? {} : { excluded: candidate.excluded }),
  }));
  const chosen = candidates.find((candidate) => candidate.excluded === undefined);
  events.push({
    ...base,
    type: "routing-decided",
    timestamp: at(1),
    decision: {
      intent,
      confidence,
      confidenceLevel: confidence >= 0.8 ? "high" : confidence >= 0.5 ? "medium" : confidence > 0 ? "low" : "none",
      method: "hybrid",
      alternatives: [],
      weights: { flow_match: 0.4, health: 0.3, performance: 0.2, capability: 0.1 },
      candidates,
      chosen: chosen ? { backendId: chosen.backendId, flowId: chosen.flowId, backendFlowId: chosen.backendFlowId } : null,
      strategy: "direct",
      reason: chosen ? `best score for ${intent}` : "no usable candidate",
      decidedInMs: 1,
    },
  });
  const attemptCounts = new Map<string, number>();
  let answered: QueryTraceAttempt | undefined;
  let totalLatency = 0;
  attempts.forEach((attempt, index) => {
    const number = (attemptCounts.get(attempt.flowId) ?? 0) + 1;
    attemptCounts.set(attempt.flowId, number);
    const latencyMs = attempt.latencyMs ?? 120;
    totalLatency += latencyMs;
    const outcome = attempt.outcome ?? "success";
    events.push({ ...base, type: "backend-call-start", timestamp: at(1), backendId: attempt.backendId, flowId: attempt.flowId, attempt: number, streaming: false });
    events.push({
      ...base,
      type: "backend-call-end",
      timestamp: at(latencyMs),
      backendId: attempt.backendId,
      flowId: attempt.flowId,
      attempt: number,
      latencyMs,
      outcome,
      ...(outcome === "success" ? {} : { errorCode: attempt.errorCode ?? "BACKEND_UNAVAILABLE" }),
      ...(attempt.statusCode === undefined ? {} : { statusCode: attempt.statusCode }),
    });
    const next = attempts[index + 1];
    if (outcome === "success") answered = attempt;
    else if (next && next.flowId !== attempt.flowId) {
      events.push({
        ...base,
        type: "fallback-triggered",
        timestamp: at(1),
        fromBackendId: attempt.backendId,
        fromFlowId: attempt.flowId,
        toBackendId: next.backendId,
        toFlowId: next.flowId,
        reason: attempt.errorCode ?? "BACKEND_UNAVAILABLE",
      });
    }
  });
  const durationMs = totalLatency + 8;
  if (answered && spec.failWith === undefined) {
    events.push({
      ...base,
      type: "query-answered",
      timestamp: at(2),
      backendId: answered.backendId,
      flowId: answered.flowId,
      durationMs,
      attempts: attempts.length,
      fallbackUsed: attempts[0]?.flowId !== answered.flowId,
      cacheHit: false,
    });
  } else {
    const code = spec.failWith ?? "ALL_BACKENDS_FAILED";
    events.push({ ...base, type: "query-failed", timestamp: at(2), code, message: `query failed: ${code}`, durationMs, attempts: attempts.length });
  }
  return events;
}

function sampleSeries(now: number, seed: number, successBase: number, latencyBase: number): TimeSeriesPoint[] {
  const buckets = 30;
  const bucketMs = 3_600_000 / buckets;
  return Array.from({ length: buckets }, (_, index) => {
    const wave = Math.sin((index + seed) / 3);
    const count = 4 + Math.round(3 * (1 + wave));
    const p50Ms = Math.round(latencyBase * (1 + 0.25 * wave));
    return {
      t: Math.round(now - 3_600_000 + index * bucketMs),
      count,
      successRate: Math.max(0, Math.min(1, successBase + 0.04 * Math.cos((index + seed) / 2))),
      p50Ms,
      p95Ms: Math.round(p50Ms * 2.1),
    };
  });
}

/** Options of {@link createSampleDashboardSource}. */
export interface SampleDashboardSourceOptions extends Omit<InMemoryDashboardSourceInit, "backends" | "flows" | "sessions" | "toolServers" | "tools"> {
  /** "Now" for the sample charts and queries, epoch milliseconds. @default Date.now() */
  now?: number;
  /** Leave out the sample queries. @default false */
  withoutQueries?: boolean;
  /** Leave out the sample analytics (the page then hides its Analytics panel). @default false */
  withoutAnalytics?: boolean;
}

/**
 * An {@link InMemoryDashboardSource} filled with a small, realistic gateway: two backends
 * (`flowise-local`, `langflow-local`) with four flows, an hour of performance figures, cached
 * entries, two sessions, three downstream servers with their tools, and three queries (a direct
 * answer, a cache hit, and a fallback from Flowise to Langflow), and analytics of that traffic
 * (summaries, a flow analysis, patterns, learned adjustments, metrics). For tests, demos and
 * screenshots.
 *
 * @example
 * ```ts
 * const dashboard = createDashboard({ source: createSampleDashboardSource() });
 * ```
 */
export function createSampleDashboardSource(options: SampleDashboardSourceOptions = {}): InMemoryDashboardSource {
  const { now: nowOption, withoutQueries, withoutAnalytics, ...init } = options;
  const now = nowOption ?? Date.now();
  const flows: FlowView[] = [
    { id: "flowise-local:code-helper", backendId: "flowise-local", name: "Code helper", intents: ["technical-analysis", "data-processing"], cacheable: true, cacheClass: "technical" },
    { id: "flowise-local:docs-qa", backendId: "flowise-local", name: "Docs Q&A", intents: ["rag-retrieval"], cacheable: true, cacheClass: "reference" },
    { id: "langflow-local:architect", backendId: "langflow-local", name: "Architect", intents: ["structural-thinking", "technical-analysis"], cacheable: true },
    { id: "langflow-local:chat", backendId: "langflow-local", name: "General chat", intents: ["conversation", "creative-orientation"], generalPurpose: true, cacheable: false, cacheClass: "volatile" },
  ];
  const backends: BackendView[] = [
    {
      id: "flowise-local",
      kind: "flowise",
      health: "healthy",
      healthLatencyMs: 12,
      checkedAt: new Date(now - 20_000).toISOString(),
      circuit: "closed",
      circuitFailures: 0,
      requestCount: 184,
      successRate: 0.96,
      latencyP50Ms: 240,
      latencyP95Ms: 610,
      series: sampleSeries(now, 0, 0.95, 240),
      flows: [
        { flowId: "flowise-local:code-helper", requestCount: 121, successRate: 0.95, latencyP50Ms: 260, latencyP95Ms: 640, series: sampleSeries(now, 1, 0.94, 260) },
        { flowId: "flowise-local:docs-qa", requestCount: 63, successRate: 0.98, latencyP50Ms: 210, latencyP95Ms: 520, series: sampleSeries(now, 2, 0.97, 210) },
      ],
    },
    {
      id: "langflow-local",
      kind: "langflow",
      health: "slow",
      healthMessage: "health probe took 1450 ms (slow threshold 1000 ms)",
      healthLatencyMs: 1450,
      checkedAt: new Date(now - 35_000).toISOString(),
      circuit: "half-open",
      circuitFailures: 3,
      requestCount: 97,
      successRate: 0.81,
      latencyP50Ms: 520,
      latencyP95Ms: 1900,
      series: sampleSeries(now, 5, 0.82, 520),
      flows: [
        { flowId: "langflow-local:architect", requestCount: 58, successRate: 0.84, latencyP50Ms: 610, latencyP95Ms: 2100, series: sampleSeries(now, 6, 0.83, 610) },
        { flowId: "langflow-local:chat", requestCount: 39, successRate: 0.77, latencyP50Ms: 430, latencyP95Ms: 1500, series: sampleSeries(now, 7, 0.78, 430) },
      ],
    },
  ];
  const sessions: SessionRecord[] = [
    {
      sessionId: "ops-review-42",
      turns: 2,
      tags: ["team:ops"],
      createdAt: now - 900_000,
      updatedAt: now - 120_000,
      turnsList: [
        { question: "Summarise last week's incidents", answer: "Three incidents: two cache timeouts and one failed deploy.", flowId: "flowise-local:docs-qa", backendId: "flowise-local", intent: "rag-retrieval", tags: ["team:ops"], askedAt: now - 900_000, answeredAt: now - 899_000 },
        { question: "Which one took longest to resolve?", answer: "The failed deploy: 47 minutes.", flowId: "flowise-local:docs-qa", backendId: "flowise-local", intent: "rag-retrieval", tags: ["team:ops"], askedAt: now - 121_000, answeredAt: now - 120_000 },
      ],
    },
    {
      sessionId: "design-sync",
      turns: 1,
      tags: ["project:falcon"],
      createdAt: now - 1_800_000,
      updatedAt: now - 1_700_000,
      turnsList: [
        { question: "How should we split the gateway into services?", answer: "Keep one stateless gateway; move shared state to Redis.", flowId: "langflow-local:architect", backendId: "langflow-local", intent: "structural-thinking", tags: ["project:falcon"], askedAt: now - 1_701_000, answeredAt: now - 1_700_000 },
      ],
    },
  ];
  const toolServers: ToolServerView[] = [
    { name: "filesystem", mode: "hot", connected: true, toolCount: 11, transport: "stdio", state: "connected" },
    { name: "memory", mode: "cold", connected: false, toolCount: 9, transport: "stdio", state: "idle" },
    { name: "github", mode: "hot", connected: false, toolCount: 0, transport: "http", state: "backing-off", lastError: "connection refused" },
  ];
  const tool = (server: string, name: string, description: string): ToolSearchHit => ({
    id: `${server}/${name}`,
    server,
    name,
    description,
    score: 0,
    affordance: `Use when: ${description}`,
  });
  const tools: ToolSearchHit[] = [
    tool("filesystem", "read_text_file", "Read a text file from the allowed directories"),
    tool("filesystem", "write_file", "Create or overwrite a file with new content"),
    tool("filesystem", "list_directory", "List files and directories in a path"),
    tool("memory", "create_entities", "Create entities in the knowledge graph memory"),
    tool("memory", "search_nodes", "Search the knowledge graph memory for nodes"),
    tool("github", "create_pull_request", "Open a pull request in a GitHub repository"),
  ];
  const source = createInMemoryDashboardSource({
    ...(withoutAnalytics ? {} : { analytics: sampleAnalyticsData(now) }),
    semanticCache: { enabled: true, lookups: 240, hits: 62, guardRejections: 7, threshold: 0.92 },
    ...init,
    backends,
    flows,
    sessions,
    toolServers,
    tools,
    cacheEntries: init.cacheEntries ?? [
      { flowId: "flowise-local:code-helper" },
      { flowId: "flowise-local:code-helper" },
      { flowId: "flowise-local:docs-qa", sessionId: "ops-review-42" },
      { flowId: "langflow-local:architect", sessionId: "design-sync" },
    ],
    cacheStats: init.cacheStats ?? {
      hits: 31,
      semanticHits: 4,
      misses: 58,
      writes: 52,
      errors: 0,
      hitRate: 31 / 89,
      byFlow: {
        "flowise-local:code-helper": { hits: 18, misses: 30, writes: 28 },
        "flowise-local:docs-qa": { hits: 9, misses: 14, writes: 13 },
        "langflow-local:architect": { hits: 4, misses: 14, writes: 11 },
      },
    },
  });
  // An hour of cache lookups with a rising hit rate, for the hit-rate chart.
  for (let minute = 59; minute >= 1; minute--) {
    const timestamp = new Date(now - minute * 60_000).toISOString();
    const base = { traceId: `sample-cache-${minute}`, requestId: `sample-cache-${minute}`, timestamp };
    const hits = Math.round(1 + 3 * ((60 - minute) / 60) + (minute % 3 === 0 ? 1 : 0));
    for (let index = 0; index < hits; index++) source.emit({ ...base, type: "cache-hit", scope: "shared", flowId: "flowise-local:code-helper", kind: "exact" });
    for (let index = 0; index < 3; index++) source.emit({ ...base, type: "cache-miss", scope: "shared", reason: "absent" });
  }
  if (!withoutQueries) {
    source.recordQuery(
      "How do I fix 'TypeError: cannot read properties of undefined' in my reducer?",
      buildQueryTrace({
        traceId: "sample-direct",
        startedAt: now - 300_000,
        intent: "technical-analysis",
        confidence: 0.93,
        candidates: [
          { backendId: "flowise-local", flowId: "flowise-local:code-helper", score: 0.91 },
          { backendId: "langflow-local", backendKind: "langflow", flowId: "langflow-local:architect", score: 0.74 },
        ],
        attempts: [{ backendId: "flowise-local", flowId: "flowise-local:code-helper", latencyMs: 230 }],
      }),
    );
    source.recordQuery(
      "Summarise last week's incidents",
      buildQueryTrace({ traceId: "sample-cached", startedAt: now - 200_000, sessionId: "ops-review-42", intent: "rag-retrieval", cache: "hit", candidates: [{ backendId: "flowise-local", flowId: "flowise-local:docs-qa", score: 0.88 }] }),
    );
    source.recordQuery(
      "Design a queue-based architecture for our ingestion pipeline",
      buildQueryTrace({
        traceId: "sample-fallback",
        startedAt: now - 100_000,
        intent: "structural-thinking",
        confidence: 0.71,
        candidates: [
          { backendId: "langflow-local", backendKind: "langflow", flowId: "langflow-local:architect", score: 0.82 },
          { backendId: "flowise-local", flowId: "flowise-local:code-helper", score: 0.63 },
        ],
        attempts: [
          { backendId: "langflow-local", flowId: "langflow-local:architect", outcome: "timeout", latencyMs: 900, errorCode: "BACKEND_TIMEOUT" },
          { backendId: "flowise-local", flowId: "flowise-local:code-helper", latencyMs: 310 },
        ],
      }),
    );
  }
  return source;
}
