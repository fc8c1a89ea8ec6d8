import { afterEach, describe, expect, it, vi } from "vitest";
import { createFlowDiscoveryCache } from "./flow-discovery-cache.js";
import { createHealthCache } from "./health-cache.js";
import { createMemoryHealthStore, createMemoryPerformanceStore } from "@afw/cache";
import { createPerformanceTracker } from "./performance-tracker.js";
import { collectingTrace, createFakeBackend, toFlows } from "../test/fake-backend.js";

describe("flow discovery cache", () => {
  it("serves a fresh list from memory and refreshes an expired one in the background", async () => {
    let now = 0;
    const backend = createFakeBackend({ id: "a", discover: (call) => toFlows("a", "flowise", [{ id: `v${call}` }]) });
    const cache = createFlowDiscoveryCache({ now: () => now });
    expect((await cache.get(backend)).map((f) => f.backendFlowId)).toEqual(["v1"]);
    expect((await cache.get(backend)).map((f) => f.backendFlowId)).toEqual(["v1"]);
    expect(backend.discoveries).toBe(1);
    now = 300_000;
    expect((await cache.get(backend)).map((f) => f.backendFlowId)).toEqual(["v1"]); // stale served at once
    await cache.refresh(backend); // joins the background refresh
    expect(cache.peek(backend)!.map((f) => f.backendFlowId)).toEqual(["v2"]);
    expect(backend.discoveries).toBe(2);
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it("keeps serving the stale list when discovery fails or times out", async () => {
    let now = 0;
    const trace = collectingTrace();
    const backend = createFakeBackend({
      id: "a",
      discover: (call, signal) => {
        if (call === 1) return toFlows("a", "flowise", [{ id: "good" }]);
        if (call === 2) throw new Error("boom");
        return new Promise((_, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted"))));
      },
    });
    const cache = createFlowDiscoveryCache({ now: () => now, trace });
    await cache.get(backend);
    now = 500_000;
    expect((await cache.refresh(backend)).map((f) => f.backendFlowId)).toEqual(["good"]);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const timedOut = cache.refresh(backend);
    await vi.advanceTimersByTimeAsync(10_000);
    expect((await timedOut).map((f) => f.backendFlowId)).toEqual(["good"]);
    const events = trace.ofType("flows-discovered");
    expect(events.map((e) => e.stale)).toEqual([false, true, true]);
  });

  it("rejects when there is no list at all and discovery fails", async () => {
    const backend = createFakeBackend({ id: "a", discover: () => Promise.reject(new Error("down")) });
    await expect(createFlowDiscoveryCache().get(backend)).rejects.toThrow("down");
  });
});

describe("health cache", () => {
  it("peek answers from the last snapshot without waiting and refreshes a stale one in the background", async () => {
    let now = 0;
    const trace = collectingTrace();
    const backend = createFakeBackend({ id: "a" });
    const cache = createHealthCache({ ttlMs: 100, now: () => now, trace });
    expect(cache.peek(backend)).toBeUndefined();
    expect((await cache.get(backend)).status).toBe("healthy");
    backend.setHealth("down");
    now = 100;
    expect(cache.peek(backend)?.status).toBe("healthy"); // stale, served without waiting
    expect(backend.healthChecks).toBe(1); // the refresh is in flight
    await cache.get(backend);
    expect(cache.peek(backend)?.status).toBe("down");
    expect(trace.ofType("health-checked").map((e) => e.status)).toEqual(["healthy", "down"]);
  });

  it("uses a fresh snapshot another instance wrote to the shared store instead of probing", async () => {
    const store = createMemoryHealthStore();
    const backend = createFakeBackend({ id: "a" });
    await createHealthCache({ store }).get(backend);
    const other = createHealthCache({ store });
    expect((await other.get(backend)).status).toBe("healthy");
    expect(backend.healthChecks).toBe(1);
  });

  it("reports a probe that hangs as down after the probe timeout", async () => {
    const backend = createFakeBackend({ id: "a" });
    backend.checkHealth = () => new Promise(() => {});
    const health = await createHealthCache({ probeTimeoutMs: 20 }).get(backend);
    expect(health).toMatchObject({ status: "down", errorCode: "BACKEND_TIMEOUT" });
  });
});

describe("performance tracker", () => {
  it("serves summaries synchronously and updates them on record", async () => {
    const tracker = createPerformanceTracker({ store: createMemoryPerformanceStore() });
    const target = { backendId: "a", flowId: "a:x" };
    expect(tracker.summary(target).score).toBe(0.5);
    for (let i = 0; i < 10; i++) await tracker.record({ ...target, latencyMs: 50, success: true, timestamp: Date.now() });
    expect(tracker.summary(target).score).toBeGreaterThan(0.8);
    expect(tracker.summary({ backendId: "a" }).samples).toBe(10);
  });
});
