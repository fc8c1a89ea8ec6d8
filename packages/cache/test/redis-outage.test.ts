import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { closeAfter, freePort, startRedisServer, type RedisServerHandle } from "@afw/testing";
import { createRedisStores } from "../src/redis-stores.js";
import { type CacheStoreEvent } from "../src/store-events.js";
import { answer, recordingTrace, turn, waitFor } from "./helpers.js";

const OPERATION_TIMEOUT_MS = 100;
// What "within the bound" means on a busy 2-core CI machine: the 100 ms budget plus scheduling slack.
const BOUND_MS = OPERATION_TIMEOUT_MS + 150;

async function timed<T>(operation: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await operation();
  return { value, ms: performance.now() - started };
}

const key = (question: string) => ({ scope: "shared" as const, flowId: "flowise:faq", question });
const health = { backendId: "flowise", kind: "flowise", status: "healthy" as const, latencyMs: 5, checkedAt: new Date().toISOString() };

describe("Redis outage (private redis-server, stopped and restarted)", () => {
  let server: RedisServerHandle;
  const track = closeAfter();
  const openStores = (url: string, onEvent?: (event: CacheStoreEvent) => void, trace = recordingTrace().trace) =>
    track(createRedisStores({ url, operationTimeoutMs: OPERATION_TIMEOUT_MS, reconnect: { initialDelayMs: 20, maxDelayMs: 200 }, trace, ...(onEvent ? { onEvent } : {}) }));

  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server.dispose();
  });

  it("degrades every store to a miss or no-op within the bound while Redis is down, then resumes by itself", async () => {
    const events: CacheStoreEvent[] = [];
    const recorded = recordingTrace();
    const stores = openStores(server.url, (event) => events.push(event), recorded.trace);
    await waitFor(async () => (await stores.health()).ok, 10_000);
    expect(await stores.responseCache.set(key("before"), answer("cached"), { ttlSeconds: 60 })).toBe(true);
    expect((await stores.responseCache.get(key("before"))).hit).toBe(true);
    expect(await stores.sessionStore.append("s-1", turn(1))).toEqual({ saved: true, buffered: false, totalTurns: 1 });

    await server.stop();

    const checks: Array<[string, () => Promise<unknown>, unknown]> = [
      ["cache.get", () => stores.responseCache.get(key("before")), { hit: false, reason: "unavailable" }],
      ["cache.set", () => stores.responseCache.set(key("during"), answer("x"), { ttlSeconds: 60 }), false],
      ["cache.invalidate", () => stores.responseCache.invalidate({ flowId: "flowise:faq" }), 0],
      // The turn is kept in the write-behind buffer, and reads on this instance include it.
      ["session.append", () => stores.sessionStore.append("s-1", turn(2)), { saved: true, buffered: true }],
      ["session.recent", () => stores.sessionStore.recent("s-1", 5), [turn(2)]],
      ["session.get", () => stores.sessionStore.get("s-1").then((s) => s?.turnsList), [turn(2)]],
      ["session.list", () => stores.sessionStore.list("*"), []],
      ["session.delete", () => stores.sessionStore.delete("s-1"), false],
      ["performance.record", () => stores.performanceStore.record({ backendId: "flowise", latencyMs: 1, success: true, timestamp: 1 }), undefined],
      ["performance.window", () => stores.performanceStore.window({ backendId: "flowise" }), []],
      ["performance.targets", () => stores.performanceStore.targets(), []],
      ["health.set", () => stores.healthStore.set(health, 10_000), undefined],
      ["health.get", () => stores.healthStore.get("flowise"), undefined],
      ["health.all", () => stores.healthStore.all(), []],
      ["circuits.set", () => stores.circuitStateStore.set({ key: "flowise", state: "open", failures: 1, updatedAt: 1 }), undefined],
      ["circuits.get", () => stores.circuitStateStore.get("flowise"), undefined],
      ["circuits.all", () => stores.circuitStateStore.all(), []],
    ];
    for (const [name, operation, expected] of checks) {
      const { value, ms } = await timed(operation);
      expect(value, name).toEqual(expected);
      expect(ms, `${name} took ${ms.toFixed(1)} ms`).toBeLessThan(BOUND_MS);
    }
    const stats = await timed(() => stores.responseCache.stats());
    expect(stats.ms).toBeLessThan(2 * BOUND_MS);
    expect(stats.value.errors).toBeGreaterThanOrEqual(2);
    expect((await stores.health()).ok).toBe(false);

    const unavailable = events.filter((event) => event.type === "cache-unavailable");
    expect(new Set(unavailable.map((event) => event.store))).toEqual(
      new Set(["response-cache", "session-store", "performance-store", "health-store", "circuit-state-store", "connection"]),
    );
    expect(recorded.events.some((event) => event.type === "cache-unavailable" && event.operation === "response-cache.get")).toBe(true);

    await server.restart();
    // The client reconnects with backoff; poll until a write is acknowledged again.
    await waitFor(async () => (await stores.responseCache.set(key("after"), answer("back"), { ttlSeconds: 60 })) === true, 10_000);
    const lookup = await stores.responseCache.get(key("after"));
    expect(lookup.hit && lookup.entry.result.result).toBe("back");
    expect(await stores.sessionStore.append("s-2", turn(1))).toEqual({ saved: true, buffered: false, totalTurns: 1 });
    // The turn buffered during the outage was replayed (this server keeps no data across restarts,
    // so turn 1 is gone with it; the AOF case is in session-write-behind.test.ts).
    await waitFor(() => stores.sessionStore.bufferedTurns === 0, 10_000);
    expect((await stores.sessionStore.get("s-1"))?.turnsList).toEqual([turn(2)]);
    expect(events.some((event) => event.type === "session-turns-replayed")).toBe(true);
    expect(events.some((event) => event.type === "cache-recovered")).toBe(true);
    // Counters incremented while Redis was away reach the shared hash after it returns.
    expect((await stores.responseCache.stats()).errors).toBeGreaterThanOrEqual(2);
    expect((await stores.health()).ok).toBe(true);
  });

  it("bounds operations on a Redis that stops answering (CLIENT PAUSE) and recovers when it answers again", async () => {
    const stores = openStores(server.url);
    await waitFor(async () => (await stores.health()).ok, 10_000);
    expect(await stores.responseCache.set(key("slow"), answer("x"), { ttlSeconds: 60 })).toBe(true);
    const admin = new Redis(server.url);
    try {
      await admin.call("CLIENT", "PAUSE", "1000", "ALL");
      const get = await timed(() => stores.responseCache.get(key("slow")));
      expect(get.value).toEqual({ hit: false, reason: "unavailable" });
      expect(get.ms).toBeLessThan(BOUND_MS);
      // An append waits longer (its own bound), then keeps the turn in the buffer if it must.
      expect((await stores.sessionStore.append("s-slow", turn(1))).saved).toBe(true);
      await waitFor(async () => (await stores.responseCache.get(key("slow"))).hit, 10_000);
      await waitFor(() => stores.sessionStore.bufferedTurns === 0, 10_000);
      expect((await stores.sessionStore.get("s-slow"))?.turnsList).toEqual([turn(1)]);
    } finally {
      admin.disconnect();
    }
  });

  it("answers within the bound when Redis is unreachable from the start, and connects once it appears", async () => {
    const port = await freePort();
    const stores = openStores(`redis://127.0.0.1:${port}`);
    const get = await timed(() => stores.responseCache.get(key("q")));
    expect(get.value).toEqual({ hit: false, reason: "unavailable" });
    expect(get.ms).toBeLessThan(BOUND_MS);
    const late = await startRedisServer({ port });
    try {
      await waitFor(async () => (await stores.responseCache.set(key("q"), answer("x"), { ttlSeconds: 60 })) === true, 10_000);
      expect((await stores.responseCache.get(key("q"))).hit).toBe(true);
    } finally {
      await stores.close();
      await late.dispose();
    }
  });
});

describe("Redis durability (append-only file)", () => {
  it("keeps every acknowledged session append across kill -9 and restart", async () => {
    const server = await startRedisServer({ appendOnly: true });
    const stores = createRedisStores({ url: server.url, operationTimeoutMs: 2000, reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
    try {
      const acknowledged: string[] = [];
      for (let i = 0; i < 30; i++) {
        if ((await stores.sessionStore.append("durable", turn(i))).totalTurns !== undefined) acknowledged.push(`q-${i}`);
      }
      expect(acknowledged).toHaveLength(30);
      await server.stop({ kill: true });
      await server.restart();
      await waitFor(async () => (await stores.sessionStore.get("durable")) !== undefined, 10_000);
      const session = await stores.sessionStore.get("durable");
      expect(session?.turnsList.map((t) => t.question)).toEqual(acknowledged);
    } finally {
      await stores.close();
      await server.dispose();
    }
  });
});
