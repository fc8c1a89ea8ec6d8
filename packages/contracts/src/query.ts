import { z } from "zod";
import { CascadeStepSchema, IntentSchema } from "./intent.js";
import { RoutingExperimentArmSchema, ScoreAdjustmentSchema, ScoreBreakdownSchema } from "./routing.js";
import { ErrorCodeSchema } from "./errors.js";
import { BackendIdSchema, SourceDocumentSchema } from "./backend.js";

/** Longest question accepted, in characters. Larger inputs are rejected before any work. */
export const MAX_QUESTION_LENGTH = 32_000;

/** Zod schema of a session id: 1-128 printable characters without whitespace. */
export const SessionIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:@-]+$/, "session_id may contain only letters, digits and . _ : @ -");

/** Most tags one query or turn may carry. */
const MAX_TAGS = 16;

/**
 * Zod schema of the tags of a query or turn: at most 16 strings of 1-64 characters, each a letter or digit followed by
 * letters, digits and `. _ : / @ + -` (e.g. `project:falcon`, `team:platform`).
 */
export const SessionTagsSchema = z
  .array(
    z
      .string()
      .min(1, "a tag must not be empty")
      .max(64, "a tag must be at most 64 characters")
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/, "a tag may contain only letters, digits and . _ : / @ + - (starting with a letter or digit)"),
  )
  .max(MAX_TAGS, `at most ${MAX_TAGS} tags`);

/** Zod schema of the generation parameters of a query. */
export const QueryParametersSchema = z
  .object({
    temperature: z.number().min(0).max(2).optional().describe("Sampling temperature, 0..2."),
    max_tokens: z.number().int().min(1).max(1_000_000).optional().describe("Maximum tokens to generate."),
    stream: z.boolean().optional().describe("Stream tokens as MCP progress notifications."),
  })
  .strict();

/**
 * The zod shape (object fields) of `universal_query`'s input, for MCP tool registration.
 * Use {@link UniversalQueryInputSchema} to validate.
 */
export const UniversalQueryInputShape = {
  question: z
    .string()
    .max(MAX_QUESTION_LENGTH, `question must be at most ${MAX_QUESTION_LENGTH} characters`)
    .refine((q) => q.trim().length > 0, "question must not be empty")
    .describe("The question to answer."),
  intent: z
    .union([IntentSchema, z.literal("auto")])
    .default("auto")
    .describe("Force an intent, or `auto` to classify."),
  backend: BackendIdSchema.default("auto")
    .describe("`auto`, a backend kind (`flowise`, `langflow`) or a configured backend id."),
  flow_id: z.string().min(1).max(200).optional().describe("Run this flow (gateway-wide or platform id)."),
  allow_fallback: z
    .boolean()
    .optional()
    .describe(
      "With an explicit `backend` or `flow_id`: absent or false makes the choice binding (it answers, or the query fails with a typed error such as CIRCUIT_OPEN or FLOW_NOT_FOUND); true lets another backend or flow answer, reported as `fallback_used` with `fallback_reason`.",
    ),
  session_id: SessionIdSchema.optional().describe("Conversation id; turns are remembered across days."),
  tags: SessionTagsSchema.optional().describe(
    "Tags of this turn, e.g. `project:falcon` (at most 16, each 1-64 of letters, digits and `. _ : / @ + -`): stored with the turn and its session, for `list_sessions` and `search_history`.",
  ),
  parameters: QueryParametersSchema.optional(),
  timeout: z.number().min(1).max(120).default(30).describe("Overall timeout in seconds, 1..120."),
} as const;

/** Zod schema of {@link UniversalQueryInput}. */
export const UniversalQueryInputSchema = z.object(UniversalQueryInputShape).strict();

/**
 * Input of the `universal_query` MCP tool.
 * @example
 * ```ts
 * UniversalQueryInputSchema.parse({ question: "Why does my build fail?", session_id: "s-1" });
 * // -> { question, intent: "auto", backend: "auto", session_id: "s-1", timeout: 30 }
 * ```
 */
export type UniversalQueryInput = z.infer<typeof UniversalQueryInputSchema>;

/** Whether an answer came from the cache: `false`, `true` (exact key) or `"semantic"` (near-duplicate). */
export const CacheHitKindSchema = z.union([z.boolean(), z.literal("semantic")]);

/** Zod schema of {@link McpMetadata}. */
export const McpMetadataSchema = z.object({
  backend_used: z.string(),
  backend_kind: z.string().optional(),
  flow_id: z.string(),
  flow_name: z.string(),
  routing_score: z.number().min(0),
  routing_breakdown: ScoreBreakdownSchema,
  routing_reason: z.string().optional(),
  routing_adjustment: ScoreAdjustmentSchema.optional().describe("How the learned routing prior adjusted the answering candidate's breakdown, if it did."),
  routing_experiment: RoutingExperimentArmSchema.optional().describe("The A/B experiment arm the request was routed in, if any."),
  intent_classified: IntentSchema,
  intent_confidence: z.number().min(0).max(1),
  intent_method: z.string().optional(),
  intent_cascade: CascadeStepSchema.optional().describe("With a classifier cascade: which stage decided the intent (`confident`, `escalated`, `escalation-failed`)."),
  execution_time_ms: z.number().nonnegative(),
  fallback_used: z.boolean().describe("True when the answer came from another candidate than the first choice."),
  fallback_reason: z
    .string()
    .optional()
    .describe("With `fallback_used`: why the first choice did not answer — its error code (`BACKEND_TIMEOUT`, `CIRCUIT_OPEN`, `FLOW_NOT_FOUND`, ...) or `hedge` when a hedged partner answered first."),
  attempt: z.number().int().min(1).describe("Number of backend attempts this answer took."),
  backends_tried: z.array(z.string()).default([]).describe("Every backend attempted, in order, the first choice included (also when its open circuit skipped it)."),
  cache_hit: CacheHitKindSchema,
  cache_similarity: z.number().min(0).max(1).optional(),
  session_saved: z
    .boolean()
    .optional()
    .describe("With a session_id: whether this turn is kept in the session (written, or buffered for replay while the store is away). False: it was not kept."),
  session_buffered: z.boolean().optional().describe("True when the turn is held in the write-behind buffer and written when the session store is back."),
  parameters_applied: z.array(z.string()).optional().describe("Generation parameters (`temperature`, `max_tokens`) the answering flow applied, as far as its configuration shows."),
  parameters_ignored: z
    .array(z.object({ parameter: z.string(), reason: z.string() }))
    .optional()
    .describe("Generation parameters the answering flow ignored, each with why (e.g. the chatflow does not enable the override)."),
  parameters_unverified: z.array(z.string()).optional().describe("Parameters sent to a flow whose configuration could not be read: whether it applied them is unknown."),
  session_context: z
    .object({ history_messages: z.number().int().nonnegative(), platform_memory: z.boolean() })
    .optional()
    .describe("How the session's earlier turns reached the flow: messages sent as history, and whether the flow's own memory holds the session."),
  elicitation: z
    .object({
      asked: z.boolean(),
      tier: z.enum(["confirm", "clarify"]),
      action: z.enum(["accept", "decline", "cancel", "timeout", "error"]).optional().describe("The client's answer when asked; anything but `accept` took the default route."),
      chosen_flow_id: z.string().optional(),
      reason: z.enum(["stateless", "no-capability"]).optional().describe("Why the client was not asked: a stateless HTTP request cannot be asked, or the client did not declare elicitation."),
    })
    .optional()
    .describe("In the confirm/clarify confidence tiers: whether the client was asked to confirm or choose the flow (MCP elicitation), and its answer."),
  trace_id: z.string(),
});

/** Routing and execution metadata returned with every answer. */
export type McpMetadata = z.infer<typeof McpMetadataSchema>;

/** Zod schema of {@link UniversalQueryResult}. */
export const UniversalQueryResultSchema = z.object({
  result: z.string().describe("The answer text."),
  session_id: z.string().optional(),
  sources: z.array(SourceDocumentSchema).optional(),
  _mcp_metadata: McpMetadataSchema,
});

/** Successful result of `universal_query`. */
export type UniversalQueryResult = z.infer<typeof UniversalQueryResultSchema>;

/** Zod schema of {@link UniversalQueryError}. */
export const UniversalQueryErrorSchema = z.object({
  error: z.string().describe("Human-readable message (no secrets)."),
  code: ErrorCodeSchema,
  attempts: z.number().int().min(0),
  backends_tried: z.array(z.string()),
  last_error: z.string().optional(),
  _mcp_metadata: z
    .object({
      trace_id: z.string(),
      execution_time_ms: z.number().nonnegative(),
      intent_classified: IntentSchema.optional(),
      intent_confidence: z.number().min(0).max(1).optional(),
    })
    .catchall(z.unknown()),
});

/** Failure result of `universal_query` (returned as an MCP tool error). */
export type UniversalQueryError = z.infer<typeof UniversalQueryErrorSchema>;
