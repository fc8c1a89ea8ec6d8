import { describe, expect, it } from "vitest";
import { percentile, percentiles } from "./percentile.js";

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

describe("percentiles", () => {
  it("gives percentile() of each p, sorting once", () => {
    const values = [12, 5, 7, 30, 1, 9, 14];
    expect(percentiles(values, [50, 95, 0])).toEqual([percentile(values, 50), percentile(values, 95), percentile(values, 0)]);
    expect(percentiles([], [50, 95])).toEqual([undefined, undefined]);
    expect(values).toEqual([12, 5, 7, 30, 1, 9, 14]);
  });
});
