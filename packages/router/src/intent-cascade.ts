import { z } from "zod";
import { AfwError, type Embedder } from "@afw/contracts";
import type { IntentModel } from "./intent-model.js";

/** Default {@link IntentCascadeOptions.threshold}: chosen on tuning data (record `docs/decisions/2026-11-29-router-cascade.md`). */
export const DEFAULT_CASCADE_THRESHOLD = 0.7;

/** Default {@link IntentCascadeOptions.timeoutMs}. */
export const DEFAULT_CASCADE_TIMEOUT_MS = 500;

/** How the second model's probabilities are used: `replace` (the second model answers alone) or `average` (the mean of both models' probabilities). */
export const CascadeCombinationSchema = z.enum(["replace", "average"]);

/** Zod schema of the scalar settings of {@link IntentCascadeOptions} (the embedder and the model are objects, checked by the classifier). */
export const IntentCascadeSettingsSchema = z
  .object({
    threshold: z.number().min(0).max(1).default(DEFAULT_CASCADE_THRESHOLD)
      .describe("Top confidence of the first model below which the second model is asked."),
    timeoutMs: z.number().int().positive().max(60_000).default(DEFAULT_CASCADE_TIMEOUT_MS)
      .describe("Longest wait for the second model (its loading and embedding); after it the first model's answer stands."),
    combine: CascadeCombinationSchema.default("replace").describe("How the second model's probabilities are used."),
  })
  .strict();

/** The scalar settings of a cascade, defaults applied. */
export type IntentCascadeSettings = z.infer<typeof IntentCascadeSettingsSchema>;

/**
 * A two-model cascade of {@link IntentClassifierOptions.cascade}: the classifier's own (fast) model answers every question
 * the patterns leave open; when its top confidence is below `threshold`, a second model — by default the Universal Sentence
 * Encoder lite model with its embedding on the process's worker thread — answers instead. The second model's failure,
 * overload (16 of its embeddings still unanswered, or a full worker queue) or a wait longer than `timeoutMs` keeps the first
 * model's answer; the result's `cascade` field says which stage answered.
 *
 * @example
 * ```ts
 * const classifier = createIntentClassifier({ cascade: { threshold: 0.7, timeoutMs: 500 } });
 * ```
 */
export interface IntentCascadeOptions {
  /**
   * Embedder of the second model. Without one, the classifier creates `createUseEmbedder({ thread: "worker" })` and closes
   * it (the process's embedding worker) when it is closed; an embedder passed in is the caller's to close.
   */
  embedder?: Embedder;
  /** The second model; by default the model shipped for the embedder's id (trained at first use when none is shipped). */
  model?: IntentModel;
  /** @default DEFAULT_CASCADE_THRESHOLD (0.7) */
  threshold?: number;
  /** @default DEFAULT_CASCADE_TIMEOUT_MS (500) */
  timeoutMs?: number;
  /** @default "replace" */
  combine?: z.infer<typeof CascadeCombinationSchema>;
}

/**
 * Parses the scalar settings of a cascade.
 * @throws AfwError `CONFIG_INVALID` when a setting is out of range.
 */
export function parseCascadeSettings(options: IntentCascadeOptions): IntentCascadeSettings {
  const { embedder: _embedder, model: _model, ...settings } = options;
  const parsed = IntentCascadeSettingsSchema.safeParse(settings);
  if (!parsed.success) throw new AfwError("CONFIG_INVALID", `invalid intent cascade settings: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** The probabilities of the cascade's answer when the second model answered (`first` and `second` are calibrated distributions). */
export function combineCascade(first: Float64Array, second: Float64Array, combine: IntentCascadeSettings["combine"]): Float64Array {
  if (combine === "replace") return second;
  const out = new Float64Array(first.length);
  for (let i = 0; i < out.length; i++) out[i] = (first[i]! + second[i]!) / 2;
  return out;
}
