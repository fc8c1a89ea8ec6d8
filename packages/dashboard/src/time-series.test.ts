import { describe, expect, it } from "vitest";
import type { PerformanceSample, TraceEvent } from "@afw/contracts";
import { cacheHitRateSeries, summarizePerformance } from "./time-series.js";

const NOW = Date.parse("2026-01-01T12:00:00.000Z");

describe("summarizePerformance", () => {
  const sample = (minutesAgo: number, latencyMs: number, success = true): PerformanceSample => ({ backendId: "b", latencyMs, success, timestamp: NOW - minutesAgo * 60_000 });

  it("computes totals over every sample and buckets only the window", () => {
    const samples = [sample(90, 5000, false), sample(59.5, 100), sample(59, 300, false), sample(1, 200), sample(0, 400)];
    const figures = summarizePerformance(samples, { now: NOW, buckets: 6 });
    expect(figures.requestCount).toBe(5);
    expect(figures.successRate).toBeCloseTo(3 / 5);
    expect(figures.latencyP50Ms).toBe(300);
    expect(figures.latencyP95Ms).toBe(5000);
    expect(figures.series.map((point) => point.count)).toEqual([2, 0, 0, 0, 0, 2]);
    expect(figures.series[0]).toMatchObject({ t: NOW - 3_600_000, successRate: 0.5, p50Ms: 100, p95Ms: 300 });
    expect(figures.series[1]).toEqual({ t: NOW - 3_000_000, count: 0 });
    expect(figures.series[5]).toMatchObject({ successRate: 1, p50Ms: 200, p95Ms: 400 });
  });

  it("returns empty figures without samples", () => {
    const figures = summarizePerformance([], { now: NOW });
    expect(figures).toMatchObject({ requestCount: 0 });
    expect(figures.successRate).toBeUndefined();
    expect(figures.series).toHaveLength(30);
    expect(figures.series.every((point) => point.count === 0)).toBe(true);
  });

  it("ignores samples from the future", () => {
    expect(summarizePerformance([sample(-5, 10)], { now: NOW, buckets: 2 }).series.map((point) => point.count)).toEqual([0, 0]);
  });
});

describe("cacheHitRateSeries", () => {
  it("counts hits and misses per bucket, ignoring bypasses", () => {
    const at = (minutesAgo: number) => new Date(NOW - minutesAgo * 60_000).toISOString();
    const base = { traceId: "t", requestId: "r" };
    const events: TraceEvent[] = [
      { ...base, type: "cache-hit", timestamp: at(50), scope: "shared", flowId: "f", kind: "exact" },
      { ...base, type: "cache-hit", timestamp: at(50), scope: "shared", flowId: "f", kind: "semantic", similarity: 0.9 },
      { ...base, type: "cache-miss", timestamp: at(46), scope: "shared", reason: "absent" },
      { ...base, type: "cache-miss", timestamp: at(5), scope: "session", reason: "bypass" },
      { ...base, type: "cache-miss", timestamp: at(5), scope: "session", reason: "expired" },
      { ...base, type: "cache-write", timestamp: at(5), scope: "shared", flowId: "f", ttlSeconds: 60 },
      { ...base, type: "cache-hit", timestamp: at(120), scope: "shared", flowId: "f", kind: "exact" },
    ];
    const series = cacheHitRateSeries(events, { now: NOW, buckets: 4 });
    expect(series.map((point) => [point.hits, point.misses])).toEqual([
      [2, 1],
      [0, 0],
      [0, 0],
      [0, 1],
    ]);
    expect(series[0]?.hitRate).toBeCloseTo(2 / 3);
    expect(series[1]?.hitRate).toBeUndefined();
    expect(series[3]?.hitRate).toBe(0);
  });
});
