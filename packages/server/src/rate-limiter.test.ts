import { describe, expect, it } from "vitest";
import { createRateLimiter } from "./rate-limiter.js";

describe("createRateLimiter", () => {
  it("allows a burst per key, then refuses with Retry-After, and refills with time", () => {
    let now = 0;
    const limiter = createRateLimiter({ requestsPerMinute: 60, burst: 3, now: () => now });
    expect([1, 2, 3].map(() => limiter.take("token:a").allowed)).toEqual([true, true, true]);
    const refused = limiter.take("token:a");
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 1, remaining: 0 });
    expect(limiter.take("token:b").allowed).toBe(true); // other keys are unaffected
    now += 1_000;
    expect(limiter.take("token:a").allowed).toBe(true);
    expect(limiter.take("token:a").allowed).toBe(false);
  });

  it("honours a per-token rate", () => {
    let now = 0;
    const limiter = createRateLimiter({ requestsPerMinute: 6_000, now: () => now });
    const slow = Array.from({ length: 20 }, () => limiter.take("token:slow", 60).allowed).filter(Boolean).length;
    const fast = Array.from({ length: 20 }, () => limiter.take("token:fast").allowed).filter(Boolean).length;
    expect(slow).toBe(10); // max(10, 60/10)
    expect(fast).toBe(20);
    now += 60_000;
    expect(limiter.take("token:slow", 60).allowed).toBe(true);
  });

  it("charges a cost (a JSON-RPC batch) atomically: a refused take removes nothing", () => {
    const limiter = createRateLimiter({ requestsPerMinute: 60, burst: 10, now: () => 0 });
    expect(limiter.take("k", undefined, 8)).toMatchObject({ allowed: true, remaining: 2 });
    expect(limiter.take("k", undefined, 3)).toMatchObject({ allowed: false, remaining: 2 });
    expect(limiter.take("k", undefined, 2)).toMatchObject({ allowed: true, remaining: 0 });
    const huge = limiter.take("other", undefined, 1_000);
    expect(huge.allowed).toBe(false);
    expect(huge.retryAfterSeconds).toBeLessThanOrEqual(10);
  });

  it("forgets the least recently used keys beyond maxKeys", () => {
    const limiter = createRateLimiter({ requestsPerMinute: 60, burst: 1, maxKeys: 2, now: () => 0 });
    limiter.take("a");
    limiter.take("b");
    limiter.take("c");
    expect(limiter.size).toBe(2);
    expect(limiter.take("a").allowed).toBe(true); // "a" was forgotten, so it starts full
    expect(limiter.take("c").allowed).toBe(false);
  });
});
