import type { HistoryQuery, HistorySearchMode, SessionTurn } from "@afw/contracts";

/** Smallest similarity of a turn found by meaning alone (no shared word). */
export const MIN_MEANING_SIMILARITY = 0.35;
/** Weight of the (IDF-weighted) share of query words a turn contains, added to its similarity in `hybrid` mode. */
export const KEYWORD_WEIGHT = 0.5;
/** Characters of a question that are embedded. */
const EMBEDDED_CHARS = 500;
/** Turns embedded per call of the embedder. */
export const EMBED_BATCH = 32;

/** The text of a turn that is embedded: its question. */
export function embeddedText(turn: SessionTurn): string {
  return turn.question.slice(0, EMBEDDED_CHARS);
}

/** The mode a query runs in: its `mode` (default `hybrid`), or `keyword` when the store has no embedder. */
export function searchMode(query: HistoryQuery, hasEmbedder: boolean): HistorySearchMode {
  return hasEmbedder ? (query.mode ?? "hybrid") : "keyword";
}

/** A unit-length vector as int8 (x 127): a quarter of its float32 size, similarities within about 0.01. */
export function quantize(vector: Float32Array): Int8Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  const scale = norm > 0 ? 127 / Math.sqrt(norm) : 0;
  return Int8Array.from(vector, (x) => Math.max(-127, Math.min(127, Math.round(x * scale))));
}

/** Cosine similarity of a float query and a stored int8 vector (0 for a zero or mismatched vector). */
export function similarity(query: Float32Array, stored: Int8Array): number {
  if (stored.length !== query.length) return 0;
  let dot = 0;
  let nq = 0;
  let ns = 0;
  for (let i = 0; i < stored.length; i++) {
    const q = query[i]!;
    const s = stored[i]!;
    dot += q * s;
    nq += q * q;
    ns += s * s;
  }
  return nq === 0 || ns === 0 ? 0 : dot / Math.sqrt(nq * ns);
}

/**
 * Inverse document frequency of each query word, normalised to sum to 1 (`ln(1 + turns / (1 + df))`):
 * a word most turns contain weighs little. All zero without words.
 */
export function idfWeights(documentFrequencies: readonly number[], turns: number): number[] {
  const raw = documentFrequencies.map((df) => Math.log(1 + turns / (1 + df)));
  const total = raw.reduce((a, b) => a + b, 0);
  return raw.map((weight) => (total > 0 ? weight / total : 0));
}

/**
 * The score a turn ranks by: `meaning` its similarity, `hybrid` its similarity plus
 * {@link KEYWORD_WEIGHT} times `keywordShare` (the {@link idfWeights} of the query words it
 * contains); undefined when it does not qualify (no shared word and a similarity under
 * {@link MIN_MEANING_SIMILARITY}).
 */
export function meaningScore(mode: "meaning" | "hybrid", sim: number, matchedWords: number, keywordShare: number): number | undefined {
  if (mode === "meaning") return sim >= MIN_MEANING_SIMILARITY ? sim : undefined;
  if (sim < MIN_MEANING_SIMILARITY && matchedWords === 0) return undefined;
  return sim + KEYWORD_WEIGHT * keywordShare;
}

/**
 * Random-hyperplane locality-sensitive hashing: `tables` tables of `bits` hyperplanes each; a
 * vector's bucket in a table is the signs of its products with that table's planes. Close vectors
 * share buckets in many tables. The planes come from a fixed seed, so every process agrees.
 */
export class HyperplaneLsh {
  private readonly planes: Float32Array[];

  constructor(
    readonly dimensions: number,
    readonly tables = 24,
    readonly bits = 8,
  ) {
    let seed = 0x9e3779b9 ^ dimensions;
    const uniform = () => {
      // mulberry32
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const gaussian = () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
    this.planes = Array.from({ length: tables * bits }, () => Float32Array.from({ length: dimensions }, gaussian));
  }

  /** The bucket names of `vector`, one per table: `<table>.<bits as hex>`. */
  buckets(vector: ArrayLike<number>): string[] {
    const names: string[] = [];
    for (let t = 0; t < this.tables; t++) {
      let code = 0;
      for (let b = 0; b < this.bits; b++) {
        const plane = this.planes[t * this.bits + b]!;
        let dot = 0;
        for (let i = 0; i < plane.length; i++) dot += plane[i]! * (vector[i] ?? 0);
        code = code * 2 + (dot >= 0 ? 1 : 0);
      }
      names.push(`${t}.${code.toString(16)}`);
    }
    return names;
  }
}
