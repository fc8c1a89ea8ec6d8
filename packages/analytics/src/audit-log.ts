import type { TraceSink } from "@afw/contracts";
import { eventTimeMs, type AuditEvent, type AuditEventType } from "./audit-event.js";
import { toEpochMs, type TimeInput } from "./time-range.js";

/** What {@link AuditLog.query} selects. Every field is optional; all given filters must match. */
export interface AuditQuery {
  /** First included time. @default the beginning of the log */
  from?: TimeInput | undefined;
  /** Last included time. @default now */
  to?: TimeInput | undefined;
  /** Only events of these types. */
  types?: readonly AuditEventType[] | undefined;
  /** Only events of this session. */
  sessionId?: string | undefined;
  /** Most events returned. @default 10_000 (at most 1_000_000) */
  limit?: number | undefined;
  /** `asc`: the oldest matching events first; `desc`: the newest first. @default "asc" */
  order?: "asc" | "desc" | undefined;
}

/** Counters of an audit log, for health and the dashboard. */
export interface AuditLogStats {
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
 * A bounded, queryable store of audit events (every trace event the gateway emits plus the
 * analytics' own records). A {@link @afw/contracts!TraceSink}: `emit` never blocks nor throws.
 *
 * @example
 * ```ts
 * const auditLog = createMemoryAuditLog({ capacity: 50_000 });
 * const failures = await auditLog.query({ from: Date.now() - 3_600_000, types: ["query-failed"] });
 * ```
 */
export interface AuditLog extends TraceSink {
  /** Records one event. Synchronous, never throws; slow work happens in the background. */
  emit(event: AuditEvent): void;
  /** Events matching `query`, ordered by time (see {@link AuditQuery.order}). */
  query(query?: AuditQuery): Promise<AuditEvent[]>;
  /** Every event of one trace, oldest first, searched backwards from `to` (default now) within `lookbackMs` (default 24 h). */
  trace(traceId: string, options?: { to?: TimeInput; lookbackMs?: number }): Promise<AuditEvent[]>;
  /** Resolves once every event emitted so far has been written (or dropped). */
  flush(): Promise<void>;
  /** Current counters. */
  stats(): AuditLogStats;
  /** Flushes, stops background work and releases the connection it owns. Idempotent. */
  close(): Promise<void>;
}

/** How long before a trace's first found event the backward scan of {@link AuditLog.trace} continues. */
export const TRACE_SPAN_MS = 180_000;

/** The storage part of an audit log; {@link createAuditLog} adds the queries. @internal */
export interface AuditStorage {
  /** Stores (or queues) an event. Never throws. */
  append(event: AuditEvent): void;
  /** Visits the stored events whose position (`at`, ms) is in [from, to], in `order`, until `visit` returns false. */
  scan(from: number, to: number, order: "asc" | "desc", visit: (event: AuditEvent, at: number) => boolean): Promise<void>;
  flush(): Promise<void>;
  close(): Promise<void>;
  stats(): Omit<AuditLogStats, "received">;
}

/** An {@link AuditLog} over a storage part: filters, ordering, limits, traces and export. @internal */
export function createAuditLog(storage: AuditStorage, options: { now: () => number; maxAgeMs: number }): AuditLog {
  const { now, maxAgeMs } = options;
  let received = 0;
  let closed = false;
  // Trimming by age may be approximate: never return what is older than maxAgeMs.
  const oldest = () => (maxAgeMs > 0 ? now() - maxAgeMs : 0);

  const select = async (query: AuditQuery): Promise<AuditEvent[]> => {
    await storage.flush();
    const at = now();
    const from = Math.max(query.from === undefined ? 0 : toEpochMs(query.from, "from"), oldest());
    const to = query.to === undefined ? at : toEpochMs(query.to, "to");
    const limit = Math.max(0, Math.min(1_000_000, Math.floor(query.limit ?? 10_000)));
    const types = query.types && query.types.length > 0 ? new Set<string>(query.types) : undefined;
    const out: AuditEvent[] = [];
    if (limit > 0) {
      await storage.scan(from, to, query.order ?? "asc", (event) => {
        const time = eventTimeMs(event);
        const matches =
          time >= from &&
          time <= to &&
          (!types || types.has(event.type)) &&
          (query.sessionId === undefined || event.sessionId === query.sessionId);
        if (matches) out.push(event);
        return out.length < limit;
      });
    }
    // Storage order first, then a stable sort by event time: ties keep write order.
    if (query.order === "desc") return sortByTime(out.reverse()).reverse();
    return sortByTime(out);
  };

  return {
    emit(event) {
      received++;
      if (!closed) storage.append(event);
    },
    query: (query = {}) => select(query),
    async trace(traceId, traceOptions = {}) {
      await storage.flush();
      const to = traceOptions.to === undefined ? now() : toEpochMs(traceOptions.to, "to");
      const from = Math.max(to - (traceOptions.lookbackMs ?? 86_400_000), oldest());
      const found: AuditEvent[] = [];
      let earliest = Infinity;
      await storage.scan(from, to, "desc", (event, at) => {
        if (found.length > 0 && at < earliest - TRACE_SPAN_MS) return false;
        const time = eventTimeMs(event);
        if (event.traceId === traceId && time >= from && time <= to) {
          found.push(event);
          earliest = Math.min(earliest, time);
        }
        return true;
      });
      return sortByTime(found.reverse());
    },
    flush: () => storage.flush(),
    stats: () => ({ received, ...storage.stats() }),
    async close() {
      if (closed) return;
      await storage.flush();
      closed = true;
      await storage.close();
    },
  };
}

/** Sorts events by time, stable (equal times keep their order), into a new array. @internal */
export function sortByTime(events: readonly AuditEvent[]): AuditEvent[] {
  const keyed = events.map((event, index) => ({ event, index, time: eventTimeMs(event) }));
  keyed.sort((a, b) => a.time - b.time || a.index - b.index);
  return keyed.map((entry) => entry.event);
}

/** Options of {@link createMemoryAuditLog}. */
export interface MemoryAuditLogOptions {
  /** Most events kept; the oldest are overwritten. @default 10_000 */
  capacity?: number;
  /** Events older than this are not returned. @default unlimited */
  maxAgeMs?: number | undefined;
  /** Clock for age limits and default query bounds. @default Date.now */
  now?: () => number;
}

/**
 * An {@link AuditLog} in process memory: a ring buffer of at most `capacity` events, the default
 * without Redis (every gateway instance then has its own log).
 *
 * @example
 * ```ts
 * const auditLog = createMemoryAuditLog({ capacity: 20_000, maxAgeMs: 7 * 86_400_000 });
 * ```
 * @throws RangeError when `capacity` is not a positive integer.
 */
export function createMemoryAuditLog(options: MemoryAuditLogOptions = {}): AuditLog {
  const capacity = options.capacity ?? 10_000;
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError("capacity must be a positive integer");
  // `time` is parsed on the first scan that reads the slot: emit stays a store of a reference.
  const slots: Array<{ event: AuditEvent; time?: number }> = [];
  let next = 0;
  let stored = 0;
  return createAuditLog(
    {
      append(event) {
        slots[next] = { event };
        next = (next + 1) % capacity;
        stored++;
      },
      async scan(from, to, order, visit) {
        const size = slots.length;
        const start = size < capacity ? 0 : next;
        for (let i = 0; i < size; i++) {
          const slot = slots[(start + (order === "asc" ? i : size - 1 - i)) % capacity]!;
          const time = (slot.time ??= eventTimeMs(slot.event));
          if (time >= from && time <= to && !visit(slot.event, time)) return;
        }
      },
      async flush() {},
      async close() {},
      stats: () => ({ backend: "memory", stored, dropped: stored - slots.length, failures: 0, pending: 0, degraded: false }),
    },
    { now: options.now ?? Date.now, maxAgeMs: options.maxAgeMs ?? 0 },
  );
}
