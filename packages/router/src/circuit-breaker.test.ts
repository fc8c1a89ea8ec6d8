import { describe, expect, it } from "vitest";
import { createCircuitBreaker } from "./circuit-breaker.js";
import { createMemoryCircuitStateStore } from "@afw/cache";
import { collectingTrace } from "../test/fake-backend.js";

describe("circuit breaker over a CircuitStateStore", () => {
  const setup = () => {
    let now = 1_000;
    const store = createMemoryCircuitStateStore();
    const clock = { now: () => now, advance: (ms: number) => (now += ms) };
    const breaker = createCircuitBreaker({ store, failureThreshold: 3, cooldownMs: 10_000, now: clock.now, syncIntervalMs: 0 });
    return { store, clock, breaker };
  };

  it("opens after the threshold of consecutive failures and skips at zero cost", async () => {
    const { breaker, store } = setup();
    const trace = collectingTrace();
    await breaker.recordFailure("flowise", trace);
    await breaker.recordFailure("flowise", trace);
    expect(breaker.isOpen("flowise")).toBe(false);
    expect(await breaker.acquire("flowise")).toBe(true);
    await breaker.recordFailure("flowise", trace);
    expect(breaker.isOpen("flowise")).toBe(true);
    expect(await breaker.acquire("flowise")).toBe(false);
    expect((await store.get("flowise"))?.state).toBe("open");
    expect(trace.ofType("circuit-opened")[0]).toMatchObject({ key: "flowise", backendId: "flowise", failures: 3, cooldownMs: 10_000 });
  });

  it("a success resets the consecutive count", async () => {
    const { breaker } = setup();
    await breaker.recordFailure("b");
    await breaker.recordFailure("b");
    await breaker.recordSuccess("b");
    await breaker.recordFailure("b");
    await breaker.recordFailure("b");
    expect(breaker.isOpen("b")).toBe(false);
  });

  it("half-opens after the cooldown, admits a single probe, closes on its success", async () => {
    const { breaker, clock } = setup();
    const trace = collectingTrace();
    for (let i = 0; i < 3; i++) await breaker.recordFailure("b");
    clock.advance(10_000);
    expect(breaker.isOpen("b")).toBe(false);
    expect(await breaker.acquire("b", trace)).toBe(true);
    expect((await breaker.state("b")).state).toBe("half-open");
    expect(await breaker.acquire("b", trace)).toBe(false); // probe in flight
    await breaker.recordSuccess("b", trace);
    expect((await breaker.state("b")).state).toBe("closed");
    expect(trace.ofType("circuit-half-opened")).toHaveLength(1);
    expect(trace.ofType("circuit-closed")).toHaveLength(1);
  });

  it("reopens when the probe fails", async () => {
    const { breaker, clock } = setup();
    for (let i = 0; i < 3; i++) await breaker.recordFailure("b");
    clock.advance(10_001);
    expect(await breaker.acquire("b")).toBe(true);
    await breaker.recordFailure("b");
    const s = await breaker.state("b");
    expect(s.state).toBe("open");
    expect(s.nextProbeAt).toBe(s.openedAt! + 10_000);
  });

  it("shares state between instances through the store", async () => {
    const { store, clock } = setup();
    const a = createCircuitBreaker({ store, failureThreshold: 1, cooldownMs: 10_000, now: clock.now, syncIntervalMs: 0 });
    const b = createCircuitBreaker({ store, failureThreshold: 1, cooldownMs: 10_000, now: clock.now, syncIntervalMs: 0 });
    await a.recordFailure("langflow");
    expect(await b.acquire("langflow")).toBe(false);
    await b.sync();
    expect(b.isOpen("langflow")).toBe(true);
  });

  it("keys flows as <backendId>:<flow> and reports both ids", async () => {
    const { breaker } = setup();
    const trace = collectingTrace();
    for (let i = 0; i < 3; i++) await breaker.recordFailure("flowise:abc", trace);
    expect(trace.ofType("circuit-opened")[0]).toMatchObject({ backendId: "flowise", flowId: "flowise:abc" });
    expect(breaker.isOpen("flowise")).toBe(false);
  });
});
