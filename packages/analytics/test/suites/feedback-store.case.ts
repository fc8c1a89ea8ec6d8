import { afterEach, describe, expect, it } from "vitest";
import type { FeedbackRecord, FeedbackStore } from "../../src/index.js";

export interface FeedbackStoreUnderTest {
  store: FeedbackStore;
  close(): Promise<void>;
}

const T0 = Date.UTC(2025, 0, 1);

function record(id: string, createdAt: number, extra: Partial<FeedbackRecord> = {}): FeedbackRecord {
  return { id, sessionId: id.split("#")[0]!, rating: 1, scale: "unit", score: 1, createdAt, linked: false, ...extra };
}

/** The feedback-store suite, run against the memory and the Redis implementation. */
export function describeFeedbackStoreSuite(name: string, create: (options: { maxRecords: number; now: () => number }) => Promise<FeedbackStoreUnderTest>): void {
  describe(`FeedbackStore (${name})`, () => {
    const open: FeedbackStoreUnderTest[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((subject) => subject.close()));
    });
    const make = async (maxRecords = 1000) => {
      const subject = await create({ maxRecords, now: () => T0 + 86_400_000 });
      open.push(subject);
      return subject.store;
    };

    it("stores and lists records by time", async () => {
      const store = await make();
      const a = record("s1#t1", T0, { flowId: "flowise:a", comment: 'with "quotes", commas', score: -0.5, rating: -0.5, traceId: "t1", linked: true });
      const b = record("s1#t2", T0 + 1000, { flowId: "flowise:b" });
      const c = record("s2#t3", T0 + 2000, { flowId: "flowise:a" });
      for (const r of [c, a, b]) expect(await store.put(r)).toBe(true);
      expect(await store.list()).toEqual([a, b, c]);
      expect(await store.list({ from: T0 + 500, to: T0 + 1500 })).toEqual([b]);
    });

    it("replaces a record with the same id", async () => {
      const store = await make();
      await store.put(record("s1#t1", T0, { score: 1 }));
      await store.put(record("s1#t1", T0 + 10, { score: -1, rating: -1 }));
      const list = await store.list();
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({ score: -1, createdAt: T0 + 10 });
    });

    it("evicts the oldest records over maxRecords", async () => {
      const store = await make(3);
      for (let i = 0; i < 5; i++) await store.put(record(`s#${i}`, T0 + i));
      expect((await store.list()).map((r) => r.id)).toEqual(["s#2", "s#3", "s#4"]);
    });
  });
}
