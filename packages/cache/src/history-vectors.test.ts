import { describe, expect, it } from "vitest";
import { cosineSimilarity } from "@afw/contracts";
import { SKETCH_BITS, SignSketch, SketchLogMirror, idfWeights, meaningScore, nearestSketches, quantize } from "./history-vectors.js";

describe("history vectors", () => {
  it("quantizes unit vectors to int8 with similarities within 0.01", () => {
    const a = Float32Array.from({ length: 64 }, (_, i) => Math.sin(i + 1));
    const b = Float32Array.from({ length: 64 }, (_, i) => Math.sin(i + 1) + 0.3 * Math.cos(3 * i));
    const exact = a.reduce((s, x, i) => s + x * b[i]!, 0) / Math.sqrt(a.reduce((s, x) => s + x * x, 0) * b.reduce((s, x) => s + x * x, 0));
    expect(Math.abs(cosineSimilarity(b, quantize(a)) - exact)).toBeLessThan(0.01);
  });

  it("finds the nearest sketches of a record log, nearest first", () => {
    const sketcher = new SignSketch(16);
    const vectors = [new Float32Array(16).fill(1), Float32Array.from({ length: 16 }, (_, i) => (i % 2 ? 1 : -1)), new Float32Array(16).fill(-1)];
    const record = 32 + 16;
    const log = new Uint8Array(vectors.length * record);
    vectors.forEach((v, r) => log.set(sketcher.sketch(v), r * record));
    expect(sketcher.sketch(vectors[0]!).byteLength * 8).toBe(SKETCH_BITS);
    const near = Float32Array.from({ length: 16 }, (_, i) => (i === 0 ? 0.5 : 1));
    expect(nearestSketches(log, record, sketcher.sketch(near), 2)).toEqual([0, 1]);
    expect(nearestSketches(log, record, sketcher.sketch(vectors[2]!), 1)).toEqual([2]);
  });

  it("weights rare query words more and scores hybrid hits by similarity plus keyword share", () => {
    const [rare, common] = idfWeights([1, 900], 1000);
    expect(rare! + common!).toBeCloseTo(1);
    expect(rare).toBeGreaterThan(common! * 5);
    expect(meaningScore("meaning", 0.2, 3, 1)).toBeUndefined();
    expect(meaningScore("hybrid", 0.2, 1, 1)).toBeCloseTo(0.7);
    expect(meaningScore("hybrid", 0.2, 0, 0)).toBeUndefined();
  });

  it("mirrors an append-only log: whole records appended, stale when the first record changed", () => {
    const mirror = new SketchLogMirror(4);
    expect(mirror.stale(new Uint8Array(0))).toBe(false);
    mirror.append(Uint8Array.of(1, 1, 1, 1, 2, 2, 2, 2, 3));
    expect([...mirror.log]).toEqual([1, 1, 1, 1, 2, 2, 2, 2]);
    for (let i = 0; i < 100; i++) mirror.append(Uint8Array.of(i, i, i, i));
    expect(mirror.length).toBe(408);
    // Records 1 and 4 are both (2, 2, 2, 2): the newest of equals comes first.
    expect(nearestSketches(mirror.log, 4, Uint8Array.of(2, 2, 2, 2), 2)).toEqual([4, 1]);
    expect(mirror.stale(Uint8Array.of(1, 1, 1, 1))).toBe(false);
    expect(mirror.stale(Uint8Array.of(9, 1, 1, 1))).toBe(true);
    expect(mirror.stale(new Uint8Array(0))).toBe(true);
    mirror.reset();
    expect(mirror.log.byteLength).toBe(0);
  });
});
