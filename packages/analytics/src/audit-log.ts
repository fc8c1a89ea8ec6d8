import type { TraceSink } from "@afw/contracts";
import { eventTimeMs, type AuditEvent, type AuditEventType } from "./audit-event.js";
import { resolveTimeRange, toEpochMs, type TimeInput, type TimeRange } from "./time-range.js";

/** Default `limit` of {@link AuditLog.query}. */
export const AUDIT_QUERY_DEFAULT_LIMIT = 10_000;
/** Largest `limit` of {@link AuditLog.query}. */
export const AUDIT_QUERY_MAX_LIMIT = 1_000_000;

/** What {@link AuditLog.query} selects. Every field is optional; all given filters must match. */
export interface AuditQuery {
  /** A preset or explicit range; `from`/`to` below override its bounds. */
  range?: TimeRange | undefined;
  /** First included time. @default the beginning of the log */
  from?: TimeInput | undefined;
  /** Last included time. @default now */
  to?: TimeInput | undefined;
  /** Only events of these types. */
  types?: readonly AuditEventType[] | undefined;
  /** Only events of this trace. */
  traceId?: string | undefined;
  /** Only events of this session. */
  sessionId?: string | undefined;
  /** Most events returned. @default 10_000 (at most 1_000_000) */
  limit?: number | undefined;
  /**
   * `asc`: the oldest matching events first (the first `limit`); `desc`: the newest first (the
   * last `limit`). @default "asc"
   */
  order?: "asc" | "desc" | undefined;
}

/** Counters of an audit log, for health and the dashboard. */
export interface AuditLogStats {
  /** `memory` or `redis`. */
  backend: "memory" | "redis";
  /** Events given to `emit`. */
  received: number;
  /** Events stored. */
  stored: number;
  /** Events lost: overwritten by the ring buffer, over the pending bound, or in a failed write. */
  dropped: number;
  /** Failed store operations (writes and reads). */
  failures: number;
  /** Events waiting to be written. */
  pending: number;
  /** True after a failed write, until a write succeeds. */
  degraded: boolean;
  /** Message of the last failure (never contains credentials). */
  lastError?: string | undefined;
}

/**
 * A bounded, queryable store of audit events: every trace event the gateway emits (routing
 * decisions, attempts, fallbacks, cache hits, tool-list decisions, ...) plus the analytics' own
 * records. It is a {@link @afw/contracts!TraceSink}: `emit` never blocks and never throws, so it
 * can be fanned out from the gateway's trace sink directly.
 *
 * @example
 * ```ts
 * const auditLog = createMemoryAuditLog({ capacity: 50_000 });
 * const sink = fanOutTraceSink(ringBuffer, auditLog);
 * const failures = await auditLog.query({ range: "1h", types: ["query-failed"] });
 * ```
 */
export interface AuditLog extends TraceSink {
  /** Records one event. Synchronous, never throws; slow work happens in the background. */
  emit(event: AuditEvent): void;
  /** Events matching `query`, ordered by time (see {@link AuditQuery.order}). */
  query(query?: AuditQuery): Promise<AuditEvent[]>;
  /**
   * Every event of one trace, oldest first. Scans backwards from `to` (default now) within
   * `lookbackMs` (default 24 h) and stops shortly after the trace's first event.
   */
  trace(traceId: string, options?: { to?: TimeInput; lookbackMs?: number }): Promise<AuditEvent[]>;
  /** Matching events as JSON lines (one event per line, each line ending in `\n`), oldest first. */
  exportJsonLines(query?: AuditQuery): Promise<string>;
  /** Resolves once every event emitted so far has been written (or dropped). */
  flush(): Promise<void>;
  /** Current counters. */
  stats(): AuditLogStats;
  /** Flushes, stops background work and releases the connection it owns. Idempotent. */
  close(): Promise<void>;
}

/** An {@link AuditQuery} resolved to numbers and sets. @internal */
export interface ResolvedAuditQuery {
  from: number;
  to: number;
  types: ReadonlySet<string> | undefined;
  traceId: string | undefined;
  sessionId: string | undefined;
  limit: number;
  order: "asc" | "desc";
}

/** Resolves an {@link AuditQuery} against `now`. @internal */
export function resolveAuditQuery(query: AuditQuery, now: number): ResolvedAuditQuery {
  const base = query.range === undefined ? { from: 0, to: now } : resolveTimeRange(query.range, now);
  const from = query.from === undefined ? base.from : toEpochMs(query.from, "from");
  const to = query.to === undefined ? base.to : toEpochMs(query.to, "to");
  const limit = Math.max(0, Math.min(AUDIT_QUERY_MAX_LIMIT, Math.floor(query.limit ?? AUDIT_QUERY_DEFAULT_LIMIT)));
  return {
    from,
    to,
    types: query.types && query.types.length > 0 ? new Set(query.types) : undefined,
    traceId: query.traceId,
    sessionId: query.sessionId,
    limit,
    order: query.order ?? "asc",
  };
}

/** True when `event` matches the resolved query's filters. @internal */
export function matchesAuditQuery(event: AuditEvent, query: ResolvedAuditQuery, time: number = eventTimeMs(event)): boolean {
  if (!(time >= query.from && time <= query.to)) return false;
  if (query.types && !query.types.has(event.type)) return false;
  if (query.traceId !== undefined && event.traceId !== query.traceId) return false;
  if (query.sessionId !== undefined && event.sessionId !== query.sessionId) return false;
  return true;
}

/**
 * Sorts events by their time, stable (equal times keep their order), parsing each timestamp
 * once. Returns a new array. @internal
 */
export function sortByTime(events: readonly AuditEvent[]): AuditEvent[] {
  const keyed = events.map((event, index) => ({ event, index, time: eventTimeMs(event) }));
  keyed.sort((a, b) => a.time - b.time || a.index - b.index);
  return keyed.map((entry) => entry.event);
}

/** Events as JSON lines. @internal */
export function toJsonLines(events: readonly AuditEvent[]): string {
  let out = "";
  for (const event of events) out += `${JSON.stringify(event)}\n`;
  return out;
}

/** Default look-back of {@link AuditLog.trace}. */
export const TRACE_LOOKBACK_MS = 86_400_000;
/** How long before a trace's first found event the backward scan of {@link AuditLog.trace} continues. */
export const TRACE_SPAN_MS = 180_000;

/** A cheap structural check of a decoded stored event. @internal */
export function looksLikeAuditEvent(value: unknown): value is AuditEvent {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record["type"] === "string" && typeof record["traceId"] === "string" && typeof record["timestamp"] === "string";
}
