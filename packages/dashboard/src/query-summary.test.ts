import { describe, expect, it } from "vitest";
import { TraceEventSchema, type TraceEvent } from "@afw/contracts";
import { buildQuerySummary, isQueryLifecycleEvent, queriesFromTraceEvents } from "./query-summary.js";
import { buildQueryTrace } from "./testing.js";

const T0 = Date.parse("2026-01-01T10:00:00.000Z");

describe("buildQueryTrace fixtures", () => {
  it("produce valid contracts trace events", () => {
    const traces = [
      buildQueryTrace({ traceId: "a", startedAt: T0, attempts: [{ backendId: "b", flowId: "b:f" }] }),
      buildQueryTrace({ traceId: "b", startedAt: T0, cache: "semantic-hit", candidates: [{ backendId: "b", flowId: "b:f", score: 0.8 }] }),
      buildQueryTrace({ traceId: "c", startedAt: T0, sessionId: "s-1", attempts: [{ backendId: "b", flowId: "b:f", outcome: "timeout", statusCode: 504 }], failWith: "ALL_BACKENDS_FAILED" }),
    ];
    for (const event of traces.flat()) expect(() => TraceEventSchema.parse(event)).not.toThrow();
  });
});

describe("buildQuerySummary", () => {
  it("summarises a fallback: first choice, attempts, fallback, answering flow, latency", () => {
    const events = buildQueryTrace({
      traceId: "t1",
      startedAt: T0,
      sessionId: "s-1",
      intent: "structural-thinking",
      confidence: 0.71,
      candidates: [
        { backendId: "lf", backendKind: "langflow", flowId: "lf:arch", score: 0.82 },
        { backendId: "fw", flowId: "fw:code", score: 0.63 },
        { backendId: "fw", flowId: "fw:down", score: 0.5, excluded: "circuit open" },
      ],
      attempts: [
        { backendId: "lf", flowId: "lf:arch", outcome: "error", errorCode: "BACKEND_UNAVAILABLE", statusCode: 503, latencyMs: 40 },
        { backendId: "lf", flowId: "lf:arch", outcome: "timeout", errorCode: "BACKEND_TIMEOUT", latencyMs: 900 },
        { backendId: "fw", flowId: "fw:code", latencyMs: 300 },
      ],
    });
    const summary = buildQuerySummary([...events].reverse(), { question: "Design it" });
    expect(summary).toMatchObject({
      traceId: "t1",
      requestId: "req-t1",
      sessionId: "s-1",
      tool: "universal_query",
      startedAt: T0,
      question: "Design it",
      questionLength: 42,
      intent: "structural-thinking",
      confidence: 0.71,
      method: "hybrid",
      strategy: "direct",
      chosenBackendId: "lf",
      chosenFlowId: "lf:arch",
      answeredBackendId: "fw",
      answeredFlowId: "fw:code",
      cache: "miss",
      outcome: "answered",
      durationMs: 1248,
    });
    expect(summary?.candidates.map((candidate) => candidate.excluded ?? candidate.rank)).toEqual([1, 2, "circuit open"]);
    expect(summary?.attempts).toMatchObject([
      { backendId: "lf", flowId: "lf:arch", attempt: 1, outcome: "error", latencyMs: 40, errorCode: "BACKEND_UNAVAILABLE", statusCode: 503 },
      { backendId: "lf", flowId: "lf:arch", attempt: 2, outcome: "timeout", latencyMs: 900, errorCode: "BACKEND_TIMEOUT" },
      { backendId: "fw", flowId: "fw:code", attempt: 1, outcome: "success", latencyMs: 300 },
    ]);
    // a retry on the same flow is not a fallback; moving to another flow is
    expect(summary?.fallbacks).toEqual([{ fromBackendId: "lf", fromFlowId: "lf:arch", toBackendId: "fw", toFlowId: "fw:code", reason: "BACKEND_TIMEOUT" }]);
  });

  it("marks cache hits, failures and queries still running", () => {
    const hit = buildQuerySummary(buildQueryTrace({ traceId: "h", startedAt: T0, cache: "hit", candidates: [{ backendId: "b", flowId: "b:f", score: 1 }] }));
    expect(hit).toMatchObject({ cache: "exact", cacheHit: true, outcome: "answered", attempts: [], answeredFlowId: "b:f" });
    const semantic = buildQuerySummary(buildQueryTrace({ traceId: "s", startedAt: T0, cache: "semantic-hit" }));
    expect(semantic?.cache).toBe("semantic");
    const failed = buildQuerySummary(buildQueryTrace({ traceId: "f", startedAt: T0, attempts: [{ backendId: "b", flowId: "b:f", outcome: "error" }] }));
    expect(failed).toMatchObject({ outcome: "failed", errorCode: "ALL_BACKENDS_FAILED", errorMessage: "query failed: ALL_BACKENDS_FAILED" });
    const running = buildQueryTrace({ traceId: "r", startedAt: T0, attempts: [{ backendId: "b", flowId: "b:f" }] }).filter(
      (event) => event.type !== "backend-call-end" && event.type !== "query-answered",
    );
    const pending = buildQuerySummary(running);
    expect(pending?.outcome).toBe("pending");
    // attempts are listed once they end (the fold of @afw/analytics counts finished attempts)
    expect(pending?.attempts).toEqual([]);
    expect(buildQuerySummary([])).toBeUndefined();
  });

  it("ignores events of other traces and takes a bypass from cache-miss", () => {
    const events: TraceEvent[] = [
      { type: "cache-miss", traceId: "x", requestId: "r", timestamp: new Date(T0).toISOString(), scope: "shared", reason: "bypass" },
      { type: "query-failed", traceId: "x", requestId: "r", timestamp: new Date(T0 + 1).toISOString(), code: "INVALID_INPUT", message: "bad", durationMs: 1, attempts: 0 },
      { type: "query-received", traceId: "other", requestId: "r2", timestamp: new Date(T0).toISOString(), tool: "flowise_query", questionLength: 3 },
    ];
    const summary = buildQuerySummary(events);
    expect(summary).toMatchObject({ traceId: "x", cache: "bypass", outcome: "failed" });
    expect(summary?.tool).toBeUndefined();
    // a trace without a query event (a health check, a tool list) is no query
    expect(buildQuerySummary(events.slice(0, 1))).toBeUndefined();
  });
});

describe("queriesFromTraceEvents", () => {
  it("groups a mixed log into queries, newest first, skipping traces without a query", () => {
    const health: TraceEvent = { type: "health-checked", traceId: "bg", requestId: "bg", timestamp: new Date(T0 + 5).toISOString(), backendId: "b", status: "healthy", latencyMs: 3 };
    const log = [
      ...buildQueryTrace({ traceId: "old", startedAt: T0, attempts: [{ backendId: "b", flowId: "b:f" }] }),
      health,
      ...buildQueryTrace({ traceId: "new", startedAt: T0 + 60_000, attempts: [{ backendId: "b", flowId: "b:f" }] }),
      ...buildQueryTrace({ traceId: "mid", startedAt: T0 + 30_000, cache: "hit" }),
    ];
    const questions = new Map([["new", "newest question"]]);
    const queries = queriesFromTraceEvents(log, { questionOf: (traceId) => questions.get(traceId) });
    expect(queries.map((query) => query.traceId)).toEqual(["new", "mid", "old"]);
    expect(queries[0]?.question).toBe("newest question");
    expect(queries[1]?.question).toBeUndefined();
    expect(queriesFromTraceEvents(log, { limit: 1 }).map((query) => query.traceId)).toEqual(["new"]);
    expect(queriesFromTraceEvents(log, { limit: 0 })).toEqual([]);
  });

  it("recognises lifecycle events", () => {
    const [received, ...rest] = buildQueryTrace({ traceId: "l", attempts: [{ backendId: "b", flowId: "b:f" }] });
    expect(received && isQueryLifecycleEvent(received)).toBe(true);
    expect(rest.filter(isQueryLifecycleEvent).map((event) => event.type)).toEqual(["query-answered"]);
  });
});
