import { describe, expect, it } from "vitest";
import type { PerformanceStore, PerformanceTarget } from "@afw/contracts";
import { createMemoryPerformanceStore } from "@afw/cache";
import { createPerformanceTracker } from "./performance-tracker.js";

function countingStore(): { store: PerformanceStore; windowReads: PerformanceTarget[] } {
  const inner = createMemoryPerformanceStore();
  const windowReads: PerformanceTarget[] = [];
  const store: PerformanceStore = {
    record: (sample) => inner.record(sample),
    window: (target) => {
      windowReads.push(target);
      return inner.window(target);
    },
    targets: () => inner.targets(),
  };
  return { store, windowReads };
}

describe("performance tracker re-reads after records", () => {
  it("coalesces the re-reads of concurrent records, and each record still sees its own sample", async () => {
    const { store, windowReads } = countingStore();
    const tracker = createPerformanceTracker({ store });
    const target = { backendId: "a", flowId: "a:x" };
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        tracker.record({ ...target, latencyMs: 10 + i, success: true, timestamp: Date.now() }).then(() => {
          // Once a record resolves, the summaries include at least its own sample.
          expect(tracker.summary(target).samples).toBeGreaterThanOrEqual(1);
        }),
      ),
    );
    expect(tracker.summary(target).samples).toBe(8);
    expect(tracker.summary({ backendId: "a" }).samples).toBe(8);
    const flowReads = windowReads.filter((t) => t.flowId === "a:x").length;
    expect(flowReads).toBeGreaterThanOrEqual(1);
    expect(flowReads).toBeLessThan(8);
  });

  it("re-reads after every sequential record", async () => {
    const { store, windowReads } = countingStore();
    const tracker = createPerformanceTracker({ store });
    const target = { backendId: "a", flowId: "a:x" };
    for (let i = 1; i <= 3; i++) {
      await tracker.record({ ...target, latencyMs: 5, success: i !== 2, timestamp: Date.now() });
      expect(tracker.summary(target).samples).toBe(i);
    }
    expect(windowReads.filter((t) => t.flowId === "a:x")).toHaveLength(3);
  });
});
