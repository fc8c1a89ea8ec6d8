import { z } from "zod";
import { ConfidenceLevelSchema, IntentAlternativeSchema, IntentSchema, ClassificationMethodSchema } from "./intent.js";

const unit = z.number().min(0).max(1);

/** Zod schema of {@link ScoreBreakdown}. */
export const ScoreBreakdownSchema = z.object({
  flow_match: unit.describe("1 exact intent match, 0.7 partial, 0.3 general-purpose, 0 none."),
  health: unit.describe("1 healthy, 0.5 slow, 0 down."),
  performance: unit.describe("From measured latency and success rate, with recency decay."),
  capability: unit.describe("From the per-backend, per-intent capability table."),
});

/** The four components of a candidate's routing score, each 0..1. */
export type ScoreBreakdown = z.infer<typeof ScoreBreakdownSchema>;

/** Zod schema of {@link ScoringWeights}. */
export const ScoringWeightsSchema = z.object({
  flow_match: z.number().min(0).default(0.4),
  health: z.number().min(0).default(0.3),
  performance: z.number().min(0).default(0.2),
  capability: z.number().min(0).default(0.1),
});

/**
 * Weights of the score components: `score = Σ weight_i * component_i`.
 *
 * @default `{ flow_match: 0.4, health: 0.3, performance: 0.2, capability: 0.1 }`
 */
export type ScoringWeights = z.infer<typeof ScoringWeightsSchema>;

/** The default scoring weights. */
export const DEFAULT_SCORING_WEIGHTS: Readonly<ScoringWeights> = Object.freeze({
  flow_match: 0.4,
  health: 0.3,
  performance: 0.2,
  capability: 0.1,
});

/** Zod schema of {@link RoutingCandidate}. */
export const RoutingCandidateSchema = z.object({
  backendId: z.string(),
  backendKind: z.string(),
  flowId: z.string().describe("Gateway-wide flow id."),
  backendFlowId: z.string(),
  flowName: z.string(),
  score: z.number().min(0),
  breakdown: ScoreBreakdownSchema,
  rank: z.number().int().min(1),
  excluded: z.string().optional().describe("Why this candidate cannot be chosen (e.g. circuit open), if so."),
});

/** One scored (backend, flow) candidate. */
export type RoutingCandidate = z.infer<typeof RoutingCandidateSchema>;

/** Zod schema of {@link RoutingDecision}. */
export const RoutingDecisionSchema = z.object({
  intent: IntentSchema,
  confidence: unit,
  confidenceLevel: ConfidenceLevelSchema,
  method: ClassificationMethodSchema,
  alternatives: z.array(IntentAlternativeSchema).default([]),
  weights: ScoringWeightsSchema,
  candidates: z.array(RoutingCandidateSchema).describe("Ranked, best first."),
  chosen: z
    .object({ backendId: z.string(), flowId: z.string(), backendFlowId: z.string() })
    .nullable()
    .describe("The candidate to try first, or null when none is usable."),
  strategy: z.enum(["direct", "override", "hedge", "general-purpose", "default-flow"]),
  reason: z.string().describe("Human-readable explanation of the choice."),
  decidedInMs: z.number().nonnegative().optional(),
});

/** The router's full decision for one question, with every candidate's score breakdown. */
export type RoutingDecision = z.infer<typeof RoutingDecisionSchema>;
