import learned from "./term-associations.json" with { type: "json" };
import type { WeightedTerm } from "./text-analysis.js";

/**
 * Tool-text terms that a request term points at (`song` → `music`, `artist`), each with the share of training requests
 * containing the term whose needed tool's text contains the associated one. Learned by
 * `scripts/build-term-associations.mjs` from public tool-retrieval training data (Seal-Tools, ToolAlpaca), none of the
 * evaluation sets; stemmed with the index's analyzer.
 */
const ASSOCIATIONS: ReadonlyMap<string, ReadonlyArray<readonly [string, number]>> = new Map(
  Object.entries(learned.associations as unknown as Record<string, Array<[string, number]>>),
);

/**
 * The terms associated with a query's terms, at `weight` times the association's strength and the query term's
 * weight; terms the query has already are left out.
 */
export function associatedTerms(query: readonly WeightedTerm[], weight: number): WeightedTerm[] {
  const present = new Set(query.map((q) => q.term));
  const added = new Map<string, number>();
  for (const { term, weight: termWeight } of query) {
    for (const [associated, strength] of ASSOCIATIONS.get(term) ?? []) {
      if (present.has(associated)) continue;
      added.set(associated, Math.max(added.get(associated) ?? 0, weight * strength * termWeight));
    }
  }
  return [...added].map(([term, w]) => ({ term, weight: w }));
}

/** Whether the learned table has associations for a (stemmed) request term. */
export function hasAssociations(term: string): boolean {
  return ASSOCIATIONS.has(term);
}
