import type { Embedder } from "@afw/contracts";
import { normalizeInPlace } from "./normalize.js";

/** Options of {@link createHashingEmbedder}. */
export interface HashingEmbedderOptions {
  /**
   * Vector length.
   * @default 256
   */
  dimensions?: number;
}

/** Length of the character n-grams hashed inside each word. */
const CHAR_NGRAM = 3;

function fnv1a(text: string, seed: number): number {
  let hash = 0x811c9dc5 ^ seed;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * A deterministic, instant embedder based on feature hashing of words and character n-grams.
 * It knows no semantics beyond shared words and word pieces, so it is meant for unit tests and as
 * a last-resort fallback, not for production routing quality.
 *
 * @example
 * ```ts
 * const embedder = createHashingEmbedder({ dimensions: 64 });
 * const [a, b] = await embedder.embed(["restart the pod", "restart pods"]);
 * ```
 */
export function createHashingEmbedder(options: HashingEmbedderOptions = {}): Embedder {
  const dimensions = options.dimensions ?? 256;
  if (!Number.isInteger(dimensions) || dimensions < 8) throw new RangeError("dimensions must be an integer >= 8");
  const embedOne = (text: string): Float32Array => {
    const vector = new Float32Array(dimensions);
    const words = text.toLowerCase().normalize("NFKC").match(/[\p{L}\p{N}]+/gu) ?? [];
    const add = (feature: string, weight: number) => {
      const h = fnv1a(feature, 0);
      const sign = fnv1a(feature, 0x9e3779b9) & 1 ? 1 : -1;
      vector[h % dimensions] = vector[h % dimensions]! + sign * weight;
    };
    for (const word of words) {
      add(`w:${word}`, 1);
      if (word.length > CHAR_NGRAM) {
        const padded = `<${word}>`;
        for (let i = 0; i + CHAR_NGRAM <= padded.length; i++) add(`c:${padded.slice(i, i + CHAR_NGRAM)}`, 0.35);
      }
    }
    return normalizeInPlace(vector);
  };
  return {
    id: `hashing-${dimensions}-${CHAR_NGRAM}`,
    dimensions,
    async embed(texts) {
      return texts.map(embedOne);
    },
  };
}
