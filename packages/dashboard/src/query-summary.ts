import { buildQueryRecords, type QueryRecord } from "@afw/analytics";
import type { TraceEvent } from "@afw/contracts";
import type { QueryCacheOutcome, QuerySummary } from "./dashboard-source.js";

const CACHE_OUTCOMES: Readonly<Record<NonNullable<QueryRecord["cache"]>, QueryCacheOutcome>> = { exact: "hit", semantic: "semantic-hit", miss: "miss", bypass: "bypass" };
const OUTCOMES = { answered: "success", failed: "error", pending: "pending" } as const;
const iso = (ms: number | undefined): string | undefined => (ms === undefined || !Number.isFinite(ms) ? undefined : new Date(ms).toISOString());

/**
 * The feed row of one query: `@afw/analytics`' {@link QueryRecord} (the one fold of a trace's
 * events) in the dashboard's shape, with the question the gateway kept.
 */
function toQuerySummary(record: QueryRecord, question: string | undefined, events: readonly TraceEvent[]): QuerySummary {
  const summary: QuerySummary = {
    traceId: record.traceId,
    requestId: record.requestId,
    sessionId: record.sessionId,
    tool: record.tool,
    startedAt: iso(record.startedAt) ?? new Date(0).toISOString(),
    finishedAt: iso(record.endedAt),
    questionLength: record.questionLength ?? question?.length,
    intent: record.intent,
    confidence: record.confidence,
    method: record.method,
    strategy: record.strategy ?? record.lowConfidence?.strategy,
    candidates: record.candidates.map(({ flowMatch: _flowMatch, ...candidate }) => candidate),
    attempts: record.attempts.map(({ at: _at, ...attempt }) => attempt),
    fallbacks: record.fallbacks,
    cache: record.cache ? CACHE_OUTCOMES[record.cache] : record.outcome === "answered" ? "miss" : "unknown",
    outcome: OUTCOMES[record.outcome],
    errorCode: record.errorCode,
    errorMessage: record.errorMessage,
    durationMs: record.durationMs,
    eventCount: events.filter((event) => event.traceId === record.traceId).length,
  };
  if (question !== undefined) summary.question = question;
  if (record.chosenBackendId !== undefined && record.chosenFlowId !== undefined) summary.chosen = { backendId: record.chosenBackendId, flowId: record.chosenFlowId };
  if (record.outcome === "answered" && record.answeredBackendId !== undefined && record.answeredFlowId !== undefined) {
    summary.answeredBy = { backendId: record.answeredBackendId, flowId: record.answeredFlowId };
  }
  for (const key of Object.keys(summary) as (keyof QuerySummary)[]) if (summary[key] === undefined) delete summary[key];
  return summary;
}

/**
 * Builds the feed row of one query from its trace events (any order; only the first event's
 * trace counts). `undefined` when the events hold no query (no `query-received`, `-answered` or `-failed`).
 */
export function buildQuerySummary(events: readonly TraceEvent[], options: { question?: string | undefined } = {}): QuerySummary | undefined {
  const traceId = events[0]?.traceId;
  const record = buildQueryRecords(events.filter((event) => event.traceId === traceId))[0];
  return record && toQuerySummary(record, options.question, events);
}

/** One row per query of a trace-event log (e.g. the gateway's ring buffer), newest first, at most `limit` (50). */
export function queriesFromTraceEvents(events: readonly TraceEvent[], options: { limit?: number; questionOf?: (traceId: string) => string | undefined } = {}): QuerySummary[] {
  const byTrace = new Map<string, TraceEvent[]>();
  for (const event of events) {
    const list = byTrace.get(event.traceId);
    if (list) list.push(event);
    else byTrace.set(event.traceId, [event]);
  }
  return buildQueryRecords(events)
    .reverse()
    .slice(0, Math.max(0, options.limit ?? 50))
    .map((record) => toQuerySummary(record, options.questionOf?.(record.traceId), byTrace.get(record.traceId) ?? []));
}

/** True when `event` starts or ends a query, i.e. when the live feed should show or update a row. */
export function isQueryLifecycleEvent(event: TraceEvent): boolean {
  return event.type === "query-received" || event.type === "query-answered" || event.type === "query-failed";
}
