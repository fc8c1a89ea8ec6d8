/** Fusing the rankings of a multi-step task (the whole task's and each step's) into one list. */

/** Rank offset of the reciprocal rank fusion: small, so that agreement between lists orders tools within a round. */
const FUSION_K = 1;

/** One tool of the fused list: the list that ranks it best (0: the whole task's), and that rank. */
export interface FusedEntry<T> {
  readonly item: T;
  readonly list: number;
  readonly rank: number;
}

/**
 * Fuses ranked lists (the whole task's first, then each step's) by rounds: the whole task's first item leads, then
 * every item that is first in some list, then every item that is second in some list, and so on; within a round,
 * items that more lists rank high (reciprocal rank fusion) come first. So a step whose own first tool no other list
 * has still gets a slot before the second tool of another step, however many lists agree on that one.
 * `perList` leading items of each list take part; the result has at most `limit` items.
 */
export function fuseStepRankings<T extends { readonly id: string }>(lists: readonly (readonly T[])[], perList: number, limit: number): FusedEntry<T>[] {
  const fused = new Map<string, { item: T; list: number; rank: number; score: number }>();
  lists.forEach((list, at) => {
    list.slice(0, perList).forEach((item, rank) => {
      const entry = fused.get(item.id) ?? { item, list: at, rank, score: 0 };
      // the whole task's best tool leads whatever the steps say
      entry.score += at === 0 && rank === 0 ? Number.POSITIVE_INFINITY : 1 / (FUSION_K + rank);
      if (rank < entry.rank) Object.assign(entry, { item, list: at, rank });
      fused.set(item.id, entry);
    });
  });
  const leads = (entry: { score: number }) => entry.score === Number.POSITIVE_INFINITY;
  return [...fused.values()]
    .sort((x, y) => Number(leads(y)) - Number(leads(x)) || x.rank - y.rank || y.score - x.score)
    .slice(0, limit)
    .map(({ item, list, rank }) => ({ item, list, rank }));
}
