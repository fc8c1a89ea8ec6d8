import { percentile } from "@afw/contracts";

/** The arithmetic mean, or `null` for no values. */
export function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
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
  return { count: values.length, p50Ms: percentile(values, 50) ?? null, p95Ms: percentile(values, 95) ?? null, meanMs: round(mean(values), 3) };
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

/** Items grouped by `keyOf` (items without a key left out), in first-seen order. @internal */
export function groupBy<T, K>(items: Iterable<T>, keyOf: (item: T) => K | undefined): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === undefined) continue;
    const list = groups.get(key);
    if (list) list.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
