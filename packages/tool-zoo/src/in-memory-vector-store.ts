import { matchesFilter, type VectorMatch, type VectorMetadata, type VectorRecord, type VectorStore } from "./vector-store.js";

/**
 * The embedded default {@link VectorStore}: exact cosine similarity, metadata filters applied
 * exactly: unit vectors in one `Float32Array`, a query is one linear scan of dot products (fine up to
 * tens of thousands of records).
 *
 * @example
 * ```ts
 * const store = createInMemoryVectorStore();
 * await store.upsert([{ id: "a", vector: new Float32Array([1, 0]), metadata: { server: "git" } }]);
 * await store.query({ vector: new Float32Array([1, 0]), topK: 1, filter: { server: "git" } });
 * ```
 */
export function createInMemoryVectorStore(): VectorStore {
  let dimensions = 0;
  let data = new Float32Array(0);
  const ids: string[] = [];
  const metadatas: VectorMetadata[] = [];
  const slotOf = new Map<string, number>();

  const ensureCapacity = (slots: number) => {
    if (slots * dimensions <= data.length) return;
    const next = new Float32Array(Math.max(slots, Math.ceil((data.length / Math.max(dimensions, 1)) * 1.5), 64) * dimensions);
    next.set(data.subarray(0, ids.length * dimensions));
    data = next;
  };
  const write = (slot: number, vector: Float32Array) => {
    let norm = 0;
    for (let i = 0; i < dimensions; i++) norm += vector[i]! * vector[i]!;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const offset = slot * dimensions;
    for (let i = 0; i < dimensions; i++) data[offset + i] = (vector[i] ?? 0) * scale;
  };

  return {
    async upsert(records: readonly VectorRecord[]) {
      for (const record of records) {
        if (dimensions === 0) dimensions = record.vector.length;
        if (record.vector.length !== dimensions) {
          throw new Error(`vector ${record.id} has ${record.vector.length} dimensions, the store holds ${dimensions}`);
        }
        let slot = slotOf.get(record.id);
        if (slot === undefined) {
          slot = ids.length;
          ensureCapacity(slot + 1);
          ids.push(record.id);
          metadatas.push({});
          slotOf.set(record.id, slot);
        }
        write(slot, record.vector);
        metadatas[slot] = { ...record.metadata };
      }
    },
    async delete(toDelete) {
      for (const id of toDelete) {
        const slot = slotOf.get(id);
        if (slot === undefined) continue;
        const last = ids.length - 1;
        if (slot !== last) {
          // move the last record into the freed slot
          data.copyWithin(slot * dimensions, last * dimensions, (last + 1) * dimensions);
          ids[slot] = ids[last]!;
          metadatas[slot] = metadatas[last]!;
          slotOf.set(ids[slot]!, slot);
        }
        ids.pop();
        metadatas.pop();
        slotOf.delete(id);
      }
    },
    async query({ vector, topK, filter }) {
      const count = ids.length;
      if (topK <= 0 || count === 0) return [];
      if (vector.length !== dimensions) throw new Error(`query has ${vector.length} dimensions, the store holds ${dimensions}`);
      let queryNorm = 0;
      for (let i = 0; i < dimensions; i++) queryNorm += vector[i]! * vector[i]!;
      const queryScale = queryNorm > 0 ? 1 / Math.sqrt(queryNorm) : 0;
      const scores = new Float64Array(count);
      let matched = 0;
      const dim = dimensions;
      const store = data;
      const q = vector;
      for (let slot = 0; slot < count; slot++) {
        if (filter && !matchesFilter(metadatas[slot]!, filter)) {
          scores[slot] = -Infinity;
          continue;
        }
        const offset = slot * dim;
        let dot = 0;
        for (let i = 0; i < dim; i++) dot += q[i]! * store[offset + i]!;
        scores[slot] = dot * queryScale;
        matched++;
      }
      // threshold = the topK-th best score (numeric typed-array sort, no comparator)
      const threshold = matched > topK ? scores.slice().sort()[count - topK]! : -Infinity;
      const selected: number[] = [];
      for (let slot = 0; slot < count; slot++) {
        const score = scores[slot]!;
        if (score >= threshold && score !== -Infinity) selected.push(slot);
      }
      selected.sort((x, y) => scores[y]! - scores[x]! || (ids[x]! < ids[y]! ? -1 : ids[x]! > ids[y]! ? 1 : 0));
      return selected.slice(0, topK).map((slot): VectorMatch => ({ id: ids[slot]!, score: scores[slot]!, metadata: { ...metadatas[slot]! } }));
    },
    async ids(filter) {
      return ids.filter((_, slot) => matchesFilter(metadatas[slot]!, filter));
    },
    async close() {},
  };
}
