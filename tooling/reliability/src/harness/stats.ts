/** Latency statistics of a run. */
export interface LatencySummary {
  count: number;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** The `p`-th percentile (0..100, nearest rank) of `values`; 0 for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Mean, p50, p95, p99 and max of `values` (milliseconds), rounded to 0.01 ms. */
export function summarize(values: readonly number[]): LatencySummary {
  const round = (n: number) => Math.round(n * 100) / 100;
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
