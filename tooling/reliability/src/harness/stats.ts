import { percentile as nearestRank } from "@afw/contracts";

/** Latency statistics of a run. */
export interface LatencySummary {
  count: number;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Mean, p50, p95, p99 and max of `values` (milliseconds), rounded to 0.01 ms. */
export function summarize(values: readonly number[]): LatencySummary {
  const round = (n: number) => Math.round(n * 100) / 100;
  const percentile = (values: readonly number[], p: number) => nearestRank(values, p) ?? 0;
  const mean = values.length === 0 ? 0 : values.reduce((sum, v) => sum + v, 0) / values.length;
  return {
    count: values.length,
    meanMs: round(mean),
    p50Ms: round(percentile(values, 50)),
    p95Ms: round(percentile(values, 95)),
    p99Ms: round(percentile(values, 99)),
    maxMs: round(values.length === 0 ? 0 : Math.max(...values)),
  };
}
