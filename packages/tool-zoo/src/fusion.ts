/** A ranked list of scored ids (best first), one per retriever. */
export type RankedList = ReadonlyArray<{ readonly id: string; readonly score: number }>;

/**
 * Min-max normalises a list's scores to [0, 1] against its best score (`score / max` when
 * `floor` is 0, else `(score - floor) / (max - floor)` clamped at 0). An empty list or a list of
 * zeros maps to zeros.
 *
 * @example
 * ```ts
 * normalizeScores([{ id: "a", score: 4 }, { id: "b", score: 2 }]) // a: 1, b: 0.5
 * ```
 */
export function normalizeScores(list: RankedList, floor = 0): Map<string, number> {
  const out = new Map<string, number>();
  let max = -Infinity;
  for (const item of list) max = Math.max(max, item.score);
  const span = max - floor;
  for (const item of list) out.set(item.id, span > 0 ? Math.max(0, (item.score - floor) / span) : 0);
  return out;
}

/**
 * Weighted sum of normalised scores: each list is normalised with {@link normalizeScores} (using
 * its `floor`) and added with its weight.
 *
 * @example
 * ```ts
 * weightedScoreFusion([bm25Hits, vectorHits], { weights: [0.5, 0.5], floors: [0, 0.1] })
 * ```
 */
export function weightedScoreFusion(
  lists: readonly RankedList[],
  options: { weights: readonly number[]; floors?: readonly number[] },
): Map<string, number> {
  const fused = new Map<string, number>();
  lists.forEach((list, index) => {
    const weight = options.weights[index] ?? 1;
    for (const [id, score] of normalizeScores(list, options.floors?.[index] ?? 0)) {
      fused.set(id, (fused.get(id) ?? 0) + weight * score);
    }
  });
  return fused;
}
