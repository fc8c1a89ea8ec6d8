import { AfwError, parseOrThrow, type Intent } from "@afw/contracts";
import type { AuditEvent } from "./audit-event.js";
import type { AuditLog } from "./audit-log.js";
import { normalizeRating, type FeedbackRecord, type FeedbackStore } from "./feedback.js";
import type { LearnedRoutingPrior } from "./learned-prior.js";
import { RecordFeedbackInputSchema } from "./tool-schemas.js";
import type { z } from "zod";

/** Resolves a session's turn (1-based) to the trace id of its query, e.g. from the session store's `SessionTurn.traceId`. */
export type TurnResolver = (sessionId: string, turn: number) => string | undefined | Promise<string | undefined>;

/** What {@link recordFeedback} needs. */
export interface RecordFeedbackDependencies {
  /** Where the record goes. */
  feedbackStore: FeedbackStore;
  /** Where the rated query's flow, backend and intent are looked up. */
  auditLog?: AuditLog | undefined;
  /** Resolves `turn` to a trace id; without it (or when it finds nothing) the turn is the session's n-th query in the audit log. */
  resolveTurn?: TurnResolver | undefined;
  /** Learns from the rating (linked ratings with an intent and a flow only). */
  prior?: Pick<LearnedRoutingPrior, "observe"> | undefined;
  /** Clock. @default Date.now */
  now?: (() => number) | undefined;
}

/** The result of {@link recordFeedback}. */
export interface RecordFeedbackResult {
  record: FeedbackRecord;
  /** True when the store kept it (false when the store is down). */
  stored: boolean;
  /** True when the rated query was found and its flow linked. */
  linked: boolean;
}

interface TraceFacts {
  sessionIds: Set<string>;
  flowId?: string | undefined;
  backendId?: string | undefined;
  intent?: Intent | undefined;
}

function factsOf(events: readonly AuditEvent[]): TraceFacts {
  const facts: TraceFacts = { sessionIds: new Set() };
  for (const event of events) {
    if (event.sessionId !== undefined) facts.sessionIds.add(event.sessionId);
    if (event.type === "query-answered") {
      facts.flowId = event.flowId;
      facts.backendId = event.backendId;
    } else if (event.type === "intent-classified") facts.intent = event.intent;
    else if (event.type === "routing-decided") facts.intent = event.decision.intent;
  }
  return facts;
}

/**
 * The `record_feedback` tool: normalises the rating, finds the rated query (by `trace_id`, else by
 * `turn` through `resolveTurn` or the session's n-th query in the audit log), links the flow,
 * backend and intent that answered it, stores the record and teaches the prior linked ratings.
 * An unavailable audit log leaves the record unlinked instead of failing.
 *
 * @throws AfwError `INVALID_INPUT` for invalid input, or when the trace belongs to another session.
 */
export async function recordFeedback(input: z.input<typeof RecordFeedbackInputSchema>, dependencies: RecordFeedbackDependencies): Promise<RecordFeedbackResult> {
  const parsed = parseOrThrow(RecordFeedbackInputSchema, input, "INVALID_INPUT", "record_feedback input");
  const { score, scale } = normalizeRating(parsed.rating, parsed.scale);
  const now = dependencies.now ?? Date.now;
  const createdAt = Math.floor(now());
  // How far back the audit log is searched for the rated query.
  const lookbackMs = 7 * 86_400_000;
  const auditLog = dependencies.auditLog;

  let traceId = parsed.trace_id;
  if (traceId === undefined && parsed.turn !== undefined) {
    traceId = (await dependencies.resolveTurn?.(parsed.session_id, parsed.turn)) ?? undefined;
    if (traceId === undefined && auditLog) {
      const received = await auditLog
        .query({ sessionId: parsed.session_id, types: ["query-received"], from: createdAt - lookbackMs, to: createdAt, limit: 100_000 })
        .catch(() => [] as AuditEvent[]);
      traceId = received[parsed.turn - 1]?.traceId;
    }
  }

  let facts: TraceFacts | undefined;
  if (traceId !== undefined && auditLog) {
    const events = await auditLog.trace(traceId, { to: createdAt, lookbackMs }).catch(() => [] as AuditEvent[]);
    if (events.length > 0) {
      facts = factsOf(events);
      if (facts.sessionIds.size > 0 && !facts.sessionIds.has(parsed.session_id)) {
        throw new AfwError("INVALID_INPUT", "the rated trace does not belong to this session_id");
      }
    }
  }

  const linked = facts !== undefined && facts.flowId !== undefined;
  const record: FeedbackRecord = {
    id: traceId !== undefined ? `${parsed.session_id}#${traceId}` : `${parsed.session_id}#turn:${parsed.turn}`,
    sessionId: parsed.session_id,
    turn: parsed.turn,
    traceId,
    rating: parsed.rating,
    scale,
    score,
    comment: parsed.comment,
    flowId: facts?.flowId,
    backendId: facts?.backendId,
    intent: facts?.intent,
    createdAt,
    linked,
  };
  const stored = await dependencies.feedbackStore.put(record).catch(() => false);
  if (linked && record.intent && record.flowId && dependencies.prior) {
    try {
      dependencies.prior.observe({ intent: record.intent, flowId: record.flowId, feedback: score, at: createdAt });
    } catch {
      // the rating is stored; learning from it is best effort
    }
  }
  return { record, stored, linked };
}
