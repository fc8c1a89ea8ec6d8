import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Embedder } from "@afw/contracts";

/**
 * Vectors by content hash, for one embedder, optionally persisted to a file so that a restarted
 * process does not embed its catalog again.
 */
export interface EmbeddingCache {
  /** Number of cached vectors. */
  readonly size: number;
  /** Embeds the texts that are not cached yet (in one batch) and returns every vector in order. */
  embedAll(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
  /** Writes the cache file if one is configured and anything changed. */
  flush(): Promise<void>;
  /** Counters: `hits` (served from cache) and `misses` (embedded). */
  stats(): { hits: number; misses: number };
}

interface CacheFile {
  version: 1;
  embedderId: string;
  dimensions: number;
  vectors: Record<string, string>;
}

function hashText(embedderId: string, text: string): string {
  return createHash("sha256").update(embedderId).update("\0").update(text).digest("base64url").slice(0, 32);
}

function encode(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64");
}

function decode(text: string, dimensions: number): Float32Array | undefined {
  const buffer = Buffer.from(text, "base64");
  if (buffer.byteLength !== dimensions * 4) return undefined;
  const copy = new Uint8Array(buffer.byteLength);
  copy.set(buffer);
  return new Float32Array(copy.buffer);
}

/**
 * Creates an {@link EmbeddingCache} around `embedder`. When `path` is given the cache is loaded
 * from that JSON file (ignored when missing, corrupt, or written by another embedder id) and
 * {@link EmbeddingCache.flush} writes it back atomically.
 *
 * @example
 * ```ts
 * const cache = await openEmbeddingCache(embedder, ".cache/tool-vectors.json");
 * const vectors = await cache.embedAll(["list pull requests"]);
 * await cache.flush();
 * ```
 */
export async function openEmbeddingCache(embedder: Embedder, path?: string): Promise<EmbeddingCache> {
  const vectors = new Map<string, Float32Array>();
  let dirty = false;
  let hits = 0;
  let misses = 0;
  if (path) {
    try {
      const parsed = JSON.parse(await readFile(path, "utf8")) as Partial<CacheFile>;
      if (parsed.version === 1 && parsed.embedderId === embedder.id && parsed.dimensions === embedder.dimensions && parsed.vectors) {
        for (const [key, value] of Object.entries(parsed.vectors)) {
          const vector = decode(value, embedder.dimensions);
          if (vector) vectors.set(key, vector);
        }
      }
    } catch {
      // missing or unreadable cache: start empty
    }
  }
  return {
    get size() {
      return vectors.size;
    },
    stats: () => ({ hits, misses }),
    async embedAll(texts, signal) {
      const keys = texts.map((t) => hashText(embedder.id, t));
      const missing = new Map<string, string>();
      keys.forEach((key, i) => {
        if (!vectors.has(key)) missing.set(key, texts[i]!);
      });
      hits += texts.length - missing.size;
      if (missing.size) {
        misses += missing.size;
        const computed = await embedder.embed([...missing.values()], signal);
        if (computed.length !== missing.size) {
          throw new Error(`embedder ${embedder.id} returned ${computed.length} vectors for ${missing.size} texts`);
        }
        [...missing.keys()].forEach((key, i) => vectors.set(key, computed[i]!));
        dirty = true;
      }
      return keys.map((key) => vectors.get(key)!);
    },
    async flush() {
      if (!path || !dirty) return;
      const file: CacheFile = { version: 1, embedderId: embedder.id, dimensions: embedder.dimensions, vectors: {} };
      for (const [key, vector] of vectors) file.vectors[key] = encode(vector);
      await mkdir(dirname(path), { recursive: true });
      const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
      await writeFile(temporary, JSON.stringify(file));
      await rename(temporary, path);
      dirty = false;
    },
  };
}
