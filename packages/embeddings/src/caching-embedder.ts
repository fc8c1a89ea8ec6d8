import { createHash } from "node:crypto";
import type { Embedder } from "@afw/contracts";

/** Most vectors kept (least recently used are evicted first). */
const MAX_ENTRIES = 20_000;

/** An {@link Embedder} with cache counters. */
export interface CachingEmbedder extends Embedder {
  /** Cache counters. */
  stats(): { hits: number; misses: number; size: number };
  /** Forgets every cached vector. */
  clear(): void;
}

/**
 * Wraps an embedder so every distinct text (by SHA-256 of the inner embedder's id and the text)
 * is embedded once; concurrent requests for the same text share one computation. The returned
 * vectors are shared: treat them as read-only. The 20,000 most recently used vectors are kept.
 *
 * @example
 * ```ts
 * const embedder = createCachingEmbedder(createHashingEmbedder());
 * await embedder.embed(["a", "a"]); // the inner embedder sees "a" once
 * ```
 */
export function createCachingEmbedder(inner: Embedder): CachingEmbedder {
  const cache = new Map<string, Promise<Float32Array>>();
  let hits = 0;
  let misses = 0;
  const keyOf = (text: string) => createHash("sha256").update(inner.id).update("\0").update(text).digest("base64url");
  const touch = (key: string, value: Promise<Float32Array>) => {
    cache.delete(key);
    cache.set(key, value);
    if (cache.size > MAX_ENTRIES) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
  };
  return {
    id: inner.id,
    dimensions: inner.dimensions,
    stats: () => ({ hits, misses, size: cache.size }),
    clear: () => cache.clear(),
    async embed(texts, signal) {
      const keys = texts.map(keyOf);
      const pending: { index: number; text: string; key: string }[] = [];
      const local = new Map<string, Promise<Float32Array>>();
      const results: (Promise<Float32Array> | undefined)[] = keys.map((key, index) => {
        const cached = cache.get(key);
        if (cached) {
          hits++;
          touch(key, cached);
          return cached;
        }
        if (local.has(key)) hits++;
        else {
          local.set(key, Promise.resolve(new Float32Array(0)));
          pending.push({ index, text: texts[index]!, key });
        }
        return undefined;
      });
      if (pending.length) {
        misses += pending.length;
        const computed = inner.embed(
          pending.map((p) => p.text),
          signal,
        );
        pending.forEach((p, i) => {
          const promise = computed.then((vectors) => {
            const v = vectors[i];
            if (!v) throw new Error(`embedder ${inner.id} returned ${vectors.length} vectors for ${pending.length} texts`);
            return v;
          });
          promise.catch(() => cache.delete(p.key));
          local.set(p.key, promise);
          touch(p.key, promise);
        });
      }
      return Promise.all(results.map((r, index) => r ?? local.get(keys[index]!)!));
    },
  };
}
