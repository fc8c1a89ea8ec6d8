// RedisCounters: a flush with nothing to send must not leave a settled flush "in flight" (a later
// read then awaited it forever, spinning the event loop's microtasks).
import { expect, it } from "vitest";
import { useTestRedis } from "@afw/testing";
import { RedisConnection } from "../src/redis-connection.js";
import { RedisCounters } from "../src/redis-counters.js";

const redis = useTestRedis();

it("reads the shared counters after a scheduled flush that had nothing to send", async () => {
  const connection = new RedisConnection({ url: redis.url, operationTimeoutMs: 2_000 });
  try {
    expect((await connection.run("response-cache", "connect", (client) => client.ping())).ok).toBe(true);
    const counters = new RedisCounters(connection, `${redis.prefix}counters`, 0);
    counters.add({});
    // Timers of one delay fire in the order they were set: the counters' flush runs first.
    await new Promise((resolve) => setTimeout(resolve, 0));
    counters.add({ hits: 2 });
    expect(await counters.read()).toEqual({ hits: "2" });
    expect(counters.local).toEqual({ hits: 2 });
  } finally {
    await connection.close();
  }
});
