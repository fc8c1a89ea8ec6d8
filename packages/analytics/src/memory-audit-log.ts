import { eventTimeMs, type AuditEvent, type AuditEventType } from "./audit-event.js";
import {
  TRACE_LOOKBACK_MS,
  matchesAuditQuery,
  resolveAuditQuery,
  toJsonLines,
  type AuditLog,
  type AuditLogStats,
  type AuditQuery,
} from "./audit-log.js";
import { toEpochMs } from "./time-range.js";

/** Options of {@link createMemoryAuditLog}. */
export interface MemoryAuditLogOptions {
  /** Most events kept; the oldest are overwritten. @default 10_000 */
  capacity?: number;
  /** Events older than this are not returned (and are overwritten first). @default unlimited */
  maxAgeMs?: number | undefined;
  /** Store only events of these types. @default every type */
  types?: readonly AuditEventType[] | undefined;
  /** Clock for age limits and default query bounds. @default Date.now */
  now?: () => number;
}

/**
 * An {@link AuditLog} in process memory: a ring buffer of at most `capacity` events. The
 * default when no Redis is configured; every gateway instance then has its own log.
 *
 * @example
 * ```ts
 * const auditLog = createMemoryAuditLog({ capacity: 20_000, maxAgeMs: 7 * 86_400_000 });
 * auditLog.emit(event);
 * const events = await auditLog.query({ range: "24h", types: ["query-answered"] });
 * ```
 * @throws RangeError when `capacity` is not a positive integer.
 */
export function createMemoryAuditLog(options: MemoryAuditLogOptions = {}): AuditLog {
  const capacity = options.capacity ?? 10_000;
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError("capacity must be a positive integer");
  const now = options.now ?? Date.now;
  const accepted = options.types ? new Set<string>(options.types) : undefined;
  // `time` is parsed lazily, on the first query that reads the slot: emit stays a store of a reference.
  const slots: Array<{ event: AuditEvent; time?: number } | undefined> = [];
  let next = 0;
  let size = 0;
  let received = 0;
  let stored = 0;
  let dropped = 0;
  let closed = false;

  const select = (query: AuditQuery): AuditEvent[] => {
    const resolved = resolveAuditQuery(query, now());
    const oldest = options.maxAgeMs === undefined ? -Infinity : now() - options.maxAgeMs;
    const matching: Array<{ event: AuditEvent; time: number; index: number }> = [];
    const start = size < capacity ? 0 : next;
    for (let i = 0; i < size; i++) {
      const slot = slots[(start + i) % capacity];
      if (!slot) continue;
      const time = (slot.time ??= eventTimeMs(slot.event));
      if (time < oldest || time < resolved.from || time > resolved.to) continue;
      if (matchesAuditQuery(slot.event, resolved, time)) matching.push({ event: slot.event, time, index: i });
    }
    // Insertion order is nearly time order; sort (stable) so both backends answer alike.
    matching.sort((a, b) => a.time - b.time || a.index - b.index);
    const events = matching.map((entry) => entry.event);
    if (resolved.order === "desc") return events.reverse().slice(0, resolved.limit);
    return events.slice(0, resolved.limit);
  };

  return {
    emit(event) {
      received++;
      if (closed || (accepted && !accepted.has(event.type))) return;
      if (size === capacity) dropped++;
      slots[next] = { event };
      next = (next + 1) % capacity;
      if (size < capacity) size++;
      stored++;
    },
    async query(query = {}) {
      return select(query);
    },
    async trace(traceId, traceOptions = {}) {
      const to = traceOptions.to === undefined ? now() : toEpochMs(traceOptions.to, "to");
      const lookbackMs = traceOptions.lookbackMs ?? TRACE_LOOKBACK_MS;
      return select({ traceId, from: to - lookbackMs, to, limit: capacity });
    },
    async exportJsonLines(query = {}) {
      const events = select(query);
      return toJsonLines(query.order === "desc" ? events.reverse() : events);
    },
    async flush() {},
    stats(): AuditLogStats {
      return { backend: "memory", received, stored, dropped, failures: 0, pending: 0, degraded: false };
    },
    async close() {
      closed = true;
    },
  };
}
