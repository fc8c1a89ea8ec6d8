import { buildQueryRecords, type QueryRecord } from "@afw/analytics";
import type { TraceEvent } from "@afw/contracts";
import type { QuerySummary } from "./dashboard-source.js";

const withQuestion = (record: QueryRecord, question: string | undefined): QuerySummary => (question === undefined ? record : { ...record, question });

/**
 * Builds the feed row of one query from its trace events (any order; only the first event's
 * trace counts). `undefined` when the events hold no query (no `query-received`, `-answered` or `-failed`).
 */
export function buildQuerySummary(events: readonly TraceEvent[], options: { question?: string | undefined } = {}): QuerySummary | undefined {
  const traceId = events[0]?.traceId;
  const record = buildQueryRecords(events.filter((event) => event.traceId === traceId))[0];
  return record && withQuestion(record, options.question);
}

/** One row per query of a trace-event log (e.g. the gateway's ring buffer), newest first, at most `limit` (50). */
export function queriesFromTraceEvents(events: readonly TraceEvent[], options: { limit?: number; questionOf?: (traceId: string) => string | undefined } = {}): QuerySummary[] {
  return buildQueryRecords(events)
    .reverse()
    .slice(0, Math.max(0, options.limit ?? 50))
    .map((record) => withQuestion(record, options.questionOf?.(record.traceId)));
}

/** True when `event` starts or ends a query, i.e. when the live feed should show or update a row. */
export function isQueryLifecycleEvent(event: TraceEvent): boolean {
  return event.type === "query-received" || event.type === "query-answered" || event.type === "query-failed";
}
