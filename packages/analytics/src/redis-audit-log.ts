import { AfwError } from "@afw/contracts";
import { eventTimeMs, type AuditEvent, type AuditEventType } from "./audit-event.js";
import {
  TRACE_LOOKBACK_MS,
  TRACE_SPAN_MS,
  looksLikeAuditEvent,
  matchesAuditQuery,
  resolveAuditQuery,
  sortByTime,
  toJsonLines,
  type AuditLog,
  type AuditLogStats,
  type ResolvedAuditQuery,
} from "./audit-log.js";
import { LuaScript } from "@afw/cache";
import { BoundedRedis, type RedisClient, type RedisStoreConnectionOptions } from "./redis-support.js";
import { toEpochMs } from "./time-range.js";

/** Options of {@link createRedisAuditLog}. */
export interface RedisAuditLogOptions extends RedisStoreConnectionOptions {
  /** Approximate most entries kept (`XADD ... MAXLEN ~`). @default 50_000 */
  maxLength?: number | undefined;
  /** Entries older than this are trimmed (`XTRIM ... MINID ~`). @default 7 days */
  maxAgeMs?: number | undefined;
  /** Events written per round trip. @default 200 */
  batchSize?: number | undefined;
  /** Longest time an event waits before it is written. @default 50 */
  flushIntervalMs?: number | undefined;
  /** Store only events of these types. @default every type */
  types?: readonly AuditEventType[] | undefined;
  /** Clock for ids, age trimming and default query bounds. @default Date.now */
  now?: (() => number) | undefined;
}

// Appends a batch: ids follow event time (ms) but never go backwards nor beyond now + tolerance,
// so XRANGE by time works for back-filled and multi-instance writes alike.
const APPEND = new LuaScript(`
local key = KEYS[1]
local maxlen = ARGV[1]
local minid = tonumber(ARGV[2])
local ceiling = tonumber(ARGV[3])
local lastms = 0
local last = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)
if #last > 0 then lastms = tonumber(string.match(last[1][1], '^(%d+)')) end
local added = 0
for i = 4, #ARGV, 2 do
  local ms = tonumber(ARGV[i])
  if ms > ceiling then ms = ceiling end
  if ms < lastms then ms = lastms end
  redis.call('XADD', key, 'MAXLEN', '~', maxlen, string.format('%d-*', ms), 'e', ARGV[i + 1])
  lastms = ms
  added = added + 1
end
if minid > 0 then redis.call('XTRIM', key, 'MINID', '~', string.format('%d', minid)) end
return added
`);

const PAGE_SIZE = 1000;

type StreamEntry = [id: string, fields: string[]];

function entryMs(id: string): number {
  const dash = id.indexOf("-");
  return Number(dash === -1 ? id : id.slice(0, dash));
}

/**
 * An {@link AuditLog} on a Redis Stream, shared by every gateway instance. `emit` only queues the
 * event; a background writer appends batches with one Lua call each (`XADD ... MAXLEN ~` per
 * event, `XTRIM ... MINID ~` by age), so the query path never waits on Redis. Every operation is
 * bounded by `operationTimeoutMs`; when Redis is slow or down, batches are dropped and counted
 * ({@link AuditLogStats.dropped}, `failures`, `degraded`) and writing resumes by itself when it
 * returns. Queries read with paged `XRANGE`/`XREVRANGE`.
 *
 * @example
 * ```ts
 * const auditLog = createRedisAuditLog({ url: "redis://127.0.0.1:6379", maxLength: 100_000, maxAgeMs: 7 * 86_400_000 });
 * sinks.push(auditLog);
 * const lines = await auditLog.exportJsonLines({ range: "24h" });
 * await auditLog.close();
 * ```
 * @throws AfwError `CONFIG_INVALID` when neither or both of `url` and `client` are given.
 */
export function createRedisAuditLog(options: RedisAuditLogOptions): AuditLog {
  const redis = new BoundedRedis(options, "redis audit log");
  const key = redis.key("audit");
  const maxLength = options.maxLength ?? 50_000;
  const maxAgeMs = options.maxAgeMs ?? 7 * 86_400_000;
  const batchSize = Math.max(1, options.batchSize ?? 200);
  const flushIntervalMs = Math.max(0, options.flushIntervalMs ?? 50);
  // At most 20,000 events wait (more are dropped and counted). Entry ids follow event times but never go
  // backwards, so a late event gets a newer id: queries widen their id range by 2 minutes.
  const maxPending = Math.max(batchSize, 20_000);
  const lateToleranceMs = 120_000;
  const now = options.now ?? Date.now;
  const accepted = options.types ? new Set<string>(options.types) : undefined;

  let pending: AuditEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  let draining: Promise<void> | undefined;
  let closed = false;
  const counters = { received: 0, stored: 0, dropped: 0, failures: 0 };
  let degraded = false;
  let lastError: string | undefined;

  const fail = (message: string) => {
    counters.failures++;
    degraded = true;
    lastError = message;
  };

  const writeBatch = async (batch: AuditEvent[]) => {
    const current = now();
    const args: Array<string | number> = [maxLength, maxAgeMs > 0 ? Math.max(0, current - maxAgeMs) : 0, current + lateToleranceMs];
    let count = 0;
    for (const event of batch) {
      let json: string;
      const ms = eventTimeMs(event);
      try {
        json = JSON.stringify(event);
      } catch {
        counters.dropped++;
        continue;
      }
      args.push(Number.isFinite(ms) ? Math.max(0, Math.floor(ms)) : current, json);
      count++;
    }
    if (count === 0) return;
    const outcome = await redis.run((client) => APPEND.run(client, [key], args));
    if (outcome.ok) {
      counters.stored += count;
      degraded = false;
    } else {
      counters.dropped += count;
      fail(outcome.message);
    }
  };

  const drain = (): Promise<void> => {
    if (draining) return draining;
    draining = (async () => {
      try {
        while (pending.length > 0) {
          const batch = pending.length <= batchSize ? pending : pending.slice(0, batchSize);
          pending = pending.length <= batchSize ? [] : pending.slice(batchSize);
          await writeBatch(batch);
        }
      } finally {
        draining = undefined;
      }
    })();
    return draining;
  };

  const schedule = () => {
    if (closed) return;
    if (pending.length >= batchSize) {
      if (timer) {
        clearTimeout(timer);
        timer = undefined;
      }
      if (!immediate && !draining) {
        immediate = setImmediate(() => {
          immediate = undefined;
          void drain();
        });
      }
      return;
    }
    if (!timer && !immediate && !draining) {
      timer = setTimeout(() => {
        timer = undefined;
        void drain();
      }, flushIntervalMs);
      timer.unref();
    }
  };

  const flush = async (): Promise<void> => {
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (immediate) {
      clearImmediate(immediate);
      immediate = undefined;
    }
    while (pending.length > 0 || draining) await drain();
  };

  const readPage = async (fn: (client: RedisClient) => Promise<StreamEntry[]>): Promise<StreamEntry[]> => {
    const outcome = await redis.run(fn);
    if (!outcome.ok) {
      fail(outcome.message);
      throw new AfwError("CACHE_UNAVAILABLE", `the audit log store (Redis) did not answer: ${outcome.message}`);
    }
    return outcome.value;
  };

  const decode = (entry: StreamEntry): AuditEvent | undefined => {
    const fields = entry[1];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      if (fields[i] !== "e") continue;
      try {
        const value: unknown = JSON.parse(fields[i + 1]!);
        return looksLikeAuditEvent(value) ? value : undefined;
      } catch {
        return undefined;
      }
    }
    return undefined;
  };

  /** Scans [from, to + tolerance] in `order`, calling `visit` per decoded event until it returns false. */
  const scan = async (from: number, to: number, order: "asc" | "desc", visit: (event: AuditEvent, idMs: number) => boolean) => {
    const low = String(Math.max(0, Math.floor(from)));
    const high = String(Math.max(0, Math.floor(to + lateToleranceMs)));
    let cursor = order === "asc" ? low : high;
    for (;;) {
      const start = cursor;
      const page = await readPage((client) =>
        order === "asc" ? client.xrange(key, start, high, "COUNT", PAGE_SIZE) : client.xrevrange(key, start, low, "COUNT", PAGE_SIZE),
      );
      for (const entry of page) {
        const event = decode(entry);
        if (event && !visit(event, entryMs(entry[0]))) return;
      }
      if (page.length < PAGE_SIZE) return;
      cursor = `(${page[page.length - 1]![0]}`;
    }
  };

  // MINID trimming is approximate (whole stream nodes): never return what is older than maxAgeMs.
  const withinAge = (resolved: ResolvedAuditQuery): ResolvedAuditQuery =>
    maxAgeMs > 0 ? { ...resolved, from: Math.max(resolved.from, now() - maxAgeMs) } : resolved;

  const select = async (resolved: ResolvedAuditQuery): Promise<AuditEvent[]> => {
    const out: AuditEvent[] = [];
    if (resolved.limit === 0) return out;
    await scan(resolved.from, resolved.to, resolved.order, (event) => {
      if (matchesAuditQuery(event, resolved)) out.push(event);
      return out.length < resolved.limit;
    });
    // Stream order first (ascending ids), then a stable sort by event time: ties keep write order.
    if (resolved.order === "desc") out.reverse();
    const sorted = sortByTime(out);
    return resolved.order === "desc" ? sorted.reverse() : sorted;
  };

  return {
    emit(event) {
      counters.received++;
      if (closed || (accepted && !accepted.has(event.type))) return;
      if (pending.length >= maxPending) {
        counters.dropped++;
        return;
      }
      pending.push(event);
      schedule();
    },
    async query(query = {}) {
      await flush();
      return select(withinAge(resolveAuditQuery(query, now())));
    },
    async trace(traceId, traceOptions = {}) {
      await flush();
      const to = traceOptions.to === undefined ? now() : toEpochMs(traceOptions.to, "to");
      const from = Math.max(to - (traceOptions.lookbackMs ?? TRACE_LOOKBACK_MS), maxAgeMs > 0 ? now() - maxAgeMs : 0);
      const found: AuditEvent[] = [];
      let earliest = Infinity;
      await scan(from, to, "desc", (event, idMs) => {
        if (found.length > 0 && idMs < earliest - TRACE_SPAN_MS) return false;
        if (event.traceId === traceId) {
          const time = eventTimeMs(event);
          if (time >= from && time <= to) {
            found.push(event);
            earliest = Math.min(earliest, time);
          }
        }
        return true;
      });
      return sortByTime(found.reverse());
    },
    async exportJsonLines(query = {}) {
      await flush();
      const events = await select(withinAge(resolveAuditQuery(query, now())));
      return toJsonLines(query.order === "desc" ? events.reverse() : events);
    },
    flush,
    stats(): AuditLogStats {
      return {
        backend: "redis",
        ...counters,
        pending: pending.length,
        degraded,
        ...(lastError === undefined ? {} : { lastError }),
      };
    },
    async close() {
      if (closed) return;
      await flush();
      closed = true;
      await redis.close();
    },
  };
}
