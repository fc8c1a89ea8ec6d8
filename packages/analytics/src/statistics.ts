/**
 * The `p`-th percentile of `values` by the nearest-rank method: the smallest value such that at
 * least `p`% of the values are less than or equal to it (`sorted[ceil(p/100 * n) - 1]`). Exact on
 * the data, no interpolation; `null` for no values.
 *
 * @example
 * ```ts
 * percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50) // 5
 * percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95) // 10
 * ```
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** The arithmetic mean, or `null` for no values. */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** `numerator / denominator`, or `null` when the denominator is 0. */
export function ratio(numerator: number, denominator: number): number | null {
  return denominator > 0 ? numerator / denominator : null;
}

/** Rounds to `digits` decimals, keeping `null`. @internal */
export function round(value: number | null, digits = 4): number | null {
  if (value === null) return null;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Latency summary of a set of durations. */
export interface LatencySummary {
  /** Number of durations. */
  count: number;
  /** Median (nearest rank). */
  p50Ms: number | null;
  /** 95th percentile (nearest rank). */
  p95Ms: number | null;
  meanMs: number | null;
}

/** Summarises durations (nearest-rank percentiles). */
export function summarizeLatency(values: readonly number[]): LatencySummary {
  return { count: values.length, p50Ms: percentile(values, 50), p95Ms: percentile(values, 95), meanMs: round(mean(values), 3) };
}

/** Summary of feedback scores (-1..1). */
export interface FeedbackSummary {
  count: number;
  /** Mean normalised score, -1..1. */
  mean: number | null;
  /** Scores below 0. */
  negative: number;
  /** Scores above 0. */
  positive: number;
}

/** Summarises normalised feedback scores. */
export function summarizeFeedback(scores: readonly number[]): FeedbackSummary {
  return {
    count: scores.length,
    mean: round(mean(scores)),
    negative: scores.filter((score) => score < 0).length,
    positive: scores.filter((score) => score > 0).length,
  };
}

/** Increments `map[key]` by `by`. @internal */
export function increment<K>(map: Map<K, number>, key: K, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

/** Entries of a count map, largest first, ties by key. @internal */
export function rankCounts<K extends string>(map: ReadonlyMap<K, number>): Array<{ key: K; count: number }> {
  return [...map.entries()]
    .map(([key, count]) => ({ key, count }))
    .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
