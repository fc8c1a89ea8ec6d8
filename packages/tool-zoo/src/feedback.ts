import { parseOrThrow } from "@afw/contracts";
import { z } from "zod";
import type { Bm25Hit, Bm25Index } from "./bm25.js";
import type { WeightedTerm } from "./text-analysis.js";

/**
 * Pseudo-relevance feedback (RM3) for the keyword ranking: `docs` best tools of a first ranking lend their `terms`
 * most telling words to the query at `weight` (the query's own terms keep `1 - weight`).
 */
export const FeedbackOptionsSchema = z
  .object({
    /** Tools of the first ranking the expansion is drawn from. */
    docs: z.number().int().min(1).max(20).default(3),
    /** Expansion terms added (terms not in the query). */
    terms: z.number().int().min(1).max(50).default(5),
    /** Share of the expanded query's weight that goes to the expansion terms, in [0, 1). */
    weight: z.number().min(0).lt(1).default(0.3),
  })
  .strict();

/** Options of {@link createKeywordSearch}'s pseudo-relevance feedback (see {@link FeedbackOptionsSchema}). */
export type FeedbackOptions = z.input<typeof FeedbackOptionsSchema>;

/** A term in more than this share of the indexed tools is too common to expand with. */
const MAX_DOCUMENT_SHARE = 0.25;

/** Searches a {@link Bm25Index}: `accept` filters documents, `limit` keeps the best. */
export type KeywordSearch = (query: readonly WeightedTerm[], accept: ((id: string) => boolean) | undefined, limit: number) => Bm25Hit[];

/**
 * The RM3 expansion terms of a first ranking: each of the best `docs` hits weighs its terms by its share of their
 * scores × the term's share of its (field-weighted) text × the term's IDF; terms of the query and terms in more than a
 * quarter of the tools are left out; the best `terms` are returned, their weights summing to 1.
 */
export function expansionTerms<F extends string>(
  index: Bm25Index<F>,
  query: readonly WeightedTerm[],
  hits: readonly Bm25Hit[],
  settings: { docs: number; terms: number },
): WeightedTerm[] {
  const top = hits.slice(0, settings.docs).filter((hit) => hit.score > 0);
  const total = top.reduce((sum, hit) => sum + hit.score, 0);
  if (total <= 0) return [];
  const inQuery = new Set(query.map((q) => q.term));
  const maxDocuments = Math.max(1, MAX_DOCUMENT_SHARE * index.size);
  const relevance = new Map<string, number>();
  for (const hit of top) {
    const frequencies = index.weightedTerms(hit.id);
    let length = 0;
    for (const tf of frequencies.values()) length += tf;
    for (const [term, tf] of frequencies) {
      if (inQuery.has(term) || index.documentFrequencyOf(term) > maxDocuments) continue;
      relevance.set(term, (relevance.get(term) ?? 0) + (hit.score / total) * (tf / length));
    }
  }
  const ranked = [...relevance]
    .map(([term, weight]) => ({ term, weight: weight * index.idf(term) }))
    .sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0))
    .slice(0, settings.terms);
  const sum = ranked.reduce((s, t) => s + t.weight, 0);
  return sum > 0 ? ranked.map((t) => ({ term: t.term, weight: t.weight / sum })) : [];
}

/**
 * The keyword search of a tool index: plain BM25F, or with `feedback` a second ranking by the query (its terms at
 * `1 - weight`) and the expansion terms of the first (at `weight` times the query's total weight). Bounded: one extra
 * ranking over at most `terms` more posting lists.
 */
export function createKeywordSearch<F extends string>(index: Bm25Index<F>, feedback: FeedbackOptions | false | undefined): KeywordSearch {
  if (!feedback) return (query, accept, limit) => index.search(query, accept, limit);
  const settings = parseOrThrow(FeedbackOptionsSchema, feedback, "CONFIG_INVALID", "feedback options");
  return (query, accept, limit) => {
    const first = index.search(query, accept, limit);
    const expansion = expansionTerms(index, query, first, settings);
    if (expansion.length === 0 || settings.weight === 0) return first;
    const mass = query.reduce((sum, q) => sum + q.weight, 0);
    const expanded: WeightedTerm[] = [
      ...query.map((q) => ({ term: q.term, weight: q.weight * (1 - settings.weight) })),
      ...expansion.map((e) => ({ term: e.term, weight: e.weight * settings.weight * mass })),
    ];
    return index.search(expanded, accept, limit);
  };
}
