import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { deleteRedisKeys, getTestRedis, type TestRedis } from "@afw/testing";
import { createRedisStores, type RedisStores, type RedisStoresOptions } from "../src/redis-stores.js";
import { type CacheStoreEvent } from "../src/store-events.js";
import { answer, conceptEmbedder, hashSlot, manualClock, turn, waitFor } from "./helpers.js";
import { describeResponseCacheSuite } from "./suites/response-cache.case.js";
import { describeSessionStoreSuite } from "./suites/session-store.case.js";
import { describeSharedStateSuite } from "./suites/shared-state.case.js";

let redis: TestRedis;
let filePrefix: string;
let admin: Redis;
let counter = 0;
// Functional tests use a generous bound so a loaded CI machine does not turn slow replies into
// misses; the degradation tests use the 100 ms default.
const OPERATION_TIMEOUT_MS = 2000;

beforeAll(async () => {
  redis = await getTestRedis();
  filePrefix = redis.prefix();
  admin = new Redis(redis.url, { lazyConnect: true });
  await admin.connect();
});

afterAll(async () => {
  await deleteRedisKeys(redis.url, filePrefix);
  admin.disconnect();
  await redis.dispose();
});

/** Stores on a fresh key prefix (one per test), so tests never see each other's keys. */
function openStores(options: Partial<RedisStoresOptions> = {}, prefix = `${filePrefix}${++counter}:`): RedisStores {
  return createRedisStores({ url: redis.url, keyPrefix: prefix, operationTimeoutMs: OPERATION_TIMEOUT_MS, ...options });
}

describeResponseCacheSuite("redis", async ({ semantic }) => {
  const events: CacheStoreEvent[] = [];
  const stores = openStores({ onEvent: (event) => events.push(event), ...(semantic ? { responseCache: { semantic } } : {}) });
  return {
    cache: stores.responseCache,
    events,
    advance: async () => {},
    writeRaw: async (key, raw) => {
      const ttl = await admin.pttl(key);
      await admin.set(key, raw, "PX", ttl > 0 ? ttl : 60_000);
    },
    close: () => stores.close(),
  };
});

describeSessionStoreSuite("redis", async (options) => {
  const prefix = `${filePrefix}${++counter}:`;
  const clock = manualClock(Date.now());
  const first = openStores({ sessions: options }, prefix);
  const second = openStores({ sessions: options }, prefix);
  // The suite's advance() moves the timestamps' clock; TTLs are real and kept by Redis.
  const { RedisSessionStore } = await import("../src/redis-session-store.js");
  const store = new RedisSessionStore({ ...options, connection: first.connection, keyPrefix: prefix, now: clock.now });
  const other = new RedisSessionStore({ ...options, connection: second.connection, keyPrefix: prefix, now: clock.now });
  return {
    store,
    second: other,
    advance: async (ms) => clock.advance(ms),
    close: async () => {
      await Promise.all([first.close(), second.close()]);
    },
  };
});

describeSharedStateSuite("redis", async () => {
  const prefix = `${filePrefix}${++counter}:`;
  const first = openStores({}, prefix);
  const second = openStores({}, prefix);
  return {
    performance: first.performanceStore,
    health: first.healthStore,
    circuits: first.circuitStateStore,
    other: { performance: second.performanceStore, health: second.healthStore, circuits: second.circuitStateStore },
    advance: async () => {},
    close: async () => {
      await Promise.all([first.close(), second.close()]);
    },
  };
});

describe("redis stores", () => {
  it("lay out keys under the prefix with hash tags that keep a session's and a group's keys in one slot", async () => {
    const prefix = `${filePrefix}${++counter}:`;
    const stores = openStores({ responseCache: { semantic: { enabled: true } } }, prefix);
    try {
      const sharedKey = { scope: "shared" as const, flowId: "flowise:faq", question: "What is MCP?" };
      const sessionKey = { scope: "session" as const, flowId: "flowise:faq", question: "What is MCP?", sessionId: "user:42" };
      expect(stores.responseCache.keyOf(sharedKey)).toMatch(new RegExp(`^${prefix}cache:\\{shared:flow:flowise%3Afaq\\}:q:[0-9a-f]{64}$`));
      await stores.responseCache.set(sharedKey, answer("x"), { ttlSeconds: 60, embedding: new Float32Array([1, 0]) });
      await stores.responseCache.set(sessionKey, answer("y"), { ttlSeconds: 60, embedding: new Float32Array([1, 0]) });
      await stores.sessionStore.append("user:42", turn(1));

      const keys: string[] = [];
      let cursor = "0";
      do {
        const [next, batch] = await admin.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 100);
        cursor = next;
        keys.push(...batch);
      } while (cursor !== "0");
      const sessionKeys = keys.filter((key) => key.includes("{user%3A42}"));
      // session turns + meta + turn ids, and the session-scoped answer, its index and group epoch
      expect(sessionKeys).toHaveLength(6);
      expect(new Set(sessionKeys.map(hashSlot)).size).toBe(1);
      const sharedGroup = keys.filter((key) => key.includes("{shared:flow:flowise%3Afaq}"));
      expect(sharedGroup).toHaveLength(3);
      expect(new Set(sharedGroup.map(hashSlot)).size).toBe(1);
      // A tenant's history (documents, word/tag/session sets) shares one slot: a search reads it with MGET.
      await stores.sessionStore.append("user:7", { ...turn(2), tags: ["project:x"] }, { tenant: "acme" });
      for (const tag of ["{h}", "{t:acme:h}"]) {
        const history = keys.concat(await admin.keys(`${prefix}history:*`)).filter((key) => key.includes(`history:${tag}:`));
        expect(history.length).toBeGreaterThanOrEqual(4);
        expect(new Set(history.map(hashSlot)).size).toBe(1);
      }
      expect(keys.every((key) => key.startsWith(prefix))).toBe(true);
      // CRC16 check against values Redis documents: CLUSTER KEYSLOT foo -> 12182
      expect(hashSlot("foo")).toBe(12_182);
      expect(hashSlot("{user1000}.following")).toBe(hashSlot("{user1000}.followers"));
    } finally {
      await stores.close();
    }
  });

  it("set the entry's Redis TTL from the flow type", async () => {
    const stores = openStores();
    try {
      const key = { scope: "shared" as const, flowId: "f", question: "q" };
      await stores.responseCache.set(key, answer("x"), { ttlSeconds: 30 * 86_400 });
      const ttl = await admin.pttl(stores.responseCache.keyOf(key));
      expect(ttl).toBeGreaterThan(30 * 86_400_000 - 60_000);
      expect(ttl).toBeLessThanOrEqual(30 * 86_400_000);
    } finally {
      await stores.close();
    }
  });

  it("share cache counters between instances", async () => {
    const prefix = `${filePrefix}${++counter}:`;
    const a = openStores({}, prefix);
    const b = openStores({}, prefix);
    try {
      const key = { scope: "shared" as const, flowId: "f", question: "q" };
      await a.responseCache.set(key, answer("x"), { ttlSeconds: 60 });
      await b.responseCache.get(key);
      await a.responseCache.get({ ...key, question: "other" });
      await b.responseCache.flushCounters();
      const stats = await a.responseCache.stats();
      expect(stats).toMatchObject({ hits: 1, misses: 1, writes: 1 });
      expect(stats.byFlow["f"]).toEqual({ hits: 1, misses: 1, writes: 1 });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("skip corrupt turns, samples and states on read and report them", async () => {
    const events: CacheStoreEvent[] = [];
    const stores = openStores({ onEvent: (event) => events.push(event) });
    try {
      await stores.sessionStore.append("s-1", turn(1));
      const { turns } = stores.sessionStore.keysOf("s-1");
      await admin.rpush(turns, "garbage", JSON.stringify({ question: 1 }));
      await stores.sessionStore.append("s-1", turn(2));
      expect((await stores.sessionStore.recent("s-1", 10)).map((t) => t.question)).toEqual(["q-1", "q-2"]);
      expect(events.filter((event) => event.type === "value-corrupt" && event.store === "session-store")).toHaveLength(2);

      await stores.performanceStore.record({ backendId: "b", latencyMs: 1, success: true, timestamp: 1 });
      await admin.rpush(stores.performanceStore.keyOf({ backendId: "b" }), "{}");
      expect(await stores.performanceStore.window({ backendId: "b" })).toHaveLength(1);

      await stores.circuitStateStore.set({ key: "b", state: "open", failures: 3, updatedAt: 1 });
      await admin.hset(stores.circuitStateStore.hashKey, "x", "not json");
      await admin.set(stores.healthStore.keyOf("b"), JSON.stringify({ backendId: "b" }));
      expect(await stores.healthStore.get("b")).toBeUndefined();
      expect((await stores.circuitStateStore.all()).map((state) => state.key)).toEqual(["b"]);
    } finally {
      await stores.close();
    }
  });

  it("keep a turn the history index could not take, and report it (cache-unavailable, history-index)", async () => {
    const prefix = `${filePrefix}${++counter}:`;
    const events: CacheStoreEvent[] = [];
    const stores = openStores({ onEvent: (event) => events.push(event) }, prefix);
    try {
      // A key of the wrong type where the tag's index goes: that ZADD fails inside the indexing pipeline.
      await admin.set(`${prefix}history:{h}:tag:blocked`, "not a sorted set");
      const result = await stores.sessionStore.append("s-1", { ...turn(1), question: "where is the falcon report?", tags: ["blocked"] });
      expect(result).toMatchObject({ saved: true });
      expect((await stores.sessionStore.recent("s-1", 10)).map((t) => t.question)).toEqual(["where is the falcon report?"]);
      const reported = events.filter((event) => event.type === "cache-unavailable" && event.operation === "history-index");
      expect(reported).toHaveLength(1);
      expect(reported[0]).toMatchObject({ store: "session-store", message: expect.stringMatching(/WRONGTYPE/) });
      // the rest of the index was written: the turn is found by its words
      const found = await stores.sessionStore.search!({ text: "falcon", mode: "keyword" });
      expect(found.hits.map((hit) => hit.turn.question)).toEqual(["where is the falcon report?"]);
    } finally {
      await stores.close();
    }
  });

  it("renew a session's TTL on every append", async () => {
    const stores = openStores({ sessions: { ttlMs: 60_000 } });
    try {
      await stores.sessionStore.append("s-1", turn(1));
      const { turns, meta } = stores.sessionStore.keysOf("s-1");
      await admin.pexpire(turns, 5_000);
      await admin.pexpire(meta, 5_000);
      await stores.sessionStore.append("s-1", turn(2));
      expect(await admin.pttl(turns)).toBeGreaterThan(50_000);
      expect(await admin.pttl(meta)).toBeGreaterThan(50_000);
    } finally {
      await stores.close();
    }
  });

  it("report health and close idempotently", async () => {
    const stores = openStores();
    const health = await stores.health();
    expect(health).toMatchObject({ ok: true, backend: "redis", mode: "standalone", status: "ready" });
    expect(health.latencyMs).toBeGreaterThanOrEqual(0);
    await stores.close();
    await stores.close();
    expect((await stores.health()).ok).toBe(false);
  });

  it("search a sketch log that was rewritten (compacted) after this process read it, reading afresh", async () => {
    const prefix = `${filePrefix}${++counter}:`;
    const stores = openStores({ sessions: { embedder: conceptEmbedder() } }, prefix);
    const store = stores.sessionStore;
    const meaning = async (text: string) => (await store.search!({ text, mode: "meaning" })).hits.map((hit) => hit.turn.question);
    try {
      await store.append("s-1", { question: "ship the falcon service", answer: "ok", askedAt: 1, answeredAt: 2 });
      await store.append("s-2", { question: "I forgot my password", answer: "reset", askedAt: 3, answeredAt: 4 });
      await waitFor(async () => (await meaning("deployment")).length === 1 && (await meaning("login")).length === 1);
      // A compaction keeps only live records, behind a new first record: drop the falcon turn's record (its vector
      // stays, so a search still holding the old copy of the log would find it).
      const log = `${prefix}history:{h}:sketches`;
      const raw = (await admin.getBuffer(log))!;
      const records = Array.from({ length: raw.length / 48 }, (_, r) => raw.subarray(r * 48, (r + 1) * 48));
      const [falconDoc] = await admin.keys(`${prefix}history:{h}:doc:*`).then(async (keys) => {
        const docs = await Promise.all(keys.map(async (key) => [key, await admin.get(key)] as const));
        return docs.filter(([, doc]) => doc!.includes("falcon")).map(([key]) => key);
      });
      const falconId = Buffer.from(falconDoc!.slice(falconDoc!.lastIndexOf(":") + 1).replace(/-/g, ""), "hex");
      const kept = records.filter((record) => !record.subarray(32).equals(falconId));
      expect(kept).toHaveLength(records.length - 1);
      await admin.set(log, Buffer.concat([Buffer.alloc(48, 7), ...kept]));
      expect(await meaning("deployment")).toEqual([]);
      expect(await meaning("login")).toEqual(["I forgot my password"]);
      // Appends after the rewrite are read as the log's tail.
      await store.append("s-3", { question: "rollout of version 2", answer: "tomorrow", askedAt: 5, answeredAt: 6 });
      await waitFor(async () => (await meaning("deployment")).length === 1);
      expect(await meaning("deployment")).toEqual(["rollout of version 2"]);
      // A log that expired (deleted) holds nothing.
      await admin.del(log);
      expect(await meaning("login")).toEqual([]);
    } finally {
      await stores.close();
    }
  });
});
