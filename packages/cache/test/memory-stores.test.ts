import { describe, expect, it } from "vitest";
import { MemoryResponseCache, type MemoryCacheRecord } from "../src/memory-response-cache.js";
import { MemorySessionStore } from "../src/memory-session-store.js";
import { createMemoryStores } from "../src/memory-stores.js";
import { createMemoryCircuitStateStore, createMemoryHealthStore, createMemoryPerformanceStore } from "../src/shared-state-stores.js";
import { type CacheStoreEvent } from "../src/store-events.js";
import { answer, manualClock, turn } from "./helpers.js";
import { describeResponseCacheSuite } from "./suites/response-cache.case.js";
import { describeSessionStoreSuite } from "./suites/session-store.case.js";
import { describeSharedStateSuite } from "./suites/shared-state.case.js";

describeResponseCacheSuite("memory", async ({ semantic }) => {
  const clock = manualClock();
  const events: CacheStoreEvent[] = [];
  const storage = new Map<string, MemoryCacheRecord>();
  const cache = new MemoryResponseCache({ now: clock.now, storage, onEvent: (event) => events.push(event), ...(semantic ? { semantic } : {}) });
  return {
    cache,
    events,
    advance: async (ms) => clock.advance(ms),
    writeRaw: async (key, raw) => {
      const record = storage.get(key);
      if (!record) throw new Error(`no record at ${key}`);
      record.value = raw;
    },
    close: async () => {},
  };
});

describeSessionStoreSuite("memory", async (options) => {
  const clock = manualClock();
  const store = new MemorySessionStore({ ...options, now: clock.now });
  return { store, second: store, advance: async (ms) => clock.advance(ms), close: async () => {} };
});

describeSharedStateSuite("memory", async () => {
  const clock = manualClock();
  const performance = createMemoryPerformanceStore();
  const health = createMemoryHealthStore({ now: clock.now });
  const circuits = createMemoryCircuitStateStore();
  return { performance, health, circuits, other: { performance, health, circuits }, advance: async (ms) => clock.advance(ms), close: async () => {} };
});

describe("memory stores", () => {
  it("expire cache entries exactly at their TTL on the injected clock", async () => {
    const clock = manualClock();
    const cache = new MemoryResponseCache({ now: clock.now });
    const key = { scope: "shared" as const, flowId: "f", question: "q" };
    await cache.set(key, answer("x"), { ttlSeconds: 7 * 86_400 });
    clock.advance(7 * 86_400_000 - 1);
    expect((await cache.get(key)).hit).toBe(true);
    clock.advance(1);
    expect(await cache.get(key)).toEqual({ hit: false, reason: "expired" });
  });

  it("evict the least recently used entries past maxEntries", async () => {
    const cache = new MemoryResponseCache({ maxEntries: 2 });
    const key = (question: string) => ({ scope: "shared" as const, flowId: "f", question });
    await cache.set(key("a"), answer("a"), { ttlSeconds: 60 });
    await cache.set(key("b"), answer("b"), { ttlSeconds: 60 });
    await cache.get(key("a"));
    await cache.set(key("c"), answer("c"), { ttlSeconds: 60 });
    expect((await cache.get(key("a"))).hit).toBe(true);
    expect((await cache.get(key("b"))).hit).toBe(false);
    expect((await cache.get(key("c"))).hit).toBe(true);
  });

  it("return copies: mutating a returned turn or entry does not change the store", async () => {
    const stores = createMemoryStores();
    await stores.sessionStore.append("s", turn(1));
    const [first] = await stores.sessionStore.recent("s", 1);
    first!.question = "changed";
    expect((await stores.sessionStore.recent("s", 1))[0]?.question).toBe("q-1");
    const key = { scope: "shared" as const, flowId: "f", question: "q" };
    await stores.responseCache.set(key, answer("original"), { ttlSeconds: 60 });
    const lookup = await stores.responseCache.get(key);
    if (lookup.hit) lookup.entry.result.result = "changed";
    const again = await stores.responseCache.get(key);
    expect(again.hit && again.entry.result.result).toBe("original");
    expect(await stores.health()).toMatchObject({ ok: true, backend: "memory" });
    await stores.close();
  });

  it("slide a session's TTL on every append", async () => {
    const clock = manualClock();
    const store = new MemorySessionStore({ ttlMs: 1000, now: clock.now });
    await store.append("s", turn(1));
    clock.advance(900);
    await store.append("s", turn(2));
    clock.advance(900);
    expect((await store.get("s"))?.turns).toBe(2);
    clock.advance(100);
    expect(await store.get("s")).toBeUndefined();
  });

  it("evict the least recently updated sessions past maxSessions", async () => {
    const store = new MemorySessionStore({ maxSessions: 2 });
    await store.append("a", turn(1));
    await store.append("b", turn(1));
    await store.append("a", turn(2));
    await store.append("c", turn(1));
    expect(await store.get("b")).toBeUndefined();
    expect((await store.get("a"))?.turns).toBe(2);
  });
});
