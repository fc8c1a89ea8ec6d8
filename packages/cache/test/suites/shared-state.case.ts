import { describe, expect, it } from "vitest";
import { closeAfter } from "@afw/testing";
import type { BackendHealth, CircuitStateStore, HealthStore, PerformanceSample, PerformanceStore } from "@afw/contracts";
import { waitFor } from "../helpers.js";

/** The shared gateway state stores under test. */
export interface SharedStateHarness {
  performance: PerformanceStore;
  health: HealthStore;
  circuits: CircuitStateStore;
  /** A second handle on the same data (Redis: another connection). */
  other: { performance: PerformanceStore; health: HealthStore; circuits: CircuitStateStore };
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Creates fresh, empty stores for one test. */
export type SharedStateFactory = () => Promise<SharedStateHarness>;

const sample = (i: number, extra: Partial<PerformanceSample> = {}): PerformanceSample => ({
  backendId: "flowise",
  latencyMs: i,
  success: i % 10 !== 0,
  timestamp: 1_000 + i,
  ...extra,
});

const health = (backendId: string, status: BackendHealth["status"] = "healthy"): BackendHealth => ({
  backendId,
  kind: "flowise",
  status,
  latencyMs: 12,
  checkedAt: new Date(1_700_000_000_000).toISOString(),
});

/** The performance, health and circuit-state suites, run against every implementation. */
export function describeSharedStateSuite(name: string, factory: SharedStateFactory): void {
  describe(`Shared gateway state conformance: ${name}`, () => {
    const track = closeAfter();
    const create = async () => track(await factory());

    it("keeps a rolling window of the last 100 samples per backend and per flow, oldest first", async () => {
      const { performance } = await create();
      for (let i = 1; i <= 130; i++) await performance.record(sample(i, i % 2 === 0 ? { flowId: "flowise:faq" } : {}));
      const backend = await performance.window({ backendId: "flowise" });
      expect(backend).toHaveLength(100);
      expect(backend[0]?.latencyMs).toBe(31);
      expect(backend.at(-1)?.latencyMs).toBe(130);
      const flow = await performance.window({ backendId: "flowise", flowId: "flowise:faq" });
      expect(flow.map((s) => s.latencyMs)).toEqual(Array.from({ length: 65 }, (_, i) => 2 * (i + 1)));
      expect(await performance.window({ backendId: "langflow" })).toEqual([]);
      const targets = await performance.targets();
      expect(targets).toHaveLength(2);
      expect(targets).toEqual(expect.arrayContaining([{ backendId: "flowise" }, { backendId: "flowise", flowId: "flowise:faq" }]));
    });

    it("shares windows between handles", async () => {
      const { performance, other } = await create();
      for (let i = 1; i <= 5; i++) await (i % 2 ? performance : other.performance).record(sample(i, { errorCode: i === 5 ? "BACKEND_TIMEOUT" : undefined }));
      const window = await other.performance.window({ backendId: "flowise" });
      expect(window.map((s) => s.latencyMs)).toEqual([1, 2, 3, 4, 5]);
      expect(window[4]).toEqual(sample(5, { errorCode: "BACKEND_TIMEOUT" }));
      await expect(performance.record({ backendId: "x", latencyMs: -1, success: true, timestamp: 1 })).rejects.toMatchObject({ code: "INVALID_INPUT" });
    });

    it("stores health snapshots until their TTL ends, visible to every handle", async () => {
      const { health: store, other, advance } = await create();
      await store.set(health("flowise"), 60_000);
      await store.set(health("langflow", "down"), 1000);
      expect(await other.health.get("flowise")).toEqual(health("flowise"));
      expect((await other.health.all()).map((h) => h.backendId).sort()).toEqual(["flowise", "langflow"]);
      await store.set(health("flowise", "slow"), 60_000);
      expect((await store.get("flowise"))?.status).toBe("slow");
      await advance(1001);
      await waitFor(async () => (await store.get("langflow")) === undefined, 4000);
      expect((await store.all()).map((h) => h.backendId)).toEqual(["flowise"]);
      expect(await store.get("nobody")).toBeUndefined();
    });

    it("stores circuit states, visible to every handle", async () => {
      const { circuits, other } = await create();
      expect(await circuits.get("flowise")).toBeUndefined();
      const open = { key: "flowise", state: "open" as const, failures: 5, openedAt: 10, nextProbeAt: 30_010, updatedAt: 10 };
      await circuits.set(open);
      await circuits.set({ key: "langflow:flow-1", state: "closed", failures: 0, updatedAt: 11 });
      expect(await other.circuits.get("flowise")).toEqual(open);
      await other.circuits.set({ ...open, state: "half-open", updatedAt: 20 });
      expect((await circuits.get("flowise"))?.state).toBe("half-open");
      expect((await circuits.all()).map((c) => c.key).sort()).toEqual(["flowise", "langflow:flow-1"]);
      await expect(circuits.set({ key: "x", state: "weird" } as never)).rejects.toMatchObject({ code: "INVALID_INPUT" });
    });
  });
}
