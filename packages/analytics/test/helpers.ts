import type { AuditEvent } from "../src/index.js";

/** A controllable clock. */
export function manualClock(start = Date.UTC(2025, 0, 1)): { now: () => number; advance: (ms: number) => void; set: (ms: number) => void } {
  let time = start;
  return {
    now: () => time,
    advance: (ms) => {
      time += ms;
    },
    set: (ms) => {
      time = ms;
    },
  };
}

/** A minimal valid trace event of `type` at `at`. */
export function event(type: "cache-miss" | "query-received" | "query-failed", traceId: string, at: number, extra: Partial<Record<string, unknown>> = {}): AuditEvent {
  const base = { traceId, requestId: `r-${traceId}`, timestamp: new Date(at).toISOString(), ...extra };
  if (type === "cache-miss") return { type, scope: "shared", reason: "absent", ...base } as AuditEvent;
  if (type === "query-received") return { type, tool: "universal_query", questionLength: 10, ...base } as AuditEvent;
  return { type, code: "ALL_BACKENDS_FAILED", message: "failed", durationMs: 5, attempts: 1, ...base } as AuditEvent;
}
