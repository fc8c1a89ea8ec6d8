import { describe, expect, it } from "vitest";
import { emitTrace, fanOutTraceSink, parseTraceEvent, TraceEventSchema, type TraceEvent, type TraceContext } from "./index.js";

function collector(): TraceContext & { events: TraceEvent[] } {
  const events: TraceEvent[] = [];
  return { traceId: "t-1", requestId: "r-1", sessionId: "s-1", sink: { emit: (e) => events.push(e) }, events };
}

describe("trace events", () => {
  it("emitTrace fills the common fields and produces a valid event", () => {
    const ctx = collector();
    emitTrace(ctx, "cache-miss", { scope: "shared", reason: "absent" });
    expect(ctx.events).toHaveLength(1);
    const event = parseTraceEvent(ctx.events[0]);
    expect(event).toMatchObject({ type: "cache-miss", traceId: "t-1", requestId: "r-1", sessionId: "s-1", reason: "absent" });
    expect(Date.parse(event.timestamp)).not.toBeNaN();
  });

  it("payload cannot override the common fields", () => {
    const ctx = collector();
    emitTrace(ctx, "session-loaded", { turns: 2, traceId: "forged" } as never);
    expect(ctx.events[0]!.traceId).toBe("t-1");
  });

  it("a throwing sink never breaks the caller", () => {
    const ctx: TraceContext = { traceId: "t", requestId: "r", sink: { emit: () => { throw new Error("sink down"); } } };
    expect(() => emitTrace(ctx, "session-loaded", { turns: 0 })).not.toThrow();
    expect(() => emitTrace(undefined, "session-loaded", { turns: 0 })).not.toThrow();
  });

  it("fanOutTraceSink isolates sinks from each other", () => {
    const seen: string[] = [];
    const sink = fanOutTraceSink(
      { emit: () => { throw new Error("x"); } },
      { emit: (e) => seen.push(e.type) },
    );
    emitTrace({ traceId: "t", requestId: "r", sink }, "session-appended", { totalTurns: 1 });
    expect(seen).toEqual(["session-appended"]);
  });

  it.each([
    [{ type: "nope", traceId: "t", requestId: "r", timestamp: new Date().toISOString() }, /type|discriminator|Invalid/i],
    [{ type: "cache-hit", traceId: "t", requestId: "r", timestamp: "now", scope: "shared", flowId: "f", kind: "exact" }, /timestamp/],
    [{ type: "backend-call-end", traceId: "t", requestId: "r", timestamp: new Date().toISOString(), backendId: "b", flowId: "f", attempt: 1, latencyMs: -1, outcome: "success" }, /latencyMs/],
    [{ type: "cache-hit", requestId: "r", timestamp: new Date().toISOString(), scope: "shared", flowId: "f", kind: "exact" }, /traceId/],
  ])("parseTraceEvent rejects invalid events (%#)", (value, message) => {
    expect(() => parseTraceEvent(value)).toThrow(message);
  });

  it("every event type is kebab-case noun-verb and unique", () => {
    const types = TraceEventSchema.options.map((o) => o.shape.type.value as string);
    expect(new Set(types).size).toBe(types.length);
    for (const t of types) expect(t).toMatch(/^[a-z]+(-[a-z]+)+$/);
    expect(types).toEqual(expect.arrayContaining([
      "query-received", "intent-classified", "routing-decided", "backend-call-start", "backend-call-end",
      "fallback-triggered", "retry-scheduled", "circuit-opened", "circuit-closed", "cache-hit", "cache-miss",
      "cache-write", "cache-invalidate", "session-loaded", "session-appended", "session-save-failed", "tool-list-requested",
      "tool-list-decided", "tool-call-start", "tool-call-end", "downstream-connected", "downstream-disconnected",
      "router-low-confidence", "route-elicited",
    ]));
  });
});
