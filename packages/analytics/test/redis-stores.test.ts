import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { countRedisKeys, deleteRedisKeys, getTestRedis, startRedisServer, type TestRedis } from "@afw/testing";
import { createRedisAuditLog, createRedisFeedbackStore, createRedisPriorStore } from "../src/index.js";
import { describeAuditLogSuite } from "./suites/audit-log.case.js";
import { describeFeedbackStoreSuite } from "./suites/feedback-store.case.js";
import { describePriorStoreSuite } from "./suites/prior-store.case.js";
import { event, manualClock } from "./helpers.js";

let redis: TestRedis;
let filePrefix: string;
let counter = 0;
// Functional tests use a generous bound so a loaded CI machine does not turn slow replies into failures.
const OPERATION_TIMEOUT_MS = 2000;
const nextPrefix = () => `${filePrefix}${++counter}:`;

beforeAll(async () => {
  redis = await getTestRedis();
  filePrefix = redis.prefix();
});

afterAll(async () => {
  await deleteRedisKeys(redis.url, filePrefix);
  expect(await countRedisKeys(redis.url, filePrefix)).toBe(0);
  await redis.dispose();
});

describeAuditLogSuite("redis", async ({ maxLength, maxAgeMs, now }) => {
  const log = createRedisAuditLog({
    url: redis.url,
    keyPrefix: nextPrefix(),
    maxLength,
    ...(maxAgeMs === undefined ? {} : { maxAgeMs }),
    now,
    operationTimeoutMs: OPERATION_TIMEOUT_MS,
  });
  // MAXLEN ~ trims whole stream nodes (100 entries each by default)
  return { log, lengthSlack: 100, close: () => log.close() };
});

describeFeedbackStoreSuite("redis", async ({ maxRecords, now }) => {
  const store = createRedisFeedbackStore({ url: redis.url, keyPrefix: nextPrefix(), maxRecords, now, operationTimeoutMs: OPERATION_TIMEOUT_MS });
  return { store, close: () => store.close() };
});

describePriorStoreSuite("redis", async () => {
  const keyPrefix = nextPrefix();
  const first = createRedisPriorStore({ url: redis.url, keyPrefix, operationTimeoutMs: OPERATION_TIMEOUT_MS });
  const second = createRedisPriorStore({ url: redis.url, keyPrefix, operationTimeoutMs: OPERATION_TIMEOUT_MS });
  return {
    first,
    second,
    close: async () => {
      await Promise.all([first.close(), second.close()]);
    },
  };
});

describe("Redis audit log specifics", () => {
  it("writes in batches off the hot path (one script call per batch)", async () => {
    const server = await startRedisServer();
    const admin = new Redis(server.url, { lazyConnect: true });
    await admin.connect();
    const clock = manualClock(Date.UTC(2025, 0, 1, 1));
    const log = createRedisAuditLog({ url: server.url, keyPrefix: "batch:", now: clock.now, operationTimeoutMs: OPERATION_TIMEOUT_MS });
    try {
      await admin.config("RESETSTAT");
      for (let i = 0; i < 1000; i++) log.emit(event("cache-miss", `t${i}`, Date.UTC(2025, 0, 1) + i));
      // emit only queued: nothing was written yet
      expect(log.stats().pending).toBeGreaterThan(0);
      await log.flush();
      expect(log.stats()).toMatchObject({ received: 1000, stored: 1000, pending: 0, dropped: 0 });
      expect(await admin.xlen("batch:audit")).toBe(1000);
      const stats = await admin.info("commandstats");
      const calls = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
      expect(calls("evalsha") + calls("eval")).toBeLessThanOrEqual(6);
      expect(calls("xadd")).toBe(1000);
    } finally {
      await log.close();
      admin.disconnect();
      await server.dispose();
    }
  });

  it("degrades silently while Redis is down and resumes when it returns", async () => {
    const server = await startRedisServer();
    const clock = manualClock(Date.UTC(2025, 0, 1, 1));
    const client = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 20 });
    const log = createRedisAuditLog({ client, closeClient: true, keyPrefix: "outage:", now: clock.now, operationTimeoutMs: 200 });
    try {
      log.emit(event("cache-miss", "before", Date.UTC(2025, 0, 1)));
      await log.flush();
      expect(log.stats().stored).toBe(1);
      await server.stop({ kill: true });
      for (let i = 0; i < 50; i++) expect(() => log.emit(event("cache-miss", `down${i}`, Date.UTC(2025, 0, 1) + i))).not.toThrow();
      await log.flush();
      const down = log.stats();
      expect(down.degraded).toBe(true);
      expect(down.dropped).toBe(50);
      expect(down.failures).toBeGreaterThan(0);
      expect(down.lastError).toBeDefined();
      await expect(log.query()).rejects.toMatchObject({ code: "CACHE_UNAVAILABLE" });
      const ready = new Promise((resolve) => client.once("ready", resolve));
      await server.restart();
      await ready;
      log.emit(event("cache-miss", "after", Date.UTC(2025, 0, 1) + 10_000));
      await log.flush();
      expect(log.stats()).toMatchObject({ degraded: false, stored: 2, dropped: 50, pending: 0 });
      // the killed server kept nothing (no persistence); what matters is that writing resumed
      expect((await log.query()).map((e) => e.traceId)).toEqual(["after"]);
    } finally {
      await log.close();
      await server.dispose();
    }
  });
});
