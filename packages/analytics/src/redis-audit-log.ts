import { AfwError } from "@afw/contracts";
import { LuaScript } from "@afw/cache";
import { eventTimeMs, type AuditEvent } from "./audit-event.js";
import { createAuditLog, type AuditLog } from "./audit-log.js";
import { connectStore, type RedisStoreConnectionOptions } from "./redis-support.js";

/** Options of {@link createRedisAuditLog}. */
export interface RedisAuditLogOptions extends RedisStoreConnectionOptions {
  /** Approximate most entries kept (`XADD ... MAXLEN ~`). @default 50_000 */
  maxLength?: number | undefined;
  /** Entries older than this are trimmed (`XTRIM ... MINID ~`). @default 7 days */
  maxAgeMs?: number | undefined;
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
/** Events written per round trip, and the longest time (ms) an event waits before it is written. */
const BATCH_SIZE = 200;
const FLUSH_INTERVAL_MS = 50;

type StreamEntry = [id: string, fields: string[]];

/**
 * An {@link AuditLog} on a Redis Stream shared by every gateway instance. `emit` only queues; a
 * background writer appends batches with one Lua call each, so the query path never waits on
 * Redis. Every operation is bounded by `operationTimeoutMs`; while Redis is slow or down, batches
 * are dropped and counted (`stats()`) and writing resumes by itself.
 *
 * @example
 * ```ts
 * const auditLog = createRedisAuditLog({ url: "redis://127.0.0.1:6379", maxLength: 100_000, maxAgeMs: 7 * 86_400_000 });
 * ```
 * @throws AfwError `CONFIG_INVALID` when neither or both of `url` and `client` are given.
 */
export function createRedisAuditLog(options: RedisAuditLogOptions): AuditLog {
  const { connection, key: keyOf } = connectStore(options);
  const key = keyOf("audit");
  const maxLength = options.maxLength ?? 50_000;
  const maxAgeMs = options.maxAgeMs ?? 7 * 86_400_000;
  // At most 20,000 events wait (more are dropped and counted). Entry ids follow event times but never go
  // backwards, so a late event gets a newer id: scans widen their id range by 2 minutes.
  const maxPending = 20_000;
  const lateToleranceMs = 120_000;
  const now = options.now ?? Date.now;

  let pending: AuditEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  let draining: Promise<void> | undefined;
  const counters = { stored: 0, dropped: 0, failures: 0 };
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
      try {
        json = JSON.stringify(event);
      } catch {
        counters.dropped++;
        continue;
      }
      const ms = eventTimeMs(event);
      args.push(Number.isFinite(ms) ? Math.max(0, Math.floor(ms)) : current, json);
      count++;
    }
    if (count === 0) return;
    const outcome = await connection.execute((client) => APPEND.run(client, [key], args));
    if (outcome.ok) {
      counters.stored += count;
      degraded = false;
    } else {
      counters.dropped += count;
      fail(outcome.message);
    }
  };

  const drain = (): Promise<void> =>
    (draining ??= (async () => {
      try {
        while (pending.length > 0) await writeBatch(pending.splice(0, BATCH_SIZE));
      } finally {
        draining = undefined;
      }
    })());

  const schedule = () => {
    if (pending.length >= BATCH_SIZE) {
      clearTimeout(timer);
      timer = undefined;
      immediate ??= draining ? undefined : setImmediate(() => ((immediate = undefined), void drain()));
    } else if (!timer && !immediate && !draining) {
      timer = setTimeout(() => ((timer = undefined), void drain()), FLUSH_INTERVAL_MS);
      timer.unref();
    }
  };

  const decode = (fields: string[]): AuditEvent | undefined => {
    const at = fields.indexOf("e");
    if (at === -1 || at % 2 === 1) return undefined;
    try {
      const value = JSON.parse(fields[at + 1]!) as Partial<AuditEvent> | null;
      return typeof value?.type === "string" && typeof value.traceId === "string" && typeof value.timestamp === "string" ? (value as AuditEvent) : undefined;
    } catch {
      return undefined;
    }
  };

  return createAuditLog(
    {
      append(event) {
        if (pending.length >= maxPending) counters.dropped++;
        else {
          pending.push(event);
          schedule();
        }
      },
      async scan(from, to, order, visit) {
        const low = String(Math.max(0, Math.floor(from)));
        const high = String(Math.max(0, Math.floor(to + lateToleranceMs)));
        for (let cursor = order === "asc" ? low : high; ; ) {
          const start = cursor;
          const outcome = await connection.execute((client) =>
            order === "asc" ? client.xrange(key, start, high, "COUNT", PAGE_SIZE) : client.xrevrange(key, start, low, "COUNT", PAGE_SIZE),
          );
          if (!outcome.ok) {
            fail(outcome.message);
            throw new AfwError("CACHE_UNAVAILABLE", `the audit log store (Redis) did not answer: ${outcome.message}`);
          }
          for (const [id, fields] of outcome.value as StreamEntry[]) {
            const event = decode(fields);
            if (event && !visit(event, Number(id.split("-")[0]))) return;
          }
          if (outcome.value.length < PAGE_SIZE) return;
          cursor = `(${outcome.value[outcome.value.length - 1]![0]}`;
        }
      },
      async flush() {
        clearTimeout(timer);
        clearImmediate(immediate);
        timer = immediate = undefined;
        while (pending.length > 0 || draining) await drain();
      },
      close: () => connection.close(),
      stats: () => ({ backend: "redis", ...counters, pending: pending.length, degraded, ...(lastError === undefined ? {} : { lastError }) }),
    },
    { now, maxAgeMs },
  );
}
