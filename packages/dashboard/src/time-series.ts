import { percentile, type PerformanceSample, type TraceEvent } from "@afw/contracts";
import type { CacheHitRatePoint, PerformanceFigures, TimeSeriesPoint } from "./dashboard-source.js";

/** How the last hour (ending `now`) is cut into buckets (default 30). */
export interface SeriesWindow {
  now?: number | undefined;
  buckets?: number | undefined;
}

const HOUR_MS = 3_600_000;

interface ResolvedWindow {
  start: number;
  bucketMs: number;
  buckets: number;
}

function resolveWindow(window: SeriesWindow): ResolvedWindow {
  const now = window.now ?? Date.now();
  const buckets = Math.max(1, Math.floor(window.buckets ?? 30));
  return { start: now - HOUR_MS, bucketMs: HOUR_MS / buckets, buckets };
}

function bucketIndex(window: ResolvedWindow, timestamp: number): number | undefined {
  if (!Number.isFinite(timestamp) || timestamp < window.start) return undefined;
  const index = Math.floor((timestamp - window.start) / window.bucketMs);
  if (index >= window.buckets) return timestamp <= window.start + window.bucketMs * window.buckets ? window.buckets - 1 : undefined;
  return index;
}

/** Request count, success rate and p50/p95 latency of every sample given, and a per-bucket series of those inside the window. */
export function summarizePerformance(samples: readonly PerformanceSample[], window: SeriesWindow = {}): PerformanceFigures {
  const resolved = resolveWindow(window);
  const perBucket: PerformanceSample[][] = Array.from({ length: resolved.buckets }, () => []);
  for (const sample of samples) {
    const index = bucketIndex(resolved, sample.timestamp);
    if (index !== undefined) perBucket[index]?.push(sample);
  }
  const rates = (group: readonly PerformanceSample[]) => {
    const latencies = group.map((sample) => sample.latencyMs);
    const successRate = group.filter((sample) => sample.success).length / group.length;
    return { successRate, p50Ms: percentile(latencies, 50), p95Ms: percentile(latencies, 95) };
  };
  const series = perBucket.map((bucket, index): TimeSeriesPoint => ({
    t: Math.round(resolved.start + index * resolved.bucketMs),
    count: bucket.length,
    ...(bucket.length > 0 ? rates(bucket) : {}),
  }));
  const figures: PerformanceFigures = { requestCount: samples.length, series };
  if (samples.length > 0) {
    const { successRate, p50Ms, p95Ms } = rates(samples);
    Object.assign(figures, { successRate, latencyP50Ms: p50Ms, latencyP95Ms: p95Ms });
  }
  return figures;
}

/** The cache hit rate per bucket, from `cache-hit` and `cache-miss` trace events (a `bypass` miss is no lookup). */
export function cacheHitRateSeries(events: readonly TraceEvent[], window: SeriesWindow = {}): CacheHitRatePoint[] {
  const resolved = resolveWindow(window);
  const points: CacheHitRatePoint[] = Array.from({ length: resolved.buckets }, (_, index) => ({
    t: Math.round(resolved.start + index * resolved.bucketMs),
    hits: 0,
    misses: 0,
  }));
  for (const event of events) {
    if (event.type !== "cache-hit" && !(event.type === "cache-miss" && event.reason !== "bypass")) continue;
    const index = bucketIndex(resolved, Date.parse(event.timestamp));
    const point = index === undefined ? undefined : points[index];
    if (!point) continue;
    if (event.type === "cache-hit") point.hits++;
    else point.misses++;
  }
  for (const point of points) {
    const total = point.hits + point.misses;
    if (total > 0) point.hitRate = point.hits / total;
  }
  return points;
}
