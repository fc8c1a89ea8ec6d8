import { z } from "zod";
import { IntentSchema, TraceEventBaseShape, TraceEventSchema, type TraceEvent } from "@afw/contracts";

/**
 * Zod schema of {@link AbAssignedEvent}: an audit record written by {@link createAbAssignment}
 * when a request is assigned to an arm of an A/B experiment. It carries the ids of the request's
 * trace so the analyses can join the assignment to the query's outcome.
 */
export const AbAssignedEventSchema = z
  .object({
    type: z.literal("ab-assigned"),
    ...TraceEventBaseShape,
    experimentId: z.string().min(1),
    arm: z.enum(["control", "variant"]),
    intent: IntentSchema.optional(),
    unit: z.enum(["session", "request"]).describe("What the assignment is sticky to."),
  })
  .describe("a request was assigned to an arm of an A/B experiment.");

/** A request was assigned to the `control` or `variant` arm of an A/B experiment. */
export type AbAssignedEvent = z.infer<typeof AbAssignedEventSchema>;

/**
 * Zod schema of {@link AuditEvent}: every trace event of `@afw/contracts` plus the analytics'
 * own {@link AbAssignedEvent}.
 */
export const AuditEventSchema = z.union([TraceEventSchema, AbAssignedEventSchema]);

/**
 * What the audit log stores: a contracts {@link @afw/contracts!TraceEvent} or an analytics
 * record such as {@link AbAssignedEvent}. Every audit event has `type`, `traceId`, `requestId`,
 * `sessionId?` and an ISO `timestamp`.
 */
export type AuditEvent = TraceEvent | AbAssignedEvent;

/** The `type` of an {@link AuditEvent}. */
export type AuditEventType = AuditEvent["type"];

/**
 * The time of an audit event in epoch milliseconds (parsed from its ISO `timestamp`), or `NaN`
 * when the timestamp is malformed.
 *
 * @example
 * ```ts
 * eventTimeMs({ ...event, timestamp: "1970-01-01T00:00:01.000Z" }) // 1000
 * ```
 */
export function eventTimeMs(event: Pick<AuditEvent, "timestamp">): number {
  return Date.parse(event.timestamp);
}
