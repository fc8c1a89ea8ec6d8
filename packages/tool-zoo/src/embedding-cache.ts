import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Embedder } from "@afw/contracts";

/** Vectors by content hash for one embedder, optionally persisted to a file so that a restart embeds nothing again. */
export interface EmbeddingCache {
  /** Embeds the texts not cached yet (in one call, sorted by length) and returns every vector in input order. */
  embedAll(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
  /** Writes the cache file if one is configured and anything changed. */
  flush(): Promise<void>;
}

/**
 * Where an {@link EmbeddingCache} keeps vectors beyond the process (e.g. Redis), by hash of (embedder id, text), as raw
 * float32 bytes. A failing store must not throw: it answers what it can and drops writes; the cache then embeds.
 */
export interface EmbeddingCacheStore {
  /** The stored vectors of these keys (keys it does not have are absent). Vectors are raw little-endian float32 bytes. */
  get(keys: readonly string[]): Promise<Map<string, Uint8Array>>;
  /** Stores vectors under their keys. */
  set(entries: ReadonlyMap<string, Uint8Array>): Promise<void>;
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

function fromBytes(bytes: Uint8Array, dimensions: number): Float32Array | undefined {
  if (bytes.byteLength !== dimensions * 4) return undefined;
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

function toBytes(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength));
}

/**
 * An {@link EmbeddingCache} around `embedder`, loaded from a JSON file (ignored when missing, corrupt or of another
 * embedder; `flush` writes it atomically) or backed by an {@link EmbeddingCacheStore}.
 */
export async function openEmbeddingCache(embedder: Embedder, persistence?: string | EmbeddingCacheStore): Promise<EmbeddingCache> {
  const path = typeof persistence === "string" ? persistence : undefined;
  const external = typeof persistence === "object" ? persistence : undefined;
  const vectors = new Map<string, Float32Array>();
  let dirty = false;
  if (path) {
    try {
      const parsed = JSON.parse(await readFile(path, "utf8")) as Partial<CacheFile>;
      if (parsed.version === 1 && parsed.embedderId === embedder.id && parsed.dimensions === embedder.dimensions && parsed.vectors) {
        for (const [key, value] of Object.entries(parsed.vectors)) {
          const vector = fromBytes(Buffer.from(value, "base64"), embedder.dimensions);
          if (vector) vectors.set(key, vector);
        }
      }
    } catch {
      // missing or unreadable cache: start empty
    }
  }
  return {
    async embedAll(texts, signal) {
      const keys = texts.map((t) => hashText(embedder.id, t));
      const missing = new Map<string, string>();
      keys.forEach((key, i) => {
        if (!vectors.has(key)) missing.set(key, texts[i]!);
      });
      if (missing.size && external) {
        const stored = await external.get([...missing.keys()]).catch(() => new Map<string, Uint8Array>());
        for (const [key, bytes] of stored) {
          const vector = missing.has(key) ? fromBytes(bytes, embedder.dimensions) : undefined;
          if (!vector) continue;
          vectors.set(key, vector);
          missing.delete(key);
        }
      }
      if (missing.size) {
        // similar lengths together: batched models pad every text to the longest of its batch
        const pending = [...missing].sort((a, b) => a[1].length - b[1].length);
        const computed = await embedder.embed(
          pending.map(([, text]) => text),
          signal,
        );
        if (computed.length !== pending.length) {
          throw new Error(`embedder ${embedder.id} returned ${computed.length} vectors for ${pending.length} texts`);
        }
        pending.forEach(([key], i) => vectors.set(key, computed[i]!));
        dirty = true;
        if (external) await external.set(new Map(pending.map(([key], i) => [key, toBytes(computed[i]!)]))).catch(() => undefined);
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
