import { LuaScript, type RedisConnection } from "./redis-connection.js";
import { Keyspace } from "./keyspace.js";

/**
 * One token bucket per key, in a hash `{tokens, at, capacity, perMs}`, refilled from the Redis server's clock (every
 * instance agrees on time). A refused take removes nothing.
 */
const TAKE_SCRIPT = new LuaScript(`
local capacity = tonumber(ARGV[1])
local perMs = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at', 'capacity', 'perMs')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil or state[3] ~= ARGV[1] or state[4] ~= ARGV[2] then
  tokens = capacity
else
  tokens = math.min(capacity, tokens + math.max(0, now - at) * perMs)
end
local allowed = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now, 'capacity', ARGV[1], 'perMs', ARGV[2])
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / perMs) + 1000)
return {allowed, tostring(tokens)}`);

/** A limit of {@link RedisRateLimiter.take}. */
export interface RateLimitRule {
  /** Sustained rate. */
  requestsPerMinute: number;
  /** Bucket capacity. */
  burst: number;
}

/** Result of {@link RedisRateLimiter.take} (the same shape as the server's in-process limiter). */
export interface SharedRateLimitDecision {
  allowed: boolean;
  /** Seconds until one more request would be allowed (0 when allowed). */
  retryAfterSeconds: number;
  /** Whole requests left in the bucket after this one. */
  remaining: number;
}

/**
 * Token-bucket rate limits shared by every gateway instance on one Redis: one atomic Lua script per take on one key
 * (`<p>ratelimit:{<key>}`, Cluster-safe), with a TTL so idle buckets expire.
 */
export class RedisRateLimiter {
  private readonly keys: Keyspace;

  /** @param connection The shared Redis connection. @param keyPrefix Prefix of every key. */
  constructor(
    private readonly connection: RedisConnection,
    keyPrefix = "afw:",
  ) {
    this.keys = new Keyspace(keyPrefix);
  }

  /**
   * Takes `cost` requests from `key`'s bucket. A refused take removes nothing; a bucket whose
   * rule changed starts full. Resolves `undefined` when Redis could not answer in time.
   */
  async take(key: string, rule: RateLimitRule, cost = 1): Promise<SharedRateLimitDecision | undefined> {
    const capacity = Math.max(1, Math.floor(rule.burst));
    const perMs = Math.max(1e-9, rule.requestsPerMinute / 60_000);
    const needed = Math.max(0, cost);
    const outcome = await this.connection.run("rate-limiter", "take", (client) => TAKE_SCRIPT.run(client, [this.keys.rateLimit(key)], [capacity, String(perMs), needed]));
    if (!outcome.ok) return undefined;
    const reply = outcome.value;
    if (!Array.isArray(reply) || reply.length !== 2) return undefined;
    const tokens = Number(reply[1]);
    if (!Number.isFinite(tokens)) return undefined;
    if (Number(reply[0]) === 1) return { allowed: true, retryAfterSeconds: 0, remaining: Math.floor(tokens) };
    const missing = Math.min(needed, capacity) - tokens;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(missing / perMs / 1000)), remaining: Math.floor(tokens) };
  }
}
