import { describe, expect, it } from "vitest";
import { percentile } from "./percentile.js";

describe("percentile", () => {
  it("uses the nearest rank", () => {
    expect(percentile([], 50)).toBeUndefined();
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([40, 10, 30, 20], 50)).toBe(20);
    expect(percentile([40, 10, 30, 20], 95)).toBe(40);
    const hundred = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 95)).toBe(95);
    expect(percentile(hundred, 0)).toBe(1);
    expect(percentile(hundred, 100)).toBe(100);
  });

  it("clamps p to 0..100 and leaves the input unsorted", () => {
    const values = [3, 1, 2];
    expect(percentile(values, -5)).toBe(1);
    expect(percentile(values, 250)).toBe(3);
    expect(values).toEqual([3, 1, 2]);
  });
});
