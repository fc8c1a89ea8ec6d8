import table from "./wordnet-synonyms.json" with { type: "json" };

/**
 * Where the analyzer takes the synonyms of query words from: `builtin` the hand-written {@link DEFAULT_SYNONYM_GROUPS}
 * of `text-analysis.ts`, `wordnet` the WordNet 3.1 table (`wordnet-synonyms.json`, built by
 * `scripts/build-wordnet-synonyms.mjs`), `both` the union (a word's best weight wins).
 */
export type SynonymSource = "builtin" | "wordnet" | "both";

/**
 * Weight of each tier of the WordNet table relative to a built-in synonym: the other words of the most frequent sense
 * (`s1`), of the second sense when the semantic concordance attests it (`s2`), derivationally related forms (`d`) and
 * direct verb hypernyms (`h`). Lower tiers are less often what a query word means.
 */
export const WORDNET_TIER_WEIGHTS: Readonly<{ s1: number; s2: number; d: number; h: number }> = { s1: 1, s2: 0.7, d: 0.8, h: 0.5 };

const TIERS = ["s1", "s2", "d", "h"] as const;
const entries = (table as { entries: Record<string, string> }).entries;
const parsed = new Map<string, ReadonlyArray<readonly [string, number]>>();

/**
 * The WordNet relatives of a stemmed word (stems, as the analyzer makes them), each with its tier weight from
 * {@link WORDNET_TIER_WEIGHTS}, best first; empty for words WordNet does not list. Parsed lazily, cached.
 *
 * @example wordnetRelatives("delet") // [["cancel", 1], ["remov", 0.5], ...]
 */
export function wordnetRelatives(stem: string): ReadonlyArray<readonly [string, number]> {
  let relatives = parsed.get(stem);
  if (relatives) return relatives;
  const row = Object.hasOwn(entries, stem) ? entries[stem]! : "";
  const out: Array<readonly [string, number]> = [];
  row.split("|").forEach((words, tier) => {
    const weight = WORDNET_TIER_WEIGHTS[TIERS[tier]!];
    for (const word of words.split(" ")) if (word && weight > 0) out.push([word, weight]);
  });
  relatives = out.sort((a, b) => b[1] - a[1]);
  parsed.set(stem, relatives);
  return relatives;
}

/** Whether WordNet lists the stemmed word (the table's words are English words: not typos). */
export function isWordnetStem(stem: string): boolean {
  return Object.hasOwn(entries, stem);
}

/** Source, version and licence notice of the WordNet table (the WordNet licence asks for the notice on every copy). */
export const WORDNET_NOTICE: string = (table as { notice: string }).notice;
