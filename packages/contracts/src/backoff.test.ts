import { describe, expect, it } from "vitest";
import { computeBackoffDelay } from "./backoff.js";

const policy = { initialDelayMs: 100, maxDelayMs: 1_000 };
const none = () => 1;

describe("computeBackoffDelay", () => {
  it("doubles per failure and is capped", () => {
    expect([1, 2, 3, 4, 5, 6, 50].map((n) => computeBackoffDelay(n, policy, none))).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
  });

  it("treats a count below one as the first failure", () => {
    expect(computeBackoffDelay(0, policy, none)).toBe(100);
  });

  it("draws the delay from [0.8*base, base]", () => {
    expect(computeBackoffDelay(3, policy, () => 0)).toBe(320);
    expect(computeBackoffDelay(3, policy, () => 0.5)).toBe(360);
    expect(computeBackoffDelay(3, policy, () => 0.999999)).toBe(400);
    // out-of-range randomness is clamped
    expect(computeBackoffDelay(3, policy, () => 7)).toBe(400);
    expect(computeBackoffDelay(3, policy, () => -1)).toBe(320);
  });

  it("never exceeds the cap, whatever the jitter", () => {
    for (let n = 1; n < 20; n++) {
      const delay = computeBackoffDelay(n, { initialDelayMs: 250, maxDelayMs: 30_000 });
      expect(delay).toBeLessThanOrEqual(30_000);
      expect(delay).toBeGreaterThanOrEqual(Math.min(30_000, 250 * 2 ** (n - 1)) * 0.8 - 1);
    }
  });
});
