import { createHash } from "node:crypto";
import { z } from "zod";
import { AfwError, INTENTS, IntentSchema, type Embedder, type Intent } from "@afw/contracts";
import { compileIntentLexicon, hashIntentLexicon, type IntentLexicon, type LexiconMatch } from "./intent-lexicon.js";
import { compileIntentPatterns, type IntentPatternConfigInput, type IntentPatternMatcher } from "./intent-patterns.js";
import { lexicalFeatures, type SparseVector } from "./lexical-features.js";
import { readPrompt } from "./prompt-structure.js";
import {
  softmaxInPlace,
  softmaxLogits,
  trainSoftmaxRegression,
  type FeatureRow,
  type SoftmaxTrainingOptions,
  type SoftmaxWeights,
} from "./softmax-regression.js";
import { truncateForModel } from "./text-normalization.js";
import { parseConfigText } from "./config-text.js";

/** One labelled example question. */
export interface IntentExemplar {
  text: string;
  intent: Intent;
}

/** How the model turns a question into features. */
export interface IntentFeatureSettings {
  /** Multiplier of the (unit) sentence embedding. */
  embeddingScale: number;
  /** Multiplier of the (unit) hashed lexical vector. */
  lexicalScale: number;
  /** Multiplier of the six squashed pattern scores. */
  patternScale: number;
  /** Lexical hash buckets = `2 ** hashBits`. */
  hashBits: number;
  /** Character n-gram lengths of the lexical features. */
  charNgrams: number[];
  /** Weight of a character n-gram relative to a word. */
  charWeight: number;
  /** Longest text given to the embedder (head and tail are kept). */
  modelCharacters: number;
  /** Weight of a cue-lexicon concept feature relative to a word (0: no concept features). */
  conceptWeight?: number;
  /** Append the English glosses of non-English cue words to the text the embedder sees. */
  glossModelText?: boolean;
}

/** Default {@link IntentFeatureSettings}. */
export const DEFAULT_INTENT_FEATURE_SETTINGS: Readonly<IntentFeatureSettings> = Object.freeze({
  embeddingScale: 1,
  lexicalScale: 0.75,
  patternScale: 0.5,
  hashBits: 14,
  charNgrams: [3, 4, 5],
  charWeight: 0.3,
  modelCharacters: 1_000,
  conceptWeight: 1.5,
  glossModelText: true,
});

let defaultLexicon: IntentLexicon | undefined;
const lexicon = () => (defaultLexicon ??= compileIntentLexicon());
let lastMatched: { text: string; match: LexiconMatch } | undefined;
/** The cue-lexicon match of `text`, remembering the last one (the model text and the feature row of a question both need it). */
function lexiconMatch(text: string): LexiconMatch {
  if (lastMatched?.text !== text) lastMatched = { text, match: lexicon().match(text) };
  return lastMatched.match;
}

/**
 * The text the sentence embedder sees for a question under `settings`: the question shortened to `modelCharacters`, plus (with
 * `glossModelText`) the English glosses of its non-English cue words.
 */
export function intentModelText(text: string, settings: IntentFeatureSettings): string {
  const base = truncateForModel(text, settings.modelCharacters);
  if (!settings.glossModelText) return base;
  const { glosses } = lexiconMatch(text);
  return glosses.length ? `${base} (${glosses.join(", ")})` : base;
}

/** Accuracy per confidence bucket. */
export interface CalibrationBucket {
  /** Lower bound of the bucket (inclusive). */
  from: number;
  /** Upper bound of the bucket (exclusive, except 1). */
  to: number;
  count: number;
  /** Share of correct answers in the bucket (NaN when empty). */
  accuracy: number;
  /** Mean predicted confidence in the bucket (NaN when empty). */
  meanConfidence: number;
}

/** Cross-validated quality of a trained model, measured on its own exemplars. */
export interface IntentModelEvaluation {
  folds: number;
  accuracy: number;
  perIntent: Record<Intent, number>;
  /** Mean negative log-likelihood of the calibrated probabilities (on the calibration items). */
  logLoss: number;
  calibration: CalibrationBucket[];
  /** How many exemplars the fast path decided, and how many of those were right. */
  fastPath: { decided: number; correct: number };
  /** Exemplars the out-of-fold model got wrong. */
  errors: { text: string; intent: Intent; predicted: Intent; confidence: number }[];
}

/** A trained intent model: feature settings, weights, calibration and the exemplars. */
export interface IntentModel {
  format: "afw-intent-model";
  version: 1;
  /** Id of the embedder whose vectors the weights expect. */
  embedderId: string;
  dimensions: number;
  /** SHA-256 of the exemplars (see {@link hashIntentExemplars}). */
  exemplarsHash: string;
  /** SHA-256 of the pattern configuration the model was trained with. */
  patternsHash: string;
  /** SHA-256 of the cue lexicon its features were computed with (absent in older models). */
  lexiconHash?: string | undefined;
  features: IntentFeatureSettings;
  training: Required<SoftmaxTrainingOptions>;
  /** Softmax temperature fitted on out-of-fold predictions (1 when trained without folds). */
  temperature: number;
  /** Smoothed precision of the fast path on the exemplars: the confidence it reports. */
  fastPathPrecision: number;
  weights: SoftmaxWeights;
  evaluation?: IntentModelEvaluation | undefined;
  exemplars: IntentExemplar[];
}

/** Zod schema of the exemplar file: a map from intent to a list of questions. */
export const IntentExemplarFileSchema = z.partialRecord(IntentSchema, z.array(z.string().min(1)));

/**
 * Parses an exemplar file (YAML or JSON: `{ <intent>: [question, ...] }`).
 * @throws AfwError `CONFIG_INVALID` when it does not fit.
 */
export function parseIntentExemplars(text: string): IntentExemplar[] {
  const file = parseConfigText(text, IntentExemplarFileSchema, "intent exemplars", null);
  const out: IntentExemplar[] = [];
  for (const intent of INTENTS) for (const question of file[intent] ?? []) out.push({ text: question.trim(), intent });
  return out;
}

/**
 * SHA-256 (hex) of exemplars in a canonical form; the committed model stores it so a test can tell when the exemplars changed but
 * the model was not retrained.
 */
export function hashIntentExemplars(exemplars: readonly IntentExemplar[]): string {
  const hash = createHash("sha256");
  for (const { intent, text } of exemplars) hash.update(intent).update("\t").update(text).update("\n");
  return hash.digest("hex");
}

/** SHA-256 (hex) of a pattern configuration (after defaults are applied). */
export function hashIntentPatterns(matcher: IntentPatternMatcher): string {
  return createHash("sha256").update(JSON.stringify(matcher.config)).digest("hex");
}

/**
 * Builds the feature row of one question: `[embedding * embeddingScale, tanh(patternScore / 4) * patternScale]` dense, plus hashed
 * lexical features * lexicalScale sparse.
 */
export function buildIntentFeatureRow(
  text: string,
  embedding: Float32Array | undefined,
  patternScores: Float64Array,
  settings: IntentFeatureSettings,
  dimensions: number,
): FeatureRow {
  const dense = new Float32Array(dimensions + INTENTS.length);
  if (embedding) for (let i = 0; i < dimensions; i++) dense[i] = (embedding[i] ?? 0) * settings.embeddingScale;
  for (let i = 0; i < INTENTS.length; i++) dense[dimensions + i] = Math.tanh((patternScores[i] ?? 0) / 4) * settings.patternScale;
  const lexical: SparseVector = lexicalFeatures(text, {
    hashBits: settings.hashBits,
    charNgrams: settings.charNgrams,
    charWeight: settings.charWeight,
    ...(settings.conceptWeight ? { concepts: lexiconMatch(text).concepts.map((c) => lexicon().concepts[c]!.gloss), conceptWeight: settings.conceptWeight } : {}),
  });
  if (settings.lexicalScale !== 1) for (let i = 0; i < lexical.values.length; i++) lexical.values[i] = lexical.values[i]! * settings.lexicalScale;
  return { dense, sparse: lexical };
}

/** Options of {@link trainIntentModel}. */
export interface TrainIntentModelOptions {
  exemplars: readonly IntentExemplar[];
  embedder: Embedder;
  /** Pattern configuration whose scores become features (use the classifier's). */
  patterns: IntentPatternConfigInput;
  features?: Partial<IntentFeatureSettings>;
  training?: SoftmaxTrainingOptions;
  /** Cross-validation folds used for calibration and the evaluation; 0 skips both. @default 5 */
  folds?: number;
  signal?: AbortSignal;
  /**
   * Indices (into `exemplars`) whose out-of-fold predictions fit the softmax temperature, e.g. the labelled real prompts, so the
   * confidence is calibrated on the kind of input it will meet.
   * @default every exemplar
   */
  calibrationIndices?: readonly number[];
  /** Progress messages (e.g. `console.error`). */
  onProgress?: (message: string) => void;
  /**
   * Receives the calibrated out-of-fold probabilities of every exemplar (in `exemplars` order, one per intent of {@link INTENTS})
   * after cross-validation, e.g. to tune a cascade on predictions no model was trained on.
   */
  onOutOfFold?: (probabilities: readonly Float64Array[]) => void;
}

/** Builds an accuracy-per-confidence table (reliability table) from predictions. */
export function buildCalibrationTable(confidences: number[], correct: boolean[], edges = [0, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1]): CalibrationBucket[] {
  const buckets: CalibrationBucket[] = [];
  for (let b = 0; b + 1 < edges.length; b++) {
    const from = edges[b]!;
    const to = edges[b + 1]!;
    let count = 0;
    let right = 0;
    let sum = 0;
    confidences.forEach((c, i) => {
      if (c >= from && (c < to || (to === 1 && c <= 1))) {
        count++;
        sum += c;
        if (correct[i]) right++;
      }
    });
    buckets.push({ from, to, count, accuracy: count ? right / count : Number.NaN, meanConfidence: count ? sum / count : Number.NaN });
  }
  return buckets;
}


function fitTemperature(logits: Float64Array[], labels: number[]): { temperature: number; logLoss: number } {
  let best = { temperature: 1, logLoss: Infinity };
  for (let t = 0.2; t <= 4.001; t += 0.05) {
    let loss = 0;
    logits.forEach((z, i) => {
      const p = softmaxInPlace(Float64Array.from(z), t);
      loss -= Math.log(Math.max(1e-12, p[labels[i]!]!));
    });
    loss /= logits.length;
    if (loss < best.logLoss) best = { temperature: Math.round(t * 100) / 100, logLoss: loss };
  }
  return best;
}

/**
 * Trains the classifier's model on `exemplars`: embeds them, computes pattern and lexical
 * features, trains a softmax regression, and (with `folds` > 0) fits the softmax temperature on
 * out-of-fold predictions and reports cross-validated accuracy and calibration.
 *
 * @example
 * ```ts
 * const model = await trainIntentModel({ exemplars, embedder: createUseEmbedder(), patterns: DEFAULT_INTENT_PATTERNS });
 * await writeFile("intent-model.json", serializeIntentModel(model));
 * ```
 */
export async function trainIntentModel(options: TrainIntentModelOptions): Promise<IntentModel> {
  const { exemplars, embedder } = options;
  if (exemplars.length === 0) throw new AfwError("CONFIG_INVALID", "cannot train an intent model without exemplars");
  const features: IntentFeatureSettings = { ...DEFAULT_INTENT_FEATURE_SETTINGS, ...options.features };
  const training: Required<SoftmaxTrainingOptions> = { epochs: 30, learningRate: 0.01, l2: 3e-4, seed: 1, seeds: 5, balanceClasses: true, ...options.training };
  const folds = options.folds ?? 5;
  const matcher = compileIntentPatterns(options.patterns);
  const progress = options.onProgress ?? (() => {});
  progress(`embedding ${exemplars.length} exemplars with ${embedder.id}`);
  const read = exemplars.map((e) => readPrompt(matcher, e.text));
  const vectors = await embedder.embed(
    read.map((r) => intentModelText(r.structure.request, features)),
    options.signal,
  );
  const patternScores = read.map((r) => r.pattern);
  const rows = read.map((r, i) => buildIntentFeatureRow(r.structure.request, vectors[i], patternScores[i]!.scores, features, embedder.dimensions));
  const labels = exemplars.map((e) => INTENTS.indexOf(e.intent));
  const shape = { classes: INTENTS.length, denseDimensions: embedder.dimensions + INTENTS.length, sparseDimensions: 2 ** features.hashBits };

  let fastDecided = 0;
  let fastCorrect = 0;
  patternScores.forEach((s, i) => {
    if (!s.decisive) return;
    fastDecided++;
    if (s.top === exemplars[i]!.intent) fastCorrect++;
  });
  let temperature = 1;
  let evaluation: IntentModelEvaluation | undefined;
  if (folds > 1) {
    const outOfFold: Float64Array[] = new Array(rows.length);
    // A row's fold follows from its text, not its position: adding or moving exemplars leaves every other row in its fold
    // (so cross-validation figures of two training sets compare like for like), and equal texts share a fold.
    const foldOf = exemplars.map((e) => createHash("sha256").update(e.text).digest().readUInt32BE(0) % folds);
    for (let fold = 0; fold < folds; fold++) {
      options.signal?.throwIfAborted();
      progress(`cross-validation fold ${fold + 1}/${folds}`);
      const train = rows.map((_, i) => i).filter((i) => foldOf[i] !== fold);
      const weights = trainSoftmaxRegression(
        train.map((i) => rows[i]!),
        train.map((i) => labels[i]!),
        shape,
        training,
      );
      for (let i = 0; i < rows.length; i++) if (foldOf[i] === fold) outOfFold[i] = softmaxLogits(weights, rows[i]!);
    }
    const calibrateOn = options.calibrationIndices?.length ? options.calibrationIndices : rows.map((_, i) => i);
    const fitted = fitTemperature(
      calibrateOn.map((i) => outOfFold[i]!),
      calibrateOn.map((i) => labels[i]!),
    );
    temperature = fitted.temperature;
    const top = (z: Float64Array, t: number) => {
      const p = softmaxInPlace(Float64Array.from(z), t);
      let best = 0;
      for (let c = 1; c < p.length; c++) if (p[c]! > p[best]!) best = c;
      return { best, confidence: p[best]! };
    };
    const fullTop = outOfFold.map((z) => top(z, temperature));
    options.onOutOfFold?.(outOfFold.map((z) => softmaxInPlace(Float64Array.from(z), temperature)));
    const confidences: number[] = [];
    const correct: boolean[] = [];
    const perIntentTotals = INTENTS.map(() => ({ n: 0, ok: 0 }));
    const errors: IntentModelEvaluation["errors"] = [];
    fullTop.forEach(({ best, confidence }, i) => {
      confidences.push(confidence);
      correct.push(best === labels[i]);
      if (best !== labels[i]) errors.push({ text: exemplars[i]!.text, intent: exemplars[i]!.intent, predicted: INTENTS[best]!, confidence: Math.round(confidence * 1000) / 1000 });
      perIntentTotals[labels[i]!]!.n++;
      if (best === labels[i]) perIntentTotals[labels[i]!]!.ok++;
    });
    evaluation = {
      folds,
      accuracy: correct.filter(Boolean).length / correct.length,
      perIntent: Object.fromEntries(INTENTS.map((intent, c) => [intent, perIntentTotals[c]!.n ? perIntentTotals[c]!.ok / perIntentTotals[c]!.n : Number.NaN])) as Record<
        Intent,
        number
      >,
      logLoss: fitted.logLoss,
      calibration: buildCalibrationTable(confidences, correct),
      fastPath: { decided: fastDecided, correct: fastCorrect },
      errors,
    };
  }
  options.signal?.throwIfAborted();
  progress("training the final model on every exemplar");
  const weights = trainSoftmaxRegression(rows, labels, shape, training);
  const fast = { decided: fastDecided, correct: fastCorrect };
  return {
    format: "afw-intent-model",
    version: 1,
    embedderId: embedder.id,
    dimensions: embedder.dimensions,
    exemplarsHash: hashIntentExemplars(exemplars),
    patternsHash: hashIntentPatterns(matcher),
    lexiconHash: hashIntentLexicon(),
    features,
    training,
    temperature,
    fastPathPrecision: (fast.correct + 1) / (fast.decided + 2),
    weights,
    evaluation,
    exemplars: exemplars.map((e) => ({ text: e.text, intent: e.intent })),
  };
}
