import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { closeAfter, startRedisServer, type RedisServerHandle } from "@afw/testing";
import type { SessionAppendResult } from "@afw/contracts";
import { createRedisStores, type RedisStoresOptions } from "../src/redis-stores.js";
import { type CacheStoreEvent } from "../src/store-events.js";
import { turn, waitFor } from "./helpers.js";

describe("session turns survive a Redis outage (write-behind buffer, idempotent replay)", () => {
  let server: RedisServerHandle;
  const track = closeAfter();
  let opened = 0;
  const openStores = (sessions: RedisStoresOptions["sessions"] = {}, onEvent?: (event: CacheStoreEvent) => void) =>
    track(
      createRedisStores({
        url: server.url,
        keyPrefix: `wb-${opened++}-${Date.now()}:`,
        reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
        sessions: { maxTurns: 1000, replayIntervalMs: 50, ...sessions },
        ...(onEvent ? { onEvent } : {}),
      }),
    );

  beforeAll(async () => {
    server = await startRedisServer({ appendOnly: true });
  });
  afterAll(async () => {
    await server.dispose();
  });

  it("keeps every turn appended while Redis is killed, in order per session, and replays them after the restart", async () => {
    const events: CacheStoreEvent[] = [];
    const stores = openStores({}, (event) => events.push(event));
    await waitFor(async () => (await stores.health()).ok, 10_000);
    const sessions = ["a", "b", "c"];
    const appended = new Map<string, string[]>(sessions.map((id) => [id, []]));
    const outcomes: SessionAppendResult[] = [];
    let n = 0;
    const appendRound = async () => {
      await Promise.all(
        sessions.map(async (id) => {
          const t = turn(n++, id);
          const outcome = await stores.sessionStore.append(id, t);
          outcomes.push(outcome);
          if (outcome.saved) appended.get(id)!.push(t.question);
        }),
      );
    };
    for (let i = 0; i < 5; i++) await appendRound();

    await server.stop({ kill: true });
    for (let i = 0; i < 20; i++) await appendRound();
    // Read-your-writes while Redis is away: the buffered turns are visible on this instance.
    expect((await stores.sessionStore.recent("a", 3)).map((t) => t.question)).toEqual(appended.get("a")!.slice(-3));

    await server.restart();
    for (let i = 0; i < 5; i++) await appendRound();
    await waitFor(() => stores.sessionStore.bufferedTurns === 0, 10_000);

    expect(outcomes.filter((o) => !o.saved)).toEqual([]);
    expect(outcomes.filter((o) => o.buffered).length).toBeGreaterThanOrEqual(60);
    for (const id of sessions) {
      const session = await stores.sessionStore.get(id);
      expect(session?.turnsList.map((t) => t.question), id).toEqual(appended.get(id));
    }
    expect(events.some((event) => event.type === "session-turns-replayed")).toBe(true);
  });

  it("writes a replayed turn once when the first write landed after the caller gave up on it", async () => {
    const stores = openStores({ appendTimeoutMs: 100 });
    await waitFor(async () => (await stores.health()).ok, 10_000);
    // Loads the append script: under the pause, an unknown script would only answer NOSCRIPT.
    expect((await stores.sessionStore.append("warm-up", turn(0))).buffered).toBe(false);
    const admin = new Redis(server.url);
    try {
      // Writes wait 400 ms: the append gives up after 100 ms and buffers the turn, but the
      // script it sent runs when the pause ends; the replay of the buffered turn must not add it again.
      await admin.call("CLIENT", "PAUSE", "400", "WRITE");
      expect(await stores.sessionStore.append("once", turn(1))).toEqual({ saved: true, buffered: true });
      await waitFor(() => stores.sessionStore.bufferedTurns === 0, 10_000);
      expect((await stores.sessionStore.get("once"))?.turnsList).toEqual([turn(1)]);
    } finally {
      admin.disconnect();
    }
  });

  it("keeps a turn on a slow but working Redis (replies after the operation bound, within the append bound)", async () => {
    const stores = openStores();
    await waitFor(async () => (await stores.health()).ok, 10_000);
    const admin = new Redis(server.url);
    try {
      // 150 ms pause > the 100 ms operation bound, < the 1000 ms append bound.
      await admin.call("CLIENT", "PAUSE", "150", "WRITE");
      expect(await stores.sessionStore.append("slow", turn(1))).toEqual({ saved: true, buffered: false, totalTurns: 1 });
    } finally {
      admin.disconnect();
    }
  });

  it("reads a whole session from a slow but working Redis instead of answering that it does not exist", async () => {
    const stores = openStores();
    await waitFor(async () => (await stores.health()).ok, 10_000);
    await stores.sessionStore.append("slow-read", turn(1));
    const admin = new Redis(server.url);
    try {
      await admin.call("CLIENT", "PAUSE", "150", "ALL");
      expect((await stores.sessionStore.get("slow-read"))?.turnsList).toEqual([turn(1)]);
    } finally {
      admin.disconnect();
    }
  });

  it("says saved: false when a turn can be neither written nor buffered (buffer full)", async () => {
    const events: CacheStoreEvent[] = [];
    const stores = openStores({ buffer: { maxTurns: 2 } }, (event) => events.push(event));
    await waitFor(async () => (await stores.health()).ok, 10_000);
    await server.stop({ kill: true });
    try {
      expect((await stores.sessionStore.append("full", turn(1))).saved).toBe(true);
      expect((await stores.sessionStore.append("full", turn(2))).saved).toBe(true);
      expect(await stores.sessionStore.append("full", turn(3))).toEqual({ saved: false, buffered: false });
      expect(events.filter((event) => event.type === "session-turn-dropped")).toHaveLength(1);
    } finally {
      await server.restart();
    }
    await waitFor(() => stores.sessionStore.bufferedTurns === 0, 10_000);
    expect((await stores.sessionStore.get("full"))?.turnsList).toEqual([turn(1), turn(2)]);
  });
});
