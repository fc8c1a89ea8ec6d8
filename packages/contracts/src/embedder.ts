/**
 * Turns texts into dense vectors. Shared by the router's intent classifier and the tool zoo, so one model instance (and
 * one embedding cache) can serve both.
 * @example
 * ```ts
 * const [v] = await embedder.embed(["restart the failing pod"]);
 * v.length === embedder.dimensions; // true
 * ```
 */
export interface Embedder {
  /** Stable identifier of the model and its settings, e.g. `use-lite-512`; part of cache keys. */
  readonly id: string;
  /** Length of every returned vector. */
  readonly dimensions: number;
  /** Embeds `texts`; resolves to one vector per text, in order. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/**
 * Cosine similarity of two vectors of equal length; 0 when either is all zeros.
 * @example
 * ```ts
 * cosineSimilarity(new Float32Array([1, 0]), new Float32Array([1, 0])) // 1
 * ```
 */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na === 0 || nb === 0) return 0;
  return dot / Math.sqrt(na * nb);
}
