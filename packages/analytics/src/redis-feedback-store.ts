import { AfwError } from "@afw/contracts";
import { FeedbackRecordSchema, feedbackBounds, type FeedbackRecord, type FeedbackStore } from "./feedback.js";
import { LuaScript } from "@afw/cache";
import { connectStore, type RedisStoreConnectionOptions } from "./redis-support.js";

/** Options of {@link createRedisFeedbackStore}. */
export interface RedisFeedbackStoreOptions extends RedisStoreConnectionOptions {
  /** Most records kept; the oldest are evicted. @default 100_000 */
  maxRecords?: number | undefined;
  /** Clock for age eviction. @default Date.now */
  now?: (() => number) | undefined;
}

/** Records older than 90 days are evicted on write. */
const MAX_AGE_MS = 90 * 86_400_000;

// KEYS: data hash, time index. ARGV: id, createdAt, json, maxRecords, minCreatedAt.
const PUT = new LuaScript(`
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
local evicted = {}
local old = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[5])
for _, id in ipairs(old) do table.insert(evicted, id) end
local excess = redis.call('ZCARD', KEYS[2]) - #old - tonumber(ARGV[4])
if excess > 0 then
  local extra = redis.call('ZRANGE', KEYS[2], #old, #old + excess - 1)
  for _, id in ipairs(extra) do table.insert(evicted, id) end
end
for i = 1, #evicted, 500 do
  local chunk = {}
  for j = i, math.min(i + 499, #evicted) do table.insert(chunk, evicted[j]) end
  redis.call('HDEL', KEYS[1], unpack(chunk))
  redis.call('ZREM', KEYS[2], unpack(chunk))
end
return #evicted
`);

/**
 * A {@link FeedbackStore} on Redis, shared by every gateway instance: a hash of records by id
 * and a sorted set by time (both under one hash tag, so it works on Redis Cluster), bounded by
 * count and age. Writes are bounded by `operationTimeoutMs` and resolve false when Redis is down.
 *
 * @example
 * ```ts
 * const feedbackStore = createRedisFeedbackStore({ url: "redis://127.0.0.1:6379" });
 * ```
 * @throws AfwError `CONFIG_INVALID` when neither or both of `url` and `client` are given.
 */
export function createRedisFeedbackStore(options: RedisFeedbackStoreOptions): FeedbackStore {
  const { connection, key } = connectStore(options);
  const dataKey = key("{feedback}:data");
  const timeKey = key("{feedback}:time");
  const maxRecords = Math.max(1, options.maxRecords ?? 100_000);
  const now = options.now ?? Date.now;

  const parse = (raw: string | null | undefined): FeedbackRecord | undefined => {
    if (!raw) return undefined;
    try {
      const parsed = FeedbackRecordSchema.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  };

  const unavailable = (message: string) => new AfwError("CACHE_UNAVAILABLE", `the feedback store (Redis) did not answer: ${message}`);

  return {
    async put(record) {
      const outcome = await connection.execute((client) =>
        PUT.run(client, [dataKey, timeKey], [record.id, record.createdAt, JSON.stringify(record), maxRecords, Math.max(0, now() - MAX_AGE_MS)]),
      );
      return outcome.ok;
    },
    async list(query = {}) {
      const { from, to } = feedbackBounds(query);
      const ids = await connection.execute((client) => client.zrangebyscore(timeKey, from, to));
      if (!ids.ok) throw unavailable(ids.message);
      const out: FeedbackRecord[] = [];
      for (let i = 0; i < ids.value.length; i += 500) {
        const chunk = ids.value.slice(i, i + 500);
        const values = await connection.execute((client) => client.hmget(dataKey, ...chunk));
        if (!values.ok) throw unavailable(values.message);
        for (const raw of values.value) {
          const record = parse(raw);
          if (record) out.push(record);
        }
      }
      return out.sort((a, b) => a.createdAt - b.createdAt);
    },
    close: () => connection.close(),
  };
}
