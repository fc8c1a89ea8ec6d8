import { afterEach, describe, expect, it } from "vitest";
import { TraceEventSchema } from "@afw/contracts";
import type { AuditEvent, AuditLog } from "../../src/index.js";
import { createTrafficGenerator } from "../../src/test.js";
import { event, manualClock } from "../helpers.js";

/** What the shared suite needs from one audit-log implementation. */
export interface AuditLogFactoryOptions {
  /** Most events kept. */
  maxLength: number;
  /** Age bound, when the case needs one. */
  maxAgeMs?: number;
  now: () => number;
}

export interface AuditLogUnderTest {
  log: AuditLog;
  /** How far over `maxLength` the implementation may keep events (approximate trimming). */
  lengthSlack: number;
  close(): Promise<void>;
}

const T0 = Date.UTC(2025, 0, 1);

/** The audit-log suite, run against the memory and the Redis implementation. */
export function describeAuditLogSuite(name: string, create: (options: AuditLogFactoryOptions) => Promise<AuditLogUnderTest>): void {
  describe(`AuditLog (${name})`, () => {
    const open: AuditLogUnderTest[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((subject) => subject.close()));
    });
    const make = async (options: Partial<AuditLogFactoryOptions> & { now: () => number }) => {
      const subject = await create({ maxLength: 10_000, ...options });
      open.push(subject);
      return subject;
    };

    it("stores emitted events and answers queries by time, type, trace, session, limit and order", async () => {
      const clock = manualClock(T0 + 3_600_000);
      const { log } = await make({ now: clock.now });
      const events: AuditEvent[] = [];
      for (let i = 0; i < 30; i++) {
        const e = event(i % 3 === 0 ? "query-received" : "cache-miss", `t${i % 10}`, T0 + i * 1000, i % 2 === 0 ? { sessionId: "s-even" } : {});
        events.push(e);
        log.emit(e);
      }
      expect(await log.query({ from: T0, to: T0 + 29_000 })).toEqual(events);
      const window = await log.query({ from: T0 + 5_000, to: T0 + 9_000 });
      expect(window.map((e) => e.timestamp)).toEqual(events.slice(5, 10).map((e) => e.timestamp));
      const received = await log.query({ types: ["query-received"] });
      expect(received).toHaveLength(10);
      expect(received.every((e) => e.type === "query-received")).toBe(true);
      expect(await log.query({ sessionId: "s-even" })).toHaveLength(15);
      const firstThree = await log.query({ limit: 3 });
      expect(firstThree).toEqual(events.slice(0, 3));
      const lastThree = await log.query({ limit: 3, order: "desc" });
      expect(lastThree).toEqual(events.slice(27).reverse());
      const lastHour = await log.query({ from: clock.now() - 3_600_000 });
      expect(lastHour).toHaveLength(30);
      clock.advance(3_600_000);
      expect(await log.query({ from: clock.now() - 3_600_000 })).toHaveLength(0);
    });

    it("returns a whole trace with trace(), oldest first", async () => {
      const clock = manualClock(T0);
      const { log } = await make({ now: clock.now });
      const traffic = createTrafficGenerator({
        flows: [
          { flowId: "flowise:a", intents: ["technical-analysis"], behaviour: ({ index }) => ({ ok: index % 2 === 1, latencyMs: 40 }) },
          { flowId: "flowise:b", intents: ["technical-analysis"] },
        ],
        start: T0,
        sink: log,
      });
      const results = traffic.run(20, () => ({ intent: "technical-analysis", sessionId: "s-1" }));
      clock.set(traffic.now() + 1000);
      const trace = await log.trace(results[4]!.traceId);
      expect(trace).toEqual(results[4]!.events);
      expect(trace.map((e) => e.type)).toEqual([
        "query-received",
        "cache-miss",
        "intent-classified",
        "routing-decided",
        "backend-call-start",
        "backend-call-end",
        "fallback-triggered",
        "backend-call-start",
        "backend-call-end",
        "query-answered",
      ]);
      for (const e of trace) expect(TraceEventSchema.safeParse(e).success).toBe(true);
      expect(await log.trace("no-such-trace")).toEqual([]);
    });

    it("keeps at most about maxLength events, the newest", async () => {
      const clock = manualClock(T0 + 1_000_000);
      const subject = await make({ now: clock.now, maxLength: 200 });
      for (let i = 0; i < 1000; i++) subject.log.emit(event("cache-miss", `t${i}`, T0 + i));
      const kept = await subject.log.query({ limit: 100_000 });
      expect(kept.length).toBeGreaterThanOrEqual(200);
      expect(kept.length).toBeLessThanOrEqual(200 + subject.lengthSlack);
      expect(kept[kept.length - 1]!.traceId).toBe("t999");
      expect(kept[0]!.traceId).toBe(`t${1000 - kept.length}`);
    });

    it("does not return events older than maxAgeMs", async () => {
      const clock = manualClock(T0);
      const { log } = await make({ now: clock.now, maxAgeMs: 60_000 });
      log.emit(event("cache-miss", "old", T0));
      clock.advance(120_000);
      log.emit(event("cache-miss", "new", T0 + 120_000));
      const kept = await log.query();
      expect(kept.map((e) => e.traceId)).toEqual(["new"]);
    });

    it("orders back-filled and late events by their own time", async () => {
      const clock = manualClock(T0 + 600_000);
      const { log } = await make({ now: clock.now });
      log.emit(event("cache-miss", "b", T0 + 2000));
      log.emit(event("cache-miss", "a", T0 + 1000)); // late
      log.emit(event("cache-miss", "c", T0 + 3000));
      expect((await log.query()).map((e) => e.traceId)).toEqual(["a", "b", "c"]);
      expect((await log.query({ from: T0 + 500, to: T0 + 1500 })).map((e) => e.traceId)).toEqual(["a"]);
    });

    it("emit never throws, even for an event it cannot store", async () => {
      const clock = manualClock(T0 + 1000);
      const { log } = await make({ now: clock.now });
      const cyclic = event("cache-miss", "cyclic", T0) as AuditEvent & { self?: unknown };
      cyclic.self = cyclic;
      expect(() => log.emit(cyclic)).not.toThrow();
      log.emit(event("cache-miss", "fine", T0 + 1));
      await log.flush();
      expect((await log.query()).some((e) => e.traceId === "fine")).toBe(true);
      expect(log.stats().received).toBe(2);
    });

    it("counts what it received and stored", async () => {
      const clock = manualClock(T0 + 1000);
      const { log } = await make({ now: clock.now });
      for (let i = 0; i < 5; i++) log.emit(event("cache-miss", `t${i}`, T0 + i));
      await log.flush();
      const stats = log.stats();
      expect(stats).toMatchObject({ received: 5, stored: 5, dropped: 0, pending: 0, degraded: false });
    });
  });
}
