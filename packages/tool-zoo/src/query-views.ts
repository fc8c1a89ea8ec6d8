/**
 * Embedded views of a request for the semantic stage: a request of several sentences or clauses ("I'm prepping for
 * tomorrow's standup. Can you pull the open PRs assigned to me?") is embedded whole and, apart, by each part that asks
 * for something, so that the context around the ask does not blur it. Linear-time: one pass of `splitTaskSteps`.
 */
import { splitQuotedContent } from "./query-text.js";
import { isRequest, requestSteps, splitTaskSteps } from "./task-steps.js";
import type { MetadataFilter, VectorStore } from "./vector-store.js";

/**
 * How the semantic stage reads a request of two or more sentences or clauses (a request of one is always read whole,
 * as before views):
 * - `"whole"`: one vector of the whole intent;
 * - `"max"`: per tool, the best cosine over the whole intent and each part that asks;
 * - `"blend"`: half the whole intent's cosine, half the best asking part's;
 * - `"last"`: half the whole intent's cosine, half the last asking part's (the leading context dropped);
 * - `"context-blend"`, `"context-max"`: as `"blend"` and `"max"`, only for a request of one ask among context (a task
 *   of several requests, whose steps are ranked on their own, keeps one vector).
 */
export type QueryViewMode = "whole" | "max" | "blend" | "last" | "context-blend" | "context-max";

/** The semantic stage's reading of a request of several parts unless `createToolIndex({ queryViews })` says otherwise. */
export const DEFAULT_QUERY_VIEWS: QueryViewMode = "whole";

/** Every {@link QueryViewMode}. */
export const QUERY_VIEW_MODES: readonly QueryViewMode[] = ["whole", "max", "blend", "last", "context-blend", "context-max"];

/** Weight of the whole intent's cosine in the `"blend"` and `"last"` modes. */
const WHOLE_WEIGHT = 0.5;

/**
 * The texts to embed for a query, the whole intent first: `[intent]` for a request of one sentence or clause, for the
 * `"whole"` mode and when no part asks anything the whole does not; else `[intent, ...asking parts' intents]`
 * (`"last"`: only the last asking part).
 *
 * @param query - the request as typed
 * @param intent - the request's intent (quotes and entity values out), the text embedded without views
 */
export function queryViews(query: string, intent: string, mode: QueryViewMode): string[] {
  if (mode === "whole") return [intent];
  const parts = splitTaskSteps(query);
  if (parts.length < 2 || (mode.startsWith("context-") && requestSteps(query).length >= 2)) return [intent];
  const asks: string[] = [];
  for (const part of parts) {
    if (!isRequest(part)) continue;
    const text = splitQuotedContent(part).intent || part;
    if (text !== intent && !asks.includes(text)) asks.push(text);
  }
  if (asks.length === 0) return [intent];
  return mode === "last" ? [intent, asks[asks.length - 1]!] : [intent, ...asks];
}

/**
 * Per tool, one semantic score from the cosines of the views (`perView[0]`: the whole intent's, then the asking
 * parts', each a map of tool id to its best cosine among the view's nearest records), best first. A tool absent from a
 * view's list (beyond its nearest records) counts with that view's lowest listed cosine. With one view, that view's
 * cosines unchanged.
 */
export function combineViewScores(perView: ReadonlyArray<ReadonlyMap<string, number>>, mode: QueryViewMode): Array<{ id: string; score: number }> {
  const [whole, ...asks] = perView;
  if (!whole) return [];
  if (asks.length === 0 || mode === "whole") return [...whole].map(([id, score]) => ({ id, score })).sort((x, y) => y.score - x.score);
  const floors = perView.map((view) => Math.min(...view.values()));
  const ids = new Set<string>();
  for (const view of perView) for (const id of view.keys()) ids.add(id);
  const cosine = (view: number, id: string) => perView[view]!.get(id) ?? floors[view]!;
  const combined: Array<{ id: string; score: number }> = [];
  for (const id of ids) {
    let bestAsk = -Infinity;
    for (let view = 1; view < perView.length; view++) bestAsk = Math.max(bestAsk, cosine(view, id));
    const score = mode === "max" || mode === "context-max" ? Math.max(cosine(0, id), bestAsk) : WHOLE_WEIGHT * cosine(0, id) + (1 - WHOLE_WEIGHT) * bestAsk;
    combined.push({ id, score });
  }
  return combined.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
}

/**
 * Per query vector, the best cosine of each known tool among the store's `topK` nearest records (a record's tool is its
 * `toolId` metadata, else its id without the `#n` view suffix).
 */
export async function nearestTools(
  store: VectorStore,
  vectors: readonly Float32Array[],
  query: { topK: number; filter?: MetadataFilter | undefined },
  known: (id: string) => boolean,
): Promise<Array<Map<string, number>>> {
  return Promise.all(
    vectors.map(async (vector) => {
      const best = new Map<string, number>();
      for (const match of await store.query({ vector, topK: query.topK, filter: query.filter })) {
        const id = typeof match.metadata["toolId"] === "string" ? match.metadata["toolId"] : match.id.replace(/#\d+$/, "");
        if (known(id)) best.set(id, Math.max(best.get(id) ?? -1, match.score));
      }
      return best;
    }),
  );
}
