import { randomFillSync, randomUUID } from "node:crypto";
import type { TraceContext, TraceSink } from "@afw/contracts";

// Trace ids are cut from a pool of random bytes refilled 256 ids at a time: one call into the CSPRNG per 256 requests instead of one per request.
const TRACE_ID_BYTES = 16;
const idPool = Buffer.alloc(TRACE_ID_BYTES * 256);
let idOffset = idPool.length;

/** A new trace id: 32 lower-case hex characters (an OpenTelemetry-compatible trace id). */
export function newTraceId(): string {
  if (idOffset >= idPool.length) {
    randomFillSync(idPool);
    idOffset = 0;
  }
  const id = idPool.toString("hex", idOffset, idOffset + TRACE_ID_BYTES);
  idOffset += TRACE_ID_BYTES;
  // An all-zero id is invalid in W3C Trace Context (chance 2^-128, but cheap to rule out).
  return id === "00000000000000000000000000000000" ? newTraceId() : id;
}

/** A fresh {@link TraceContext} for one request (or one background job). */
export function newTraceContext(sink: TraceSink, options: { requestId?: string; sessionId?: string | undefined; traceId?: string } = {}): TraceContext {
  return {
    traceId: options.traceId ?? newTraceId(),
    requestId: options.requestId ?? randomUUID(),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    sink,
  };
}
