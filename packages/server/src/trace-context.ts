import { randomBytes, randomUUID } from "node:crypto";
import type { TraceContext, TraceSink } from "@afw/contracts";

/** A new trace id: 32 lower-case hex characters (an OpenTelemetry-compatible trace id). */
export function newTraceId(): string {
  return randomBytes(16).toString("hex");
}

/**
 * A fresh {@link TraceContext} for one request (or one background job).
 *
 * @example
 * ```ts
 * const trace = newTraceContext(sink, { sessionId: "s-1" });
 * emitTrace(trace, "session-loaded", { turns: 3 });
 * ```
 */
export function newTraceContext(sink: TraceSink, options: { requestId?: string; sessionId?: string | undefined; traceId?: string } = {}): TraceContext {
  return {
    traceId: options.traceId ?? newTraceId(),
    requestId: options.requestId ?? randomUUID(),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    sink,
  };
}
