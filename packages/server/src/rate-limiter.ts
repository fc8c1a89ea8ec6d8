import type { RedisRateLimiter, SharedRateLimitDecision as RateLimitDecision } from "@afw/cache";

/** A token-bucket rate limiter per key; see {@link createRateLimiter}. */
export interface RateLimiter {
  /** Takes `cost` requests (default 1; e.g. the size of a JSON-RPC batch) from `key`'s bucket (refilled at `requestsPerMinute`). */
  take(key: string, requestsPerMinute?: number, cost?: number): RateLimitDecision;
  /** Buckets currently tracked. */
  readonly size: number;
}

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions {
  /** Sustained rate per key. */
  requestsPerMinute: number;
  /** Bucket capacity. @default max(10, requestsPerMinute / 10) */
  burst?: number;
  /** Most keys tracked; the least recently used are forgotten (they start full again). @default 10000 */
  maxKeys?: number;
  /** @default Date.now */
  now?: () => number;
}

/** Creates an in-process token-bucket rate limiter: each key may burst up to `burst` requests and sustain `requestsPerMinute`. */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeys ?? 10_000;
  const buckets = new Map<string, { tokens: number; updatedAt: number; capacity: number; perMs: number }>();
  return {
    get size() {
      return buckets.size;
    },
    take(key, requestsPerMinute = options.requestsPerMinute, cost = 1) {
      const at = now();
      const capacity = options.burst ?? Math.max(10, Math.floor(requestsPerMinute / 10));
      const perMs = requestsPerMinute / 60_000;
      let bucket = buckets.get(key);
      if (!bucket || bucket.capacity !== capacity || bucket.perMs !== perMs) {
        bucket = { tokens: capacity, updatedAt: at, capacity, perMs };
      } else {
        bucket.tokens = Math.min(capacity, bucket.tokens + (at - bucket.updatedAt) * perMs);
        bucket.updatedAt = at;
      }
      buckets.delete(key);
      buckets.set(key, bucket);
      if (buckets.size > maxKeys) {
        const oldest = buckets.keys().next().value;
        if (oldest !== undefined) buckets.delete(oldest);
      }
      const needed = Math.max(0, cost);
      if (bucket.tokens >= needed) {
        bucket.tokens -= needed;
        return { allowed: true, retryAfterSeconds: 0, remaining: Math.floor(bucket.tokens) };
      }
      // More than a full bucket can never pass: say when the bucket will be full again.
      const missing = Math.min(needed, capacity) - bucket.tokens;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(missing / perMs / 1000)), remaining: Math.floor(bucket.tokens) };
    },
  };
}

/** A limiter whose buckets may live in Redis; see {@link createSharedRateLimiter}. */
export interface SharedRateLimiter {
  /** Like {@link RateLimiter.take}; resolves within the Redis operation bound. */
  take(key: string, requestsPerMinute?: number, cost?: number): Promise<RateLimitDecision>;
}

/** Rate limits shared by every gateway instance when `shared` (the Redis buckets of `@afw/cache`) is given: each take is one atomic script on Redis. */
export function createSharedRateLimiter(options: RateLimiterOptions, shared?: RedisRateLimiter): SharedRateLimiter {
  const local = createRateLimiter(options);
  if (!shared) return { take: async (key, requestsPerMinute, cost) => local.take(key, requestsPerMinute, cost) };
  return {
    async take(key, requestsPerMinute = options.requestsPerMinute, cost = 1) {
      const burst = options.burst ?? Math.max(10, Math.floor(requestsPerMinute / 10));
      return (await shared.take(key, { requestsPerMinute, burst }, cost)) ?? local.take(key, requestsPerMinute, cost);
    },
  };
}
