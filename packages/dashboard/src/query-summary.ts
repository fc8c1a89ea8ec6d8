import type { TraceEvent, TraceEventType } from "@afw/contracts";
import type { QueryAttempt, QuerySummary } from "./dashboard-source.js";

/** Event types that belong to a query (as opposed to background health checks or tool listing). */
const QUERY_EVENT_TYPES: ReadonlySet<TraceEventType> = new Set<TraceEventType>(["query-received", "query-answered", "query-failed"]);

/** Options of {@link buildQuerySummary}. */
export interface BuildQuerySummaryOptions {
  /** The question, when the caller knows it (no trace event carries it). */
  question?: string | undefined;
}

/**
 * Builds the feed row of one query from its trace events (any order; only events of the first
 * event's `traceId` are used). Intent and confidence come from `intent-classified` (or the
 * routing decision), candidates and the first choice from `routing-decided`, attempts from
 * `backend-call-start`/`-end`, fallbacks from `fallback-triggered`, the cache outcome from
 * `cache-hit`/`cache-miss`, and the outcome from `query-answered`/`query-failed`.
 *
 * @returns `undefined` when `events` is empty.
 * @example
 * ```ts
 * const summary = buildQuerySummary(ring.byTraceId(traceId), { question });
 * summary?.fallbacks.length; // 1 after a fallback
 * ```
 */
export function buildQuerySummary(events: readonly TraceEvent[], options: BuildQuerySummaryOptions = {}): QuerySummary | undefined {
  const first = events[0];
  if (!first) return undefined;
  const traceId = first.traceId;
  const own = events.filter((event) => event.traceId === traceId).sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
  const summary: QuerySummary = {
    traceId,
    requestId: first.requestId,
    startedAt: own[0]?.timestamp ?? first.timestamp,
    candidates: [],
    attempts: [],
    fallbacks: [],
    cache: "unknown",
    outcome: "pending",
    eventCount: own.length,
  };
  if (options.question !== undefined) {
    summary.question = options.question;
    summary.questionLength = options.question.length;
  }
  const openAttempts = new Map<string, QueryAttempt>();
  for (const event of own) {
    if (event.sessionId !== undefined) summary.sessionId = event.sessionId;
    switch (event.type) {
      case "query-received":
        summary.startedAt = event.timestamp;
        summary.requestId = event.requestId;
        summary.tool = event.tool;
        summary.questionLength = event.questionLength;
        break;
      case "intent-classified":
        summary.intent = event.intent;
        summary.confidence = event.confidence;
        summary.method = event.method;
        break;
      case "routing-decided": {
        const decision = event.decision;
        summary.intent ??= decision.intent;
        summary.confidence ??= decision.confidence;
        summary.method ??= decision.method;
        summary.strategy = decision.strategy;
        summary.candidates = decision.candidates;
        if (decision.chosen) summary.chosen = { backendId: decision.chosen.backendId, flowId: decision.chosen.flowId };
        break;
      }
      case "router-low-confidence":
        summary.strategy ??= event.strategy;
        break;
      case "cache-hit":
        summary.cache = event.kind === "semantic" ? "semantic-hit" : "hit";
        break;
      case "cache-miss":
        if (summary.cache === "unknown") summary.cache = event.reason === "bypass" ? "bypass" : "miss";
        break;
      case "backend-call-start": {
        const attempt: QueryAttempt = { backendId: event.backendId, flowId: event.flowId, attempt: event.attempt, outcome: "pending" };
        if (event.hedged !== undefined) attempt.hedged = event.hedged;
        summary.attempts.push(attempt);
        openAttempts.set(`${event.backendId}\u0000${event.flowId}\u0000${event.attempt}`, attempt);
        break;
      }
      case "backend-call-end": {
        const key = `${event.backendId}\u0000${event.flowId}\u0000${event.attempt}`;
        let attempt = openAttempts.get(key);
        if (!attempt) {
          attempt = { backendId: event.backendId, flowId: event.flowId, attempt: event.attempt, outcome: event.outcome };
          summary.attempts.push(attempt);
        }
        openAttempts.delete(key);
        attempt.outcome = event.outcome;
        attempt.latencyMs = event.latencyMs;
        if (event.errorCode !== undefined) attempt.errorCode = event.errorCode;
        if (event.statusCode !== undefined) attempt.statusCode = event.statusCode;
        break;
      }
      case "fallback-triggered":
        summary.fallbacks.push({
          fromBackendId: event.fromBackendId,
          fromFlowId: event.fromFlowId,
          toBackendId: event.toBackendId,
          toFlowId: event.toFlowId,
          reason: event.reason,
        });
        break;
      case "query-answered":
        summary.outcome = "success";
        summary.finishedAt = event.timestamp;
        summary.durationMs = event.durationMs;
        summary.answeredBy = { backendId: event.backendId, flowId: event.flowId };
        if (event.cacheHit === true) summary.cache = "hit";
        else if (event.cacheHit === "semantic") summary.cache = "semantic-hit";
        else if (summary.cache === "unknown") summary.cache = "miss";
        break;
      case "query-failed":
        summary.outcome = "error";
        summary.finishedAt = event.timestamp;
        summary.durationMs = event.durationMs;
        summary.errorCode = event.code;
        summary.errorMessage = event.message;
        break;
      default:
        break;
    }
  }
  return summary;
}

/** Options of {@link queriesFromTraceEvents}. */
export interface QueriesFromTraceEventsOptions {
  /** Most queries returned. @default 50 */
  limit?: number | undefined;
  /** Looks up the question of a trace (the gateway keeps it; trace events do not). */
  questionOf?: ((traceId: string) => string | undefined) | undefined;
}

/**
 * Groups a log of trace events (e.g. the gateway's ring buffer) by trace and builds one
 * {@link QuerySummary} per query, newest first. Traces without a `query-received`,
 * `query-answered` or `query-failed` event (health checks, tool listing) are skipped.
 *
 * @example
 * ```ts
 * const queries = queriesFromTraceEvents(ring.recent({ limit: 5000 }), { limit: 50, questionOf: (id) => questions.get(id) });
 * ```
 */
export function queriesFromTraceEvents(events: readonly TraceEvent[], options: QueriesFromTraceEventsOptions = {}): QuerySummary[] {
  const limit = options.limit ?? 50;
  const byTrace = new Map<string, TraceEvent[]>();
  const isQuery = new Set<string>();
  for (const event of events) {
    let list = byTrace.get(event.traceId);
    if (!list) {
      list = [];
      byTrace.set(event.traceId, list);
    }
    list.push(event);
    if (QUERY_EVENT_TYPES.has(event.type)) isQuery.add(event.traceId);
  }
  const summaries: QuerySummary[] = [];
  for (const [traceId, list] of byTrace) {
    if (!isQuery.has(traceId)) continue;
    const summary = buildQuerySummary(list, { question: options.questionOf?.(traceId) });
    if (summary) summaries.push(summary);
  }
  summaries.sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt));
  return summaries.slice(0, Math.max(0, limit));
}

/** True when `event` starts or ends a query, i.e. when the live feed should show or update a row. */
export function isQueryLifecycleEvent(event: TraceEvent): boolean {
  return QUERY_EVENT_TYPES.has(event.type);
}
