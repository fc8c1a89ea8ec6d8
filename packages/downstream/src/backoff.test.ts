import { describe, expect, it } from "vitest";
import { computeBackoffDelay } from "./backoff.js";

const policy = { initialDelayMs: 100, maxDelayMs: 1_000, multiplier: 2, jitter: 0 };

describe("computeBackoffDelay", () => {
  it("grows exponentially per failure and is capped", () => {
    expect([1, 2, 3, 4, 5, 6, 50].map((n) => computeBackoffDelay(n, policy))).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
  });

  it("treats a count below one as the first failure", () => {
    expect(computeBackoffDelay(0, policy)).toBe(100);
  });

  it("draws the delay from [base*(1-jitter), base]", () => {
    const jittered = { ...policy, jitter: 0.5 };
    expect(computeBackoffDelay(3, jittered, () => 0)).toBe(200);
    expect(computeBackoffDelay(3, jittered, () => 0.5)).toBe(300);
    expect(computeBackoffDelay(3, jittered, () => 0.999999)).toBe(400);
    // out-of-range randomness is clamped
    expect(computeBackoffDelay(3, jittered, () => 7)).toBe(400);
    expect(computeBackoffDelay(3, jittered, () => -1)).toBe(200);
  });

  it("never exceeds the cap, whatever the jitter", () => {
    for (let n = 1; n < 20; n++) {
      const delay = computeBackoffDelay(n, { initialDelayMs: 250, maxDelayMs: 30_000, multiplier: 3, jitter: 0.2 });
      expect(delay).toBeLessThanOrEqual(30_000);
      expect(delay).toBeGreaterThanOrEqual(Math.min(30_000, 250 * 3 ** (n - 1)) * 0.8 - 1);
    }
  });
});
