import { randomUUID } from "node:crypto";
import type { TraceContext, TraceSink } from "@afw/contracts";

/** The 32 hex digits of a UUID (`8-4-4-4-12`) without its dashes. */
const hexOf = (uuid: string) => uuid.slice(0, 8) + uuid.slice(9, 13) + uuid.slice(14, 18) + uuid.slice(19, 23) + uuid.slice(24);

/** A fresh {@link TraceContext} for one request (or one background job); the trace id is a random UUID's 32 hex digits (an OpenTelemetry-compatible,
 * never all-zero id; Node draws UUIDs from a pooled random buffer). */
export function newTraceContext(sink: TraceSink, options: { requestId?: string; sessionId?: string | undefined; traceId?: string } = {}): TraceContext {
  return {
    traceId: options.traceId ?? hexOf(randomUUID()),
    requestId: options.requestId ?? randomUUID(),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    sink,
  };
}
