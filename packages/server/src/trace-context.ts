import { randomUUID } from "node:crypto";
import type { TraceContext, TraceSink } from "@afw/contracts";

/** A fresh {@link TraceContext} for one request (or one background job); the trace id is a random UUID's 32 hex digits (an OpenTelemetry-compatible,
 * never all-zero id; Node draws UUIDs from a pooled random buffer). */
export function newTraceContext(sink: TraceSink, options: { requestId?: string; sessionId?: string | undefined; traceId?: string } = {}): TraceContext {
  return {
    traceId: options.traceId ?? randomUUID().replace(/-/g, ""),
    requestId: options.requestId ?? randomUUID(),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    sink,
  };
}
