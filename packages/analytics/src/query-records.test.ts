import { describe, expect, it } from "vitest";
import { type AuditEvent } from "./index.js";
import { buildQueryRecords } from "./query-records.js";
import { resolveTimeRange } from "./time-range.js";
import { summarizeLatency } from "./statistics.js";
import { createTrafficGenerator } from "./test.js";

const at = (ms: number) => new Date(ms).toISOString();

describe("buildQueryRecords", () => {
  it("folds a trace's events, in any order, into one record", () => {
    const traffic = createTrafficGenerator({
      flows: [
        { flowId: "flowise:a", intents: ["technical-analysis"], behaviour: ({ index }) => ({ ok: index > 0, latencyMs: 50, outcome: "timeout" }) },
        { flowId: "flowise:b", intents: ["technical-analysis"] },
      ],
      start: 0,
      retryOnce: true,
    });
    const result = traffic.query({ intent: "technical-analysis", sessionId: "s", confidence: 0.6 });
    const shuffled = [...result.events].reverse();
    const [record] = buildQueryRecords(shuffled);
    expect(record).toMatchObject({
      traceId: result.traceId,
      sessionId: "s",
      intent: "technical-analysis",
      confidence: 0.6,
      method: "hybrid",
      strategy: "direct",
      chosenFlowId: "flowise:a",
      outcome: "answered",
      answeredFlowId: "flowise:a",
      cache: "miss",
      cacheHit: false,
      fallbackUsed: false,
    });
    // first call timed out, the retry on the same flow succeeded
    expect(record!.attempts.map((a) => [a.flowId, a.attempt, a.outcome, a.errorCode])).toEqual([
      ["flowise:a", 1, "timeout", "BACKEND_TIMEOUT"],
      ["flowise:a", 2, "success", undefined],
    ]);
    expect(record!.candidates.map((c) => [c.flowId, c.rank, c.breakdown.flow_match])).toEqual([
      ["flowise:a", 1, 1],
      ["flowise:b", 2, 1],
    ]);
  });

  it("knows semantic cache hits, pending queries and ignores non-query traces", () => {
    const events: AuditEvent[] = [
      { type: "query-received", traceId: "t1", requestId: "r1", timestamp: at(1000), tool: "universal_query", questionLength: 5 },
      { type: "cache-hit", traceId: "t1", requestId: "r1", timestamp: at(1001), scope: "shared", flowId: "f:x", kind: "semantic", similarity: 0.97 },
      { type: "query-answered", traceId: "t1", requestId: "r1", timestamp: at(1002), backendId: "f", flowId: "f:x", durationMs: 2, attempts: 0, fallbackUsed: false, cacheHit: "semantic" },
      { type: "query-received", traceId: "t2", requestId: "r2", timestamp: at(2000), tool: "universal_query", questionLength: 5 },
      { type: "cache-miss", traceId: "t2", requestId: "r2", timestamp: at(2001), scope: "shared", reason: "bypass" },
      { type: "health-checked", traceId: "bg", requestId: "bg", timestamp: at(1500), backendId: "f", status: "healthy", latencyMs: 3 },
    ];
    const records = buildQueryRecords(events);
    expect(records.map((r) => [r.traceId, r.outcome, r.cache, r.cacheHit, r.answeredFlowId])).toEqual([
      ["t1", "answered", "semantic", true, "f:x"],
      ["t2", "pending", "bypass", false, undefined],
    ]);
  });
});

describe("statistics and time ranges", () => {
  it("summarises latency with nearest-rank percentiles", () => {
    expect(summarizeLatency([]).p50Ms).toBeNull();
    expect(summarizeLatency([10, 20, 30, 40])).toEqual({ count: 4, p50Ms: 20, p95Ms: 40, meanMs: 25 });
  });

  it("resolves presets and explicit ranges", () => {
    expect(resolveTimeRange("1h", 10_000_000)).toEqual({ from: 6_400_000, to: 10_000_000 });
    expect(resolveTimeRange("7d", 1e12)).toEqual({ from: 1e12 - 604_800_000, to: 1e12 });
    expect(resolveTimeRange({ from: "1970-01-01T00:00:01Z" }, 5000)).toEqual({ from: 1000, to: 5000 });
    expect(() => resolveTimeRange({ from: 10, to: 5 })).toThrow(/after/);
    expect(() => resolveTimeRange({ from: "yesterday" })).toThrow(/invalid from/);
    expect(() => resolveTimeRange("2d" as never)).toThrow(/unknown time range/);
  });
});
