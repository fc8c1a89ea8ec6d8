// A file-backed embedding cache for the train/eval scripts, so re-running them does not re-embed
// unchanged texts. Not part of the package API.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const cacheDir = join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", ".cache", "afw-router");

export function diskCacheEmbedder(inner) {
  const file = join(cacheDir, `embeddings-${inner.id}.json`);
  const cache = existsSync(file) ? new Map(Object.entries(JSON.parse(readFileSync(file, "utf8")))) : new Map();
  let dirty = false;
  const key = (t) => createHash("sha256").update(t).digest("base64url");
  return {
    id: inner.id,
    dimensions: inner.dimensions,
    async embed(texts, signal) {
      const missing = [...new Set(texts.filter((t) => !cache.has(key(t))))];
      if (missing.length) {
        const vectors = await inner.embed(missing, signal);
        missing.forEach((t, i) => cache.set(key(t), Buffer.from(vectors[i].buffer, vectors[i].byteOffset, vectors[i].byteLength).toString("base64")));
        dirty = true;
      }
      return texts.map((t) => {
        const b = Buffer.from(cache.get(key(t)), "base64");
        const copy = new Uint8Array(b.byteLength);
        copy.set(b);
        return new Float32Array(copy.buffer);
      });
    },
    save() {
      if (!dirty) return;
      mkdirSync(cacheDir, { recursive: true });
      writeFileSync(file, JSON.stringify(Object.fromEntries(cache)));
      dirty = false;
    },
  };
}
