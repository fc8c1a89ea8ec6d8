import { createServer, connect, type Server, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { freePort, useTestRedis } from "@afw/testing";
import { createMemoryStores } from "../src/memory-stores.js";
import { RedisConnection } from "../src/redis-connection.js";
import { MemoryMcpSessionRegistry, RedisMcpSessionRegistry } from "../src/mcp-session-registry.js";
import { createRedisStores, type RedisStores } from "../src/redis-stores.js";
import { type CacheStoreEvent } from "../src/store-events.js";
import { hashSlot, manualClock } from "./helpers.js";
import { describeMcpSessionRegistrySuite } from "./suites/mcp-session-registry.case.js";

const record = { sessionId: "s-1", owner: "alice", protocolVersion: "2025-06-18", createdAt: 1, lastSeenAt: 1 };

describeMcpSessionRegistrySuite("memory", async () => {
  const clock = manualClock();
  const registry = new MemoryMcpSessionRegistry({ now: clock.now });
  return { registry, other: registry, advance: async (ms) => clock.advance(ms), realTime: false, close: async () => {} };
});

const redis = useTestRedis();
let counter = 0;

const openStores = (prefix: string, onEvent?: (event: CacheStoreEvent) => void): RedisStores =>
  createRedisStores({ url: redis.url, keyPrefix: prefix, operationTimeoutMs: 2000, ...(onEvent ? { onEvent } : {}) });

describeMcpSessionRegistrySuite("redis", async () => {
  const prefix = `${redis.prefix}${++counter}:`;
  const first = openStores(prefix);
  const second = openStores(prefix);
  return {
    registry: first.mcpSessionRegistry,
    other: second.mcpSessionRegistry,
    // TTLs are kept by Redis in real time.
    advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    realTime: true,
    close: async () => {
      await Promise.all([first.close(), second.close()]);
    },
  };
});

describe("MCP session registry wiring", () => {
  it("createMemoryStores exposes a registry on the shared clock", async () => {
    const clock = manualClock();
    const stores = createMemoryStores({ now: clock.now });
    await stores.mcpSessionRegistry.create(record, { idleTtlMs: 1000 });
    clock.advance(999);
    expect((await stores.mcpSessionRegistry.get("s-1")).status).toBe("found");
    clock.advance(1);
    expect((await stores.mcpSessionRegistry.get("s-1")).status).toBe("absent");
  });

  it("keeps at most maxSessions in memory, dropping the least recently seen", async () => {
    const registry = new MemoryMcpSessionRegistry({ maxSessions: 2 });
    for (const id of ["a", "b"]) await registry.create({ ...record, sessionId: id }, { idleTtlMs: 60_000 });
    await registry.touch("a", { owner: "alice", idleTtlMs: 60_000 });
    await registry.create({ ...record, sessionId: "c" }, { idleTtlMs: 60_000 });
    expect((await registry.get("b")).status).toBe("absent");
    expect((await registry.get("a")).status).toBe("found");
    expect((await registry.get("c")).status).toBe("found");
  });

  it("lays a session out as one hash under the key prefix, in its own hash-tag slot, with a TTL", async () => {
    const prefix = `${redis.prefix}${++counter}:`;
    const stores = openStores(prefix);
    const admin = new Redis(redis.url);
    try {
      await stores.mcpSessionRegistry.create({ ...record, sessionId: "id:{x}" }, { idleTtlMs: 60_000 });
      const key = stores.mcpSessionRegistry.keyOf("id:{x}");
      expect(key).toBe(`${prefix}mcp-session:{id%3A%7Bx%7D}`);
      expect(hashSlot(key)).toBe(hashSlot("id%3A%7Bx%7D"));
      expect(await admin.hgetall(key)).toMatchObject({ owner: "alice", lastSeenAt: "1" });
      const ttl = await admin.pttl(key);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
      await admin.hset(key, "record", "{not json");
      const events: CacheStoreEvent[] = [];
      const watching = openStores(prefix, (event) => events.push(event));
      expect(await watching.mcpSessionRegistry.get("id:{x}")).toEqual({ status: "absent" });
      expect(events).toContainEqual(expect.objectContaining({ type: "value-corrupt", store: "mcp-session-registry", key }));
      await watching.close();
    } finally {
      admin.disconnect();
      await stores.close();
    }
  });

  it("resolves unavailable / false / undefined within the bound when Redis cannot be reached", async () => {
    const port = await freePort();
    const events: CacheStoreEvent[] = [];
    const stores = createRedisStores({ url: `redis://127.0.0.1:${port}`, operationTimeoutMs: 100, onEvent: (event) => events.push(event) });
    try {
      expect(await stores.mcpSessionRegistry.create(record, { idleTtlMs: 1000 })).toBe(false);
      expect(await stores.mcpSessionRegistry.get("s-1")).toMatchObject({ status: "unavailable" });
      expect(await stores.mcpSessionRegistry.touch("s-1", { owner: "alice", idleTtlMs: 1000 })).toMatchObject({ status: "unavailable" });
      expect(await stores.mcpSessionRegistry.delete("s-1")).toBeUndefined();
      expect(events.filter((event) => event.type === "cache-unavailable" && event.store === "mcp-session-registry").map((event) => "operation" in event && event.operation)).toEqual([
        "create",
        "get",
        "touch",
        "delete",
      ]);
    } finally {
      await stores.close();
    }
  });

  it("rides out a stalled Redis reply within its own 1 s bound, where a cache-sized bound refuses, and refuses past it", async () => {
    const proxy = await stallingProxy(new URL(redis.url));
    const prefix = `${redis.prefix}${++counter}:`;
    const connection = new RedisConnection({ url: proxy.url, operationTimeoutMs: 50 });
    const registry = new RedisMcpSessionRegistry({ connection, keyPrefix: prefix });
    try {
      expect(await registry.create({ ...record, sessionId: "stalled" }, { idleTtlMs: 60_000 })).toBe(true);
      // Replies held back for 200 ms: every 50 ms attempt times out until the stall ends.
      proxy.stall(200);
      const started = performance.now();
      const lookup = await registry.touch("stalled", { owner: "alice", idleTtlMs: 60_000 });
      expect(lookup.status).toBe("found");
      expect(performance.now() - started).toBeGreaterThanOrEqual(150);
      // Held back far beyond the 1 s bound, so a busy host's delay cannot end the stall before the reply.
      proxy.stall(3_000);
      expect((await registry.touch("stalled", { owner: "alice", idleTtlMs: 60_000 })).status).toBe("unavailable");
    } finally {
      await connection.close();
      await proxy.close();
    }
  });

  it("refuses at once, not after its bound, when the first connection attempt has failed", async () => {
    const port = await freePort();
    const connection = new RedisConnection({ url: `redis://127.0.0.1:${port}`, operationTimeoutMs: 30_000 });
    const registry = new RedisMcpSessionRegistry({ connection });
    try {
      // The first attempt is refused: from then on the client is reconnecting.
      await new Promise<void>((resolve) => connection.client.once("reconnecting", () => resolve()));
      const started = performance.now();
      expect((await registry.touch("s-1", { owner: "alice", idleTtlMs: 1000 })).status).toBe("unavailable");
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      await connection.close();
    }
  });
});

/** A TCP proxy to Redis whose replies can be held back for a while (a stalled server or link). */
async function stallingProxy(target: URL): Promise<{ url: string; stall: (ms: number) => void; close: () => Promise<void> }> {
  let stalledUntil = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((downstream) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    sockets.add(downstream).add(upstream);
    downstream.pipe(upstream);
    upstream.on("data", (chunk: Buffer) => {
      const wait = stalledUntil - Date.now();
      if (wait <= 0) downstream.write(chunk);
      else {
        upstream.pause();
        setTimeout(() => {
          downstream.write(chunk);
          upstream.resume();
        }, wait);
      }
    });
    const end = () => {
      downstream.destroy();
      upstream.destroy();
    };
    downstream.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("proxy has no port");
  const url = new URL(target.href);
  url.hostname = "127.0.0.1";
  url.port = String(address.port);
  return {
    url: url.href,
    stall: (ms) => {
      stalledUntil = Date.now() + ms;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
