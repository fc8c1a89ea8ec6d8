import { afterEach, describe, expect, it } from "vitest";
import { createLearnedRoutingPrior, type LearnedPriorStore } from "../../src/index.js";
import { manualClock } from "../helpers.js";

export interface PriorStoresUnderTest {
  /** Two stores over the same shared state (for memory: the same store twice). */
  first: LearnedPriorStore;
  second: LearnedPriorStore;
  close(): Promise<void>;
}

const HOUR = 3_600_000;

/** The learned-prior store suite, run against the memory and the Redis implementation. */
export function describePriorStoreSuite(name: string, create: () => Promise<PriorStoresUnderTest>): void {
  describe(`LearnedPriorStore (${name})`, () => {
    const open: PriorStoresUnderTest[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((subject) => subject.close()));
    });
    const make = async () => {
      const subject = await create();
      open.push(subject);
      return subject;
    };

    it("merges increments with decay", async () => {
      const { first } = await make();
      const t0 = Date.UTC(2025, 0, 1);
      expect(await first.add([{ intent: "technical-analysis", flowId: "flowise:a", stats: { n: 8, s: 4, l: 800, ln: 8, f: 1, fn: 2, t: t0 } }], HOUR)).toBe(true);
      // one half-life later: the old sums count half
      expect(await first.add([{ intent: "technical-analysis", flowId: "flowise:a", stats: { n: 2, s: 2, l: 100, ln: 2, f: 0, fn: 0, t: t0 + HOUR } }], HOUR)).toBe(true);
      await first.add([{ intent: "rag-retrieval", flowId: "flowise:b", stats: { n: 1, s: 0, l: 0, ln: 0, f: 0, fn: 0, t: t0 } }], HOUR);
      const loaded = (await first.load())!;
      const a = loaded.find((e) => e.flowId === "flowise:a")!;
      expect(a.intent).toBe("technical-analysis");
      expect(a.stats.t).toBe(t0 + HOUR);
      expect(a.stats.n).toBeCloseTo(6, 9);
      expect(a.stats.s).toBeCloseTo(4, 9);
      expect(a.stats.l).toBeCloseTo(500, 9);
      expect(a.stats.f).toBeCloseTo(0.5, 9);
      expect(a.stats.fn).toBeCloseTo(1, 9);
      expect(loaded.find((e) => e.flowId === "flowise:b")?.intent).toBe("rag-retrieval");
    });

    it("lets every instance learn what the others observed", async () => {
      const { first, second } = await make();
      const clock = manualClock();
      const one = createLearnedRoutingPrior({ store: first, minSamples: 10, halfLifeMs: HOUR, now: clock.now, flushIntervalMs: 60_000, refreshIntervalMs: 60_000 });
      const two = createLearnedRoutingPrior({ store: second, minSamples: 10, halfLifeMs: HOUR, now: clock.now, flushIntervalMs: 60_000, refreshIntervalMs: 60_000 });
      try {
        for (let i = 0; i < 60; i++) {
          one.observe({ intent: "technical-analysis", flowId: "flowise:flaky", success: i % 2 === 0, latencyMs: 900 });
          one.observe({ intent: "technical-analysis", flowId: "flowise:steady", success: true, latencyMs: 300 });
        }
        const learned = one.adjust("technical-analysis", "flowise:flaky");
        expect(learned.flow_match).toBeLessThan(0);
        expect(two.adjust("technical-analysis", "flowise:flaky").samples).toBe(0);
        await one.flush();
        await two.refresh();
        const shared = two.adjust("technical-analysis", "flowise:flaky");
        expect(shared.samples).toBeCloseTo(learned.samples, 3);
        expect(shared.flow_match).toBeCloseTo(learned.flow_match, 3);
        expect(shared.performance).toBeCloseTo(learned.performance, 3);
      } finally {
        await one.close();
        await two.close();
      }
    });
  });
}
