import { z } from "zod";

/**
 * The six intents the gateway routes on. - `creative-orientation`: envisioning outcomes, goals, vision, creative
 * projects. - `technical-analysis`: code, debugging, errors, library/API usage. - `structural-thinking`: system design,
 * architecture, organising components or processes. - `conversation`: general chat and everyday questions needing no
 * documents and no code. - `rag-retrieval`: looking things up in documents or a knowledge base, citing sources. -
 * `data-processing`: ETL, transforming/cleaning data, CSV/JSON/SQL, aggregations.
 */
export const INTENTS = [
  "creative-orientation",
  "technical-analysis",
  "structural-thinking",
  "conversation",
  "rag-retrieval",
  "data-processing",
] as const;

/** Zod schema of {@link Intent}. */
export const IntentSchema = z.enum(INTENTS).describe("One of the six routing intents.");

/** One of the six routing intents (see {@link INTENTS}). */
export type Intent = z.infer<typeof IntentSchema>;

/** How an intent was decided. */
export const ClassificationMethodSchema = z.enum(["explicit", "pattern", "lexical", "semantic", "hybrid", "default"]);

/** How an intent was decided; see {@link ClassificationMethodSchema}. */
export type ClassificationMethod = z.infer<typeof ClassificationMethodSchema>;

/** Zod schema of {@link CascadeStep}. */
export const CascadeStepSchema = z.enum(["confident", "escalated", "escalation-failed"]);

/**
 * Which stage of a two-model cascade answered: `confident` (the first, fast model was sure enough), `escalated` (the first
 * model was unsure and the second, slower model answered) or `escalation-failed` (the second model failed, was overloaded or
 * too slow, so the first model's answer stands). Absent when no cascade ran (explicit intent, patterns, a single model).
 */
export type CascadeStep = z.infer<typeof CascadeStepSchema>;

/** Zod schema of {@link IntentAlternative}. */
export const IntentAlternativeSchema = z.object({
  intent: IntentSchema,
  confidence: z.number().min(0).max(1),
});

/** A runner-up intent and its confidence. */
export type IntentAlternative = z.infer<typeof IntentAlternativeSchema>;

/** Zod schema of {@link IntentClassification}. */
export const IntentClassificationSchema = z.object({
  intent: IntentSchema,
  confidence: z.number().min(0).max(1).describe("Calibrated probability that `intent` is right, 0..1."),
  method: ClassificationMethodSchema,
  alternatives: z.array(IntentAlternativeSchema).describe("Runner-up intents, best first."),
  cascade: CascadeStepSchema.optional().describe("With a classifier cascade: which stage answered."),
});

/**
 * The result of classifying a question.
 * @example
 * ```ts
 * const c: IntentClassification = {
 *   intent: "technical-analysis",
 *   confidence: 0.93,
 *   method: "hybrid",
 *   alternatives: [{ intent: "structural-thinking", confidence: 0.04 }],
 * };
 * ```
 */
export type IntentClassification = z.infer<typeof IntentClassificationSchema>;

/**
 * Confidence bands that drive routing behaviour: `high` routes directly, `medium` routes and may
 * hedge, `low` prefers general-purpose flows or hedges two backends, `none` uses the default flow.
 */
export const ConfidenceLevelSchema = z.enum(["high", "medium", "low", "none"]);

/** A confidence band; see {@link ConfidenceLevelSchema}. */
export type ConfidenceLevel = z.infer<typeof ConfidenceLevelSchema>;
