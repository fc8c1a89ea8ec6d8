import { foldText, splitWords } from "./text-normalization.js";

/** A sparse feature vector: parallel arrays of indices and values. */
export interface SparseVector {
  indices: Int32Array;
  values: Float32Array;
}

/** Settings of {@link lexicalFeatures}. */
export interface LexicalFeatureOptions {
  /** Number of hash buckets is `2 ** hashBits`. @default 14 */
  hashBits?: number;
  /** Character n-gram lengths taken inside words. @default [3, 4, 5] */
  charNgrams?: readonly number[];
  /** Weight of one character n-gram relative to a word. @default 0.3 */
  charWeight?: number;
  /** Language-independent concept features (e.g. from the cue lexicon), added as `k:<name>`. */
  concepts?: readonly string[];
  /** Weight of one concept relative to a word. @default 1 */
  conceptWeight?: number;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Hashed bag of words, word bigrams and character n-grams of a question, with sublinear term
 * frequency and unit length. Accent-folded, so `política` and `politica` share features; the
 * character n-grams let related word forms in any language (`duplicados`, `duplicates`) meet.
 *
 * @example
 * ```ts
 * const v = lexicalFeatures("Convert this CSV to JSON");
 * v.indices.length === v.values.length; // true
 * ```
 */
export function lexicalFeatures(text: string, options: LexicalFeatureOptions = {}): SparseVector {
  const buckets = 2 ** (options.hashBits ?? 14);
  const charNgrams = options.charNgrams ?? [3, 4, 5];
  const charWeight = options.charWeight ?? 0.3;
  const counts = new Map<number, number>();
  const add = (feature: string, weight: number) => {
    const index = fnv1a(feature) % buckets;
    counts.set(index, (counts.get(index) ?? 0) + weight);
  };
  const words = splitWords(foldText(text));
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    add(`w:${word}`, 1);
    if (i + 1 < words.length) add(`b:${word} ${words[i + 1]!}`, 1);
    if (charWeight > 0) {
      const padded = ` ${word} `;
      for (const n of charNgrams) {
        for (let j = 0; j + n <= padded.length; j++) add(`c:${padded.slice(j, j + n)}`, charWeight);
      }
    }
  }
  const conceptWeight = options.conceptWeight ?? 1;
  if (options.concepts && conceptWeight > 0) for (const concept of options.concepts) add(`k:${concept}`, conceptWeight);
  const indices = new Int32Array(counts.size);
  const values = new Float32Array(counts.size);
  let k = 0;
  let norm = 0;
  for (const [index, count] of counts) {
    const value = count > 1 ? 1 + Math.log(count) : count;
    indices[k] = index;
    values[k] = value;
    norm += value * value;
    k++;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < values.length; i++) values[i] = values[i]! * scale;
  return { indices, values };
}
