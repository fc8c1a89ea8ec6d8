/** Shared token buckets on a real Redis: two connections (two instances) share one limit. */
import { Redis } from "ioredis";
import { useTestRedis } from "@afw/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisStores, type RedisStores } from "../src/redis-stores.js";

const redis = useTestRedis();
let first: RedisStores;
let second: RedisStores;
beforeAll(() => {
  first = createRedisStores({ url: redis.url, keyPrefix: redis.prefix, operationTimeoutMs: 2000 });
  second = createRedisStores({ url: redis.url, keyPrefix: redis.prefix, operationTimeoutMs: 2000 });
});
afterAll(async () => {
  await first?.close();
  await second?.close();
});

const rule = { requestsPerMinute: 1, burst: 5 };

describe("RedisRateLimiter", () => {
  it("allows the burst once in total across two instances, and a refused take removes nothing", async () => {
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await (i % 2 === 0 ? first : second).rateLimiter.take("token:ops", rule));
    expect(decisions.map((d) => d?.allowed)).toEqual([true, true, true, true, true, false]);
    expect(decisions[4]).toMatchObject({ remaining: 0, retryAfterSeconds: 0 });
    // One request per minute refills in ~60 s.
    expect(decisions[5]!.retryAfterSeconds).toBeGreaterThan(50);
    expect(decisions[5]!.retryAfterSeconds).toBeLessThanOrEqual(60);
    // Other keys have their own bucket.
    expect((await second.rateLimiter.take("addr:10.0.0.1", rule))?.allowed).toBe(true);
  });

  it("counts a batch as its cost, atomically under concurrency", async () => {
    const takes = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? first : second).rateLimiter.take("token:batch", rule, 2)));
    expect(takes.filter((d) => d?.allowed)).toHaveLength(2);
    expect((await first.rateLimiter.take("token:batch", rule, 1))?.allowed).toBe(true);
  });

  it("keeps one Cluster-safe key per bucket, with a TTL so idle buckets expire", async () => {
    await first.rateLimiter.take("token:a{b}:c", rule);
    const client = new Redis(redis.url);
    try {
      const keys = await client.keys(`${redis.prefix}ratelimit:*`);
      expect(keys).toContain(`${redis.prefix}ratelimit:{token%3Aa%7Bb%7D%3Ac}`);
      for (const key of keys) {
        const ttl = await client.pttl(key);
        expect(ttl).toBeGreaterThan(0);
        // Never longer than a full refill (5 requests at 1/min) plus a second.
        expect(ttl).toBeLessThanOrEqual(5 * 60_000 + 1000);
      }
    } finally {
      client.disconnect();
    }
  });

  it("resolves undefined (no throw, no wait) when Redis is away", async () => {
    const dead = createRedisStores({ url: "redis://127.0.0.1:1", keyPrefix: redis.prefix, operationTimeoutMs: 200 });
    try {
      expect(await dead.rateLimiter.take("token:ops", rule)).toBeUndefined();
    } finally {
      await dead.close();
    }
  });
});
