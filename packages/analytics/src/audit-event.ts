import type { Intent, TraceEvent } from "@afw/contracts";

/** A request was assigned to the `control` or `variant` arm of an A/B experiment (recorded by `createAbAssignment`). */
export interface AbAssignedEvent {
  type: "ab-assigned";
  traceId: string;
  requestId: string;
  sessionId?: string | undefined;
  /** ISO 8601. */
  timestamp: string;
  experimentId: string;
  arm: "control" | "variant";
  intent?: Intent | undefined;
  /** What the assignment is sticky to. */
  unit: "session" | "request";
}

/** What the audit log stores: a contracts trace event or an {@link AbAssignedEvent}. */
export type AuditEvent = TraceEvent | AbAssignedEvent;

/** The `type` of an {@link AuditEvent}. */
export type AuditEventType = AuditEvent["type"];

/** The time of an audit event in epoch milliseconds (`NaN` for a malformed timestamp). */
export function eventTimeMs(event: Pick<AuditEvent, "timestamp">): number {
  return Date.parse(event.timestamp);
}
