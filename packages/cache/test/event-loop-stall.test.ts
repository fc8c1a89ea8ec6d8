// A loaded machine stalls the event loop: timers that expired during the stall fire before the
// socket is read, so a Redis reply that came back in time used to be refused as a timeout (an MCP
// session registered at `initialize` was then "not found" by the next instance). The bound now
// counts only time the process could run, within STALL_ALLOWANCE times the bound.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestRedis } from "@afw/testing";
import { RedisConnection } from "../src/redis-connection.js";
import { RedisMcpSessionRegistry } from "../src/mcp-session-registry.js";

/** Blocks the event loop for `ms` (a synchronous task on a busy machine), without sleeping. */
function stallEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: no timer, no I/O callback runs meanwhile
  }
}

/**
 * Pings until one answers within the 100 ms bound: on a loaded machine the first connect alone can
 * take longer (the bound then rightly gives up), and what these tests need is a connected client.
 */
async function warmUp(connection: RedisConnection): Promise<boolean> {
  for (let attempt = 0; attempt < 50; attempt++) {
    if ((await connection.run("response-cache", "warm-up", (client) => client.ping())).ok) return true;
  }
  return false;
}

const redis = useTestRedis();
let connection: RedisConnection;
beforeAll(async () => {
  connection = new RedisConnection({ url: redis.url, operationTimeoutMs: 100 });
  expect(await warmUp(connection)).toBe(true);
});
afterAll(async () => {
  await connection.close();
});

describe("a Redis bound and an event-loop stall", () => {
  it("answers an operation whose reply arrived while the event loop was stalled past the bound", async () => {
    // Continues from a Redis reply (the poll phase), as a request handler does: the timers come next.
    await connection.run("response-cache", "set", (client) => client.set(`${redis.prefix}k`, "v"));
    const pending = connection.run("response-cache", "get", (client) => client.get(`${redis.prefix}k`));
    stallEventLoop(250);
    expect(await pending).toEqual({ ok: true, value: "v" });
  });

  it("keeps an MCP session registered at initialize when the event loop stalls during the write", async () => {
    const registry = new RedisMcpSessionRegistry({ connection, keyPrefix: redis.prefix });
    // Continue from a Redis reply (the poll phase), as a request handler does: the timers come next.
    await connection.run("mcp-session-registry", "ping", (client) => client.ping());
    const created = registry.create({ sessionId: "stalled-init", owner: "alice", protocolVersion: "2025-06-18", createdAt: 1, lastSeenAt: 1 }, { idleTtlMs: 60_000 });
    stallEventLoop(1_200);
    expect(await created).toBe(true);
    expect((await registry.touch("stalled-init", { owner: "alice", idleTtlMs: 60_000 })).status).toBe("found");
  });

  it("still fails an operation that Redis does not answer, within its stretched bound", async () => {
    // Its own connection: BLPOP holds it until Redis answers (after 2 s, with nothing to pop).
    const blocked = new RedisConnection({ url: redis.url, operationTimeoutMs: 100 });
    try {
      expect(await warmUp(blocked)).toBe(true);
      const pending = blocked.run("response-cache", "blpop", (client) => client.blpop(`${redis.prefix}never`, 2));
      stallEventLoop(150);
      expect((await pending).ok).toBe(false);
    } finally {
      await blocked.close();
    }
  });
});
