import { z } from "zod";
import { CascadeStepSchema, ConfidenceLevelSchema, IntentAlternativeSchema, IntentSchema, ClassificationMethodSchema, type Intent } from "./intent.js";

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

/** Zod schema of {@link ScoreAdjustment}. */
export const ScoreAdjustmentSchema = z.object({
  source: z.string().describe("What adjusted the components, e.g. `learned-prior`."),
  original: z
    .object({ flow_match: unit, performance: unit })
    .describe("The `flow_match` and `performance` components before the adjustment (the breakdown holds the adjusted ones)."),
  delta: z
    .object({ flow_match: z.number().min(-1).max(1), performance: z.number().min(-1).max(1) })
    .describe("The adjustment as applied (bounded), before clamping the components to 0..1."),
  reason: z.string().describe("Why, in one line (e.g. the measured success rate against the intent's other flows)."),
});

/**
 * A bounded adjustment of a candidate's `flow_match` and `performance` components (e.g. by a learned routing prior),
 * with the values before it and the reason, so `explain_routing` shows what was learned.
 */
export type ScoreAdjustment = z.infer<typeof ScoreAdjustmentSchema>;

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
  adjustment: ScoreAdjustmentSchema.optional().describe("The adjustment of the breakdown (e.g. the learned routing prior), if any."),
});

/** One scored (backend, flow) candidate. */
export type RoutingCandidate = z.infer<typeof RoutingCandidateSchema>;

/** Zod schema of {@link RoutingStrategy}. */
export const RoutingStrategySchema = z.enum(["direct", "override", "hedge", "general-purpose", "default-flow"]);

/**
 * How a decision orders its candidates: `direct` (by score), `override` (the user's backend/flow first), `hedge` (the
 * top two backends in parallel), `general-purpose` (general-purpose flows first) or `default-flow` (the configured
 * default flow first).
 */
export type RoutingStrategy = z.infer<typeof RoutingStrategySchema>;

/** Zod schema of {@link RoutingExperimentArm}. */
export const RoutingExperimentArmSchema = z.object({
  experimentId: z.string().min(1),
  arm: z.enum(["control", "variant"]),
  label: z.string().optional().describe("The variant's label, if configured."),
});

/** The A/B experiment arm a decision was made in. */
export type RoutingExperimentArm = z.infer<typeof RoutingExperimentArmSchema>;

/** Zod schema of {@link RoutingDecision}. */
export const RoutingDecisionSchema = z.object({
  intent: IntentSchema,
  confidence: unit,
  confidenceLevel: ConfidenceLevelSchema,
  method: ClassificationMethodSchema,
  cascade: CascadeStepSchema.optional().describe("With a classifier cascade: which stage decided the intent."),
  alternatives: z.array(IntentAlternativeSchema).default([]),
  weights: ScoringWeightsSchema,
  candidates: z.array(RoutingCandidateSchema).describe("Ranked, best first."),
  chosen: z
    .object({ backendId: z.string(), flowId: z.string(), backendFlowId: z.string() })
    .nullable()
    .describe("The candidate to try first, or null when none is usable."),
  strategy: RoutingStrategySchema,
  binding: z
    .boolean()
    .optional()
    .describe("True when an explicit backend or flow choice restricts the candidates to it (no fallback to others); absent otherwise."),
  reason: z.string().describe("Human-readable explanation of the choice."),
  decidedInMs: z.number().nonnegative().optional(),
  experiment: RoutingExperimentArmSchema.optional().describe("The A/B experiment arm of this decision, if the request takes part in one."),
});

/** The router's full decision for one question, with every candidate's score breakdown. */
export type RoutingDecision = z.infer<typeof RoutingDecisionSchema>;

/** The candidate a {@link ScoreAdjuster} is asked about: which flow, with its unadjusted breakdown. */
export interface ScoreAdjusterCandidate {
  backendId: string;
  /** Gateway-wide flow id. */
  flowId: string;
  /** The components before any adjustment. */
  breakdown: Readonly<ScoreBreakdown>;
}

/** What a {@link ScoreAdjuster} asks for: deltas of two components and why. */
export interface ScoreAdjusterResult {
  /** Added to `flow_match` (the router bounds it, then clamps the component to 0..1). */
  flow_match: number;
  /** Added to `performance` (bounded and clamped likewise). */
  performance: number;
  /** One-line explanation, shown in the candidate's `adjustment.reason`. */
  reason: string;
  /** Name of the adjuster. @default "learned-prior" */
  source?: string | undefined;
}

/**
 * A synchronous hook of the router's scoring: given the intent and a candidate's unadjusted breakdown, returns deltas of
 * its `flow_match` and `performance` components (or undefined for none).
 * @example
 * ```ts
 * const adjuster: ScoreAdjuster = (intent, candidate) =>
 *   candidate.flowId === "flowise:slow" ? { flow_match: -0.1, performance: -0.1, reason: "often fails" } : undefined;
 * ```
 */
export type ScoreAdjuster = (intent: Intent, candidate: ScoreAdjusterCandidate) => ScoreAdjusterResult | undefined;

/** What a {@link RoutingVariantSelector} sees of a request. */
export interface RoutingVariantRequest {
  /** The classified (or explicit) intent. */
  intent: Intent;
  /** Trace of the request (its ids are the A/B units). */
  traceId?: string | undefined;
  requestId?: string | undefined;
  sessionId?: string | undefined;
}

/** An A/B arm and, in the variant arm, the routing settings it changes. */
export interface RoutingVariant extends RoutingExperimentArm {
  /** Scoring weights of the arm, merged over the router's. */
  weights?: Partial<ScoringWeights> | undefined;
  /** Strategy of the arm (applied when possible: `hedge` needs two usable backends, `default-flow` a default flow). */
  strategy?: RoutingStrategy | undefined;
}

/**
 * A synchronous hook of the router: assigns a request (after classification) to an A/B arm, or
 * returns undefined when no experiment applies. `@afw/analytics`' A/B assignment provides one.
 */
export type RoutingVariantSelector = (request: RoutingVariantRequest) => RoutingVariant | undefined;
