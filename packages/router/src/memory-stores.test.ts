import { describe, expect, it } from "vitest";
import { createInMemoryCircuitStateStore, createInMemoryHealthStore, createInMemoryPerformanceStore } from "./memory-stores.js";

describe("in-memory stores", () => {
  it("keeps the last windowSize samples per backend and per flow", async () => {
    const store = createInMemoryPerformanceStore({ windowSize: 3 });
    for (let i = 0; i < 5; i++) await store.record({ backendId: "b", flowId: i % 2 ? "b:x" : "b:y", latencyMs: i, success: true, timestamp: i });
    expect((await store.window({ backendId: "b" })).map((s) => s.latencyMs)).toEqual([2, 3, 4]);
    expect((await store.window({ backendId: "b", flowId: "b:x" })).map((s) => s.latencyMs)).toEqual([1, 3]);
    expect((await store.targets()).length).toBe(3);
  });
  it("defaults to a window of 100", async () => {
    const store = createInMemoryPerformanceStore();
    for (let i = 0; i < 130; i++) await store.record({ backendId: "b", latencyMs: i, success: true, timestamp: i });
    const w = await store.window({ backendId: "b" });
    expect(w.length).toBe(100);
    expect(w[0]!.latencyMs).toBe(30);
  });
  it("expires health snapshots after their TTL", async () => {
    let now = 0;
    const store = createInMemoryHealthStore({ now: () => now });
    await store.set({ backendId: "b", kind: "flowise", status: "healthy", latencyMs: 1, checkedAt: new Date(0).toISOString() }, 100);
    expect((await store.get("b"))?.status).toBe("healthy");
    now = 100;
    expect(await store.get("b")).toBeUndefined();
    expect(await store.all()).toEqual([]);
  });
  it("stores circuit states by key, as copies", async () => {
    const store = createInMemoryCircuitStateStore();
    const state = { key: "b", state: "open" as const, failures: 5, updatedAt: 1 };
    await store.set(state);
    state.failures = 99;
    expect((await store.get("b"))?.failures).toBe(5);
    expect(await store.get("other")).toBeUndefined();
  });
});
