/** The word Jaccard similarity at or above which two questions count as overlapping. */
export const JACCARD_THRESHOLD: number;
/** Lower case, accents removed, every run of non-letters and non-digits one space, trimmed. */
export function foldQuestion(text: string): string;
/** The set of words of the folded text. */
export function wordSet(text: string): Set<string>;
/** |A ∩ B| / |A ∪ B| of the two texts' word sets (0 when both are empty). */
export function wordJaccard(a: string | Set<string>, b: string | Set<string>): number;
/** One collision of a candidate with a source: never the source's text. */
export interface Overlap {
  id: string;
  kind: "exact" | "jaccard";
  score: number;
  source: string;
}
/** A named list of texts to compare with. */
export interface OverlapSource {
  name: string;
  texts: string[];
}
/** The items of `candidates` that repeat (after folding) or resemble (word Jaccard >= threshold) a text of one of the `sources`. */
export function findOverlaps(candidates: readonly { id: string; question: string }[], sources: readonly OverlapSource[], threshold?: number): Overlap[];
/** Every question text of the exemplar file (intent -> list of questions). */
export function exemplarTexts(yamlText: string): string[];
/** The texts set F must not overlap (exemplars, dev set, sets A-E, real training prompts); `missing` names the files not found. */
export function overlapSources(packageRoot: string, env?: Record<string, string | undefined>): { sources: OverlapSource[]; missing: string[] };
