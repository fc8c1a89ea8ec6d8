import { z } from "zod";
import { IntentSchema, type Intent } from "@afw/contracts";
import type { AuditEvent } from "./audit-event.js";
import type { FeedbackRecord } from "./feedback.js";
import { buildQueryRecords } from "./query-records.js";

/**
 * Zod schema of {@link TrainingExample}: one line of the training export (routing decisions,
 * elicited answers and feedback, for offline improvement of the router).
 */
export const TrainingExampleSchema = z
  .object({
    question: z.string(),
    intent: IntentSchema.optional().describe("The intent the question was routed under."),
    confidence: z.number().min(0).max(1).optional().describe("The router's confidence in that intent."),
    flow_id: z.string().optional().describe("Gateway-wide id of the flow that answered."),
    backend_id: z.string().optional(),
    outcome: z.enum(["answered", "failed", "pending"]),
    label_source: z
      .enum(["elicitation", "feedback", "router"])
      .describe("Where the label comes from: the client chose the flow (`elicitation`), a rating (`feedback`), or the router's own choice (`router`)."),
    label_flow_id: z.string().optional().describe("With `elicitation`: the flow the client chose."),
    feedback_score: z.number().min(-1).max(1).optional().describe("The rating of the answer, -1 (worst) .. 1 (best), when rated."),
    session_id: z.string().optional(),
    trace_id: z.string(),
    asked_at: z.iso.datetime(),
  })
  .strict();

/** One training example; see {@link TrainingExampleSchema}. */
export type TrainingExample = z.infer<typeof TrainingExampleSchema>;

/** A question asked through the gateway, as the session history keeps it. */
export interface TrainingQuestion {
  traceId: string;
  question: string;
  sessionId?: string | undefined;
  /** Epoch milliseconds. */
  askedAt: number;
  intent?: Intent | undefined;
  flowId?: string | undefined;
  backendId?: string | undefined;
}

/**
 * Joins questions with what the audit log (decision, outcome, elicited answer) and the feedback
 * store know of their traces: one example per question, in the order given. The label source is
 * `elicitation` when the client chose the flow, else `feedback` when the answer was rated, else
 * `router`.
 *
 * @example
 * ```ts
 * const examples = buildTrainingExamples({ events, feedback, questions: [{ traceId, question, askedAt }] });
 * ```
 */
export function buildTrainingExamples(input: { events: readonly AuditEvent[]; feedback: readonly FeedbackRecord[]; questions: readonly TrainingQuestion[] }): TrainingExample[] {
  const records = new Map(buildQueryRecords(input.events).map((record) => [record.traceId, record]));
  const ratings = new Map<string, number>();
  for (const rating of input.feedback) if (rating.traceId !== undefined) ratings.set(rating.traceId, rating.score);
  return input.questions.map((question) => {
    const record = records.get(question.traceId);
    const score = ratings.get(question.traceId);
    const chosen = record?.elicitation?.action === "accept" ? record.elicitation.chosenFlowId : undefined;
    const intent = record?.intent ?? question.intent;
    const flowId = record?.answeredFlowId ?? question.flowId;
    const backendId = record?.answeredBackendId ?? question.backendId;
    return {
      question: question.question,
      ...(intent === undefined ? {} : { intent }),
      ...(record?.confidence === undefined ? {} : { confidence: record.confidence }),
      ...(flowId === undefined ? {} : { flow_id: flowId }),
      ...(backendId === undefined ? {} : { backend_id: backendId }),
      // A question kept in a session was answered, even when its trace is no longer in the audit log.
      outcome: record?.outcome ?? "answered",
      label_source: chosen !== undefined ? "elicitation" : score !== undefined ? "feedback" : "router",
      ...(chosen === undefined ? {} : { label_flow_id: chosen }),
      ...(score === undefined ? {} : { feedback_score: score }),
      ...(question.sessionId === undefined ? {} : { session_id: question.sessionId }),
      trace_id: question.traceId,
      asked_at: new Date(question.askedAt).toISOString(),
    };
  });
}
