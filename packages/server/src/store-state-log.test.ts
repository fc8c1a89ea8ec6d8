import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createStoreStateLog } from "./store-state-log.js";

function harness() {
  const lines: Array<{ level: number; msg: string; redis: Record<string, unknown> }> = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  let time = 0;
  const log = createStoreStateLog(logger, { summaryIntervalMs: 30_000, now: () => time });
  return { lines, log, advance: (ms: number) => (time += ms) };
}

const unavailable = { type: "cache-unavailable", store: "session-store", operation: "append", message: "Redis connection is reconnecting" } as const;

describe("store state log", () => {
  it("logs an outage once, then one summary per interval, then the recovery with counts", () => {
    const { lines, log, advance } = harness();
    // 10 s of outage at 600 failed operations per second, a turn buffered every 100 ms.
    for (let ms = 0; ms < 65_000; ms += 10) {
      log(unavailable);
      if (ms % 100 === 0) log({ type: "session-turn-buffered", store: "session-store", buffered: 1 });
      advance(10);
    }
    log({ type: "cache-recovered", store: "session-store", operation: "append" });
    log({ type: "session-turns-replayed", store: "session-store", turns: 650, buffered: 0 });
    expect(lines.map((line) => line.msg)).toEqual([
      "Redis unavailable: stores degrade to misses, session turns are buffered for replay",
      "Redis degraded (summary)",
      "Redis degraded (summary)",
      "Redis recovered",
      "Redis: buffered session turns replayed",
    ]);
    expect(lines[1]!.redis).toMatchObject({ stillDown: true, failedOperations: 3000, turnsBuffered: 300 });
    expect(lines[3]!.redis).toMatchObject({ downForMs: 65_000 });
    expect(lines[4]!.redis).toMatchObject({ turnsReplayed: 650, stillBuffered: 0 });
  });

  it("folds a Redis that flaps into the summary, and announces an outage that comes later", () => {
    const { lines, log, advance } = harness();
    for (let i = 0; i < 40; i++) {
      log(unavailable);
      advance(50);
      log({ type: "cache-recovered", store: "session-store", operation: "append" });
      advance(50);
    }
    // 40 outages of 50 ms within 4 s: one announced.
    expect(lines.map((line) => line.msg)).toEqual(["Redis unavailable: stores degrade to misses, session turns are buffered for replay", "Redis recovered"]);
    advance(6_000);
    log(unavailable);
    advance(4_000);
    log({ type: "cache-recovered", store: "session-store", operation: "append" });
    expect(lines.map((line) => line.msg).slice(2)).toEqual(["Redis unavailable: stores degrade to misses, session turns are buffered for replay", "Redis recovered"]);
    expect(lines[3]!.redis).toMatchObject({ downForMs: 4_000 });
  });
});
