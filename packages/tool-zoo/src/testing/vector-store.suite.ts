// One behavioural test suite run against every VectorStore implementation.
import { describe, expect, it } from "vitest";
import { matchesFilter, type MetadataFilter, type VectorRecord, type VectorStore } from "../vector-store.js";

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function unit(values: number[]): Float32Array {
  const norm = Math.sqrt(values.reduce((s, v) => s + v * v, 0));
  return Float32Array.from(values.map((v) => v / norm));
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

const SERVERS = ["github", "gitlab", "slack", "kubernetes"];

/** 48 records over 4 servers with numeric `rank`, boolean tags and 16-d vectors. */
export function sampleRecords(): VectorRecord[] {
  const next = random(7);
  return Array.from({ length: 48 }, (_, i) => {
    const metadata: VectorRecord["metadata"] = { server: SERVERS[i % 4]!, rank: i, toolId: `t${i}` };
    if (i % 3 === 0) metadata["tag:write"] = true;
    if (i % 5 === 0) metadata["tag:admin"] = true;
    return { id: `r${i}`, vector: unit(Array.from({ length: 16 }, () => next() - 0.5)), metadata };
  });
}

function exactTop(records: VectorRecord[], vector: Float32Array, topK: number, filter?: MetadataFilter): string[] {
  return records
    .filter((r) => matchesFilter(r.metadata, filter))
    .map((r) => ({ id: r.id, score: cosine(r.vector, vector) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, topK)
    .map((r) => r.id);
}

/**
 * Registers the shared {@link VectorStore} behaviour tests. `create` must return a new, empty
 * store for every call.
 */
export function runVectorStoreSuite(name: string, create: () => Promise<VectorStore>): void {
  describe(`VectorStore conformance: ${name}`, () => {
    const records = sampleRecords();
    const probe = unit(Array.from({ length: 16 }, (_, i) => Math.sin(i + 1)));

    it("stores, counts and ranks by cosine similarity like an exact scan", async () => {
      const store = await create();
      await store.upsert(records);
      expect((await store.ids()).length).toBe(records.length);
      const matches = await store.query({ vector: probe, topK: 5 });
      expect(matches.map((m) => m.id)).toEqual(exactTop(records, probe, 5));
      const first = records.find((r) => r.id === matches[0]!.id)!;
      expect(matches[0]!.score).toBeCloseTo(cosine(first.vector, probe), 4);
      expect(matches[0]!.metadata["server"]).toBe(first.metadata["server"]);
      for (let i = 1; i < matches.length; i++) expect(matches[i - 1]!.score).toBeGreaterThanOrEqual(matches[i]!.score);
      await store.close();
    });

    it("finds a stored vector as its own nearest neighbour with similarity 1", async () => {
      const store = await create();
      await store.upsert(records);
      const target = records[17]!;
      const [match] = await store.query({ vector: target.vector, topK: 1 });
      expect(match?.id).toBe(target.id);
      expect(match?.score).toBeCloseTo(1, 4);
      await store.close();
    });

    it("replaces a record on upsert with the same id", async () => {
      const store = await create();
      await store.upsert(records.slice(0, 10));
      await store.upsert([{ id: "r3", vector: probe, metadata: { server: "replaced", rank: 99 } }]);
      expect((await store.ids()).length).toBe(10);
      const [match] = await store.query({ vector: probe, topK: 1 });
      expect(match?.id).toBe("r3");
      expect(match?.metadata["server"]).toBe("replaced");
      expect(await store.ids({ server: "replaced" })).toEqual(["r3"]);
      await store.close();
    });

    it("deletes records and ignores unknown ids", async () => {
      const store = await create();
      await store.upsert(records);
      await store.delete(["r0", "r1", "does-not-exist"]);
      expect((await store.ids()).length).toBe(records.length - 2);
      const ids = await store.ids();
      expect(ids).not.toContain("r0");
      expect(ids).toContain("r2");
      await store.close();
    });

    const filters: Array<[string, MetadataFilter]> = [
      ["equality shorthand", { server: "slack" }],
      ["$in", { server: { $in: ["gitlab", "kubernetes"] } }],
      ["numeric $in", { rank: { $in: [10, 11, 45] } }],
      ["boolean tag", { "tag:write": true }],
      ["$or of tags", { $or: [{ "tag:write": true }, { "tag:admin": true }] }],
      ["two fields in one object", { server: "github", "tag:write": true }],
      ["nested and/or", { $and: [{ server: { $in: ["github", "slack"] } }, { $or: [{ "tag:admin": true }, { rank: { $in: [0, 1, 2, 3] } }] }] }],
    ];
    for (const [label, filter] of filters) {
      it(`applies the filter exactly: ${label}`, async () => {
        const store = await create();
        await store.upsert(records);
        const expected = records.filter((r) => matchesFilter(r.metadata, filter)).map((r) => r.id);
        expect(expected.length).toBeGreaterThan(0);
        expect(expected.length).toBeLessThan(records.length);
        expect((await store.ids(filter)).sort()).toEqual([...expected].sort());
        const matches = await store.query({ vector: probe, topK: 100, filter });
        expect(matches.map((m) => m.id).sort()).toEqual([...expected].sort());
        expect(matches.slice(0, 3).map((m) => m.id)).toEqual(exactTop(records, probe, 3, filter));
        await store.close();
      });
    }

    it("returns nothing when the filter matches nothing, and honours topK", async () => {
      const store = await create();
      await store.upsert(records);
      expect(await store.query({ vector: probe, topK: 5, filter: { server: "nope" } })).toEqual([]);
      expect(await store.query({ vector: probe, topK: 3 })).toHaveLength(3);
      await store.close();
    });
  });
}
