/**
 * The `p`-th percentile (0..100) of `values` by the nearest-rank method: the smallest value such that at least `p`% of
 * the values are less than or equal to it (`sorted[ceil(p/100 * n) - 1]`).
 * @returns the percentile, or `undefined` for no values.
 * @example
 * ```ts
 * percentile([40, 10, 30, 20], 50); // 20
 * percentile([40, 10, 30, 20], 95); // 40
 * percentile([], 50);               // undefined
 * ```
 */
export function percentile(values: readonly number[], p: number): number | undefined {
  return percentiles(values, [p])[0];
}

/**
 * Several percentiles of `values` ({@link percentile} of each `p`), sorting the values once.
 * @returns one percentile per `p`, each `undefined` for no values.
 * @example
 * ```ts
 * percentiles([40, 10, 30, 20], [50, 95]); // [20, 40]
 * ```
 */
export function percentiles(values: readonly number[], ps: readonly number[]): (number | undefined)[] {
  if (values.length === 0) return ps.map(() => undefined);
  const sorted = new Float64Array(values).sort();
  return ps.map((p) => {
    const rank = Math.ceil((Math.min(100, Math.max(0, p)) / 100) * sorted.length);
    return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
  });
}
