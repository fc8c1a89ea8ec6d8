import { matchesFilter, type VectorMatch, type VectorMetadata, type VectorRecord, type VectorStore } from "./vector-store.js";

interface Entry {
  id: string;
  vector: Float32Array;
  norm: number;
  metadata: VectorMetadata;
}

function norm(vector: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  return Math.sqrt(sum);
}

/**
 * The embedded default {@link VectorStore}: exact cosine similarity over `Float32Array`s, metadata
 * filters applied exactly. A linear scan — about 1 ms per 2,000 512-d vectors — fine up to tens of
 * thousands of records.
 *
 * @example
 * ```ts
 * const store = createInMemoryVectorStore();
 * await store.upsert([{ id: "a", vector: new Float32Array([1, 0]), metadata: { server: "git" } }]);
 * await store.query({ vector: new Float32Array([1, 0]), topK: 1, filter: { server: "git" } });
 * ```
 */
export function createInMemoryVectorStore(): VectorStore {
  const entries = new Map<string, Entry>();
  return {
    kind: "memory",
    async upsert(records: readonly VectorRecord[]) {
      for (const record of records) {
        entries.set(record.id, {
          id: record.id,
          vector: Float32Array.from(record.vector),
          norm: norm(record.vector),
          metadata: { ...record.metadata },
        });
      }
    },
    async delete(ids) {
      for (const id of ids) entries.delete(id);
    },
    async query({ vector, topK, filter }) {
      if (topK <= 0) return [];
      const queryNorm = norm(vector);
      const best: VectorMatch[] = [];
      let worst = -Infinity;
      for (const entry of entries.values()) {
        if (filter && !matchesFilter(entry.metadata, filter)) continue;
        const n = Math.min(vector.length, entry.vector.length);
        let dot = 0;
        const v = entry.vector;
        for (let i = 0; i < n; i++) dot += vector[i]! * v[i]!;
        const score = queryNorm === 0 || entry.norm === 0 ? 0 : dot / (queryNorm * entry.norm);
        if (best.length < topK || score > worst) {
          best.push({ id: entry.id, score, metadata: entry.metadata });
          if (best.length > topK * 2 + 16) {
            best.sort((a, b) => b.score - a.score);
            best.length = topK;
            worst = best[best.length - 1]!.score;
          }
        }
      }
      best.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
      return best.slice(0, topK).map((m) => ({ ...m, metadata: { ...m.metadata } }));
    },
    async ids(filter) {
      return [...entries.values()].filter((e) => matchesFilter(e.metadata, filter)).map((e) => e.id);
    },
    async count() {
      return entries.size;
    },
    async close() {},
  };
}
