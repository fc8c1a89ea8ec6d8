import {
  AfwError,
  INTENTS,
  emitTrace,
  type ConfidenceLevel,
  type Embedder,
  type Intent,
  type IntentAlternative,
  type IntentClassification,
  type TraceContext,
} from "@afw/contracts";
import { createStaticEmbedder } from "@afw/embeddings";
import { DEFAULT_INTENT_PATTERNS } from "./default-intent-patterns.js";
import { compileIntentPatterns, type IntentPatternConfigInput, type PatternMatch } from "./intent-patterns.js";
import { buildIntentFeatureRow, hashIntentExemplars, hashIntentPatterns, intentModelText, trainIntentModel, type IntentExemplar, type IntentModel } from "./intent-model.js";
import { loadBundledIntentModel } from "./intent-model-file.js";
import { readPrompt } from "./prompt-structure.js";
import { createSoftmaxScorer, softmaxInPlace } from "./softmax-regression.js";

/** Confidence bands: a confidence `>= high` is `high`, `>= medium` is `medium`, `>= low` is `low`, else `none`. */
export interface ConfidenceThresholds {
  /** @default 0.8 */
  high: number;
  /** @default 0.55 */
  medium: number;
  /** @default 0.3 */
  low: number;
}

/** Default {@link ConfidenceThresholds}. */
export const DEFAULT_CONFIDENCE_THRESHOLDS: Readonly<ConfidenceThresholds> = Object.freeze({ high: 0.8, medium: 0.55, low: 0.3 });

/** Maps a confidence to its band. */
export function confidenceLevel(confidence: number, thresholds: ConfidenceThresholds = DEFAULT_CONFIDENCE_THRESHOLDS): ConfidenceLevel {
  if (confidence >= thresholds.high) return "high";
  if (confidence >= thresholds.medium) return "medium";
  if (confidence >= thresholds.low) return "low";
  return "none";
}

/** Per-request context of {@link IntentClassifier.classify}. */
export interface ClassifyContext {
  /** An explicit intent; always wins. `auto` (or absent) classifies. */
  intent?: Intent | "auto" | undefined;
  /** Cancels a pending embedding. */
  signal?: AbortSignal | undefined;
  /** Where to emit `intent-classified`. */
  trace?: TraceContext | undefined;
}

/** A classification with its confidence band and the evidence behind it. */
export interface IntentClassificationResult extends IntentClassification {
  /** Confidence band under the classifier's thresholds. */
  level: ConfidenceLevel;
  /** Pattern rules that matched. */
  matches: PatternMatch[];
  /** Probability of every intent (empty for explicit / fast-path / default answers). */
  probabilities: Partial<Record<Intent, number>>;
  /** Wall time of the classification. */
  durationMs: number;
}

/** Options of {@link createIntentClassifier}. */
export interface IntentClassifierOptions {
  /**
   * Sentence embedder whose vectors are features of the model, beside the words and patterns of the question.
   * @default createStaticEmbedder(): the static embedder distilled from the Universal Sentence Encoder (microseconds, on the calling thread)
   */
  embedder?: Embedder;
  /**
   * Pattern configuration (fast path and pattern features).
   * @default DEFAULT_INTENT_PATTERNS
   */
  patterns?: IntentPatternConfigInput;
  /** A trained model. */
  model?: IntentModel;
  /** Exemplars to train on at first use instead of using the bundled model. */
  exemplars?: IntentExemplar[];
  /** Confidence bands. */
  thresholds?: Partial<ConfidenceThresholds>;
  /**
   * Intent for empty input or when nothing can be decided.
   * @default "conversation"
   */
  defaultIntent?: Intent;
  /**
   * Longest wait for an embedder passed in; after it the model answers without the embedding, with its confidence shrunk towards
   * uniform (the default static embedder answers at once).
   * @default 5000
   */
  embeddingTimeoutMs?: number;
  /** Epochs when a model must be trained at first use. @default 30 */
  trainingEpochs?: number;
}

/** Classifies questions into the six routing intents. */
export interface IntentClassifier {
  /**
   * Classifies `question`.
   * @throws AfwError `ABORTED` when `context.signal` aborts.
   */
  classify(question: string, context?: ClassifyContext): Promise<IntentClassificationResult>;
  /** Loads (or trains) the model and the embedder, so the first `classify` is fast. */
  warmUp(): Promise<void>;
  /** The effective confidence thresholds. */
  readonly thresholds: Readonly<ConfidenceThresholds>;
  /** Releases what the classifier holds (nothing for the default embedder; an embedder passed in is the caller's to close). */
  close?(): Promise<void>;
}

const modelCache = new Map<string, Promise<IntentModel>>();

/** Confidence multiplier (towards uniform) of an answer given without the sentence embedding. */
const EMBEDDING_MISSING_SHRINK = 0.6;

function raceTimeout<T>(promise: Promise<T>, ms: number, signal?: AbortSignal): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AfwError("ABORTED", "intent classification was aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (signal?.aborted) reject(new AfwError("ABORTED", "intent classification was aborted", { cause: e }));
        else resolve(undefined);
      },
    );
  });
}

/**
 * Creates the intent classifier: explicit intent wins; otherwise configurable patterns decide
 * alone when one intent clearly leads (fast path, ~10 µs); otherwise a softmax regression over
 * the sentence embedding, hashed words/character n-grams and the pattern scores decides, with a
 * temperature-calibrated confidence.
 *
 * @example
 * ```ts
 * const classifier = createIntentClassifier();
 * const { intent, confidence, level } = await classifier.classify("Why does my build fail with ENOENT?");
 * ```
 */
export function createIntentClassifier(options: IntentClassifierOptions = {}): IntentClassifier {
  const embedder = options.embedder ?? createStaticEmbedder();
  const matcher = compileIntentPatterns(options.patterns ?? DEFAULT_INTENT_PATTERNS);
  const thresholds: ConfidenceThresholds = { ...DEFAULT_CONFIDENCE_THRESHOLDS, ...options.thresholds };
  const defaultIntent = options.defaultIntent ?? "conversation";
  const embeddingTimeoutMs = options.embeddingTimeoutMs ?? 5_000;
  let loaded: IntentModel | undefined = options.model;
  if (loaded && loaded.embedderId !== embedder.id) {
    throw new AfwError("CONFIG_INVALID", `intent model was trained for embedder ${loaded.embedderId}, not ${embedder.id}`);
  }
  let loading: Promise<IntentModel> | undefined = loaded ? Promise.resolve(loaded) : undefined;
  let scorer: { model: IntentModel; logits: ReturnType<typeof createSoftmaxScorer> } | undefined;
  const scorerOf = (model: IntentModel) => (scorer?.model === model ? scorer : (scorer = { model, logits: createSoftmaxScorer(model.weights) }));

  const resolveModel = (): Promise<IntentModel> => {
    loading ??= (async () => {
      let exemplars = options.exemplars;
      if (!exemplars) {
        const bundled = await loadBundledIntentModel(embedder.id);
        if (bundled) return bundled;
        const reference = await loadBundledIntentModel();
        exemplars = reference!.exemplars;
      }
      // One training per (embedder, exemplars, patterns, epochs) and process.
      const key = `${embedder.id}|${hashIntentExemplars(exemplars)}|${hashIntentPatterns(matcher)}|${options.trainingEpochs ?? 30}`;
      let trained = modelCache.get(key);
      if (!trained) {
        trained = trainIntentModel({
          exemplars,
          embedder,
          patterns: matcher.config,
          folds: 0,
          // One seed at first use keeps the wait short; the bundled model averages five.
          training: { epochs: options.trainingEpochs ?? 30, seeds: 1 },
        });
        modelCache.set(key, trained);
        trained.catch(() => modelCache.delete(key));
      }
      return trained;
    })().then(
      (model) => {
        loaded = model;
        return model;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };

  const finish = (
    started: number,
    context: ClassifyContext | undefined,
    result: Omit<IntentClassificationResult, "level" | "durationMs">,
  ): IntentClassificationResult => {
    const durationMs = performance.now() - started;
    const out: IntentClassificationResult = { ...result, level: confidenceLevel(result.confidence, thresholds), durationMs };
    emitTrace(context?.trace, "intent-classified", {
      intent: out.intent,
      confidence: out.confidence,
      method: out.method,
      alternatives: out.alternatives,
      durationMs,
    });
    return out;
  };

  return {
    thresholds,
    async close() {},
    async warmUp() {
      scorerOf(await resolveModel());
      const maybeWarm = embedder as Embedder & { warmUp?: () => Promise<void> };
      if (typeof maybeWarm.warmUp === "function") await maybeWarm.warmUp();
      await embedder.embed(["warm up"]);
    },
    async classify(question, context) {
      const started = performance.now();
      if (context?.intent && context.intent !== "auto") {
        return finish(started, context, {
          intent: context.intent,
          confidence: 1,
          method: "explicit",
          alternatives: [],
          matches: [],
          probabilities: {},
        });
      }
      const text = typeof question === "string" ? question.trim() : "";
      if (text.length === 0) {
        return finish(started, context, { intent: defaultIntent, confidence: 0, method: "default", alternatives: [], matches: [], probabilities: {} });
      }
      const { structure, pattern } = readPrompt(matcher, text);
      if (pattern.decisive && pattern.top) {
        const confidence = loaded?.fastPathPrecision ?? 0.95;
        const alternatives: IntentAlternative[] = [];
        let total = 0;
        pattern.scores.forEach((s, i) => {
          if (s > 0 && INTENTS[i] !== pattern.top) total += s;
        });
        const best = Math.max(...pattern.scores);
        pattern.scores.forEach((s, i) => {
          if (s > 0 && INTENTS[i] !== pattern.top) {
            alternatives.push({ intent: INTENTS[i]!, confidence: Math.min(1 - confidence, ((1 - confidence) * s) / Math.max(total, best)) });
          }
        });
        alternatives.sort((a, b) => b.confidence - a.confidence);
        return finish(started, context, { intent: pattern.top, confidence, method: "pattern", alternatives, matches: pattern.matches, probabilities: {} });
      }
      if (context?.signal?.aborted) throw new AfwError("ABORTED", "intent classification was aborted", { cause: context.signal.reason });
      const model = loaded ?? (await resolveModel());
      const row = buildIntentFeatureRow(structure.request, undefined, pattern.scores, model.features, model.dimensions);
      const modelText = intentModelText(structure.request, model.features);
      const vectors = await raceTimeout(embedder.embed([modelText], context?.signal), embeddingTimeoutMs, context?.signal);
      const embedding = vectors?.[0];
      // Without the embedding (an embedder passed in failed, is overloaded or too slow) the model answers less sure.
      const shrink = embedding ? 1 : EMBEDDING_MISSING_SHRINK;
      if (embedding) for (let i = 0; i < model.dimensions; i++) row.dense[i] = (embedding[i] ?? 0) * model.features.embeddingScale;
      const probabilities = softmaxInPlace(scorerOf(model).logits(row), model.temperature);
      const order = INTENTS.map((_, i) => i).sort((a, b) => probabilities[b]! - probabilities[a]!);
      const confidenceOf = (i: number) => shrink * probabilities[i]! + (1 - shrink) / INTENTS.length;
      return finish(started, context, {
        intent: INTENTS[order[0]!]!,
        confidence: confidenceOf(order[0]!),
        method: !embedding ? "lexical" : pattern.matches.length > 0 ? "hybrid" : "semantic",
        alternatives: order
          .slice(1)
          .map((i) => ({ intent: INTENTS[i]!, confidence: confidenceOf(i) }))
          .filter((a) => a.confidence >= 0.01)
          .slice(0, 3),
        matches: pattern.matches,
        probabilities: Object.fromEntries(INTENTS.map((intent, i) => [intent, confidenceOf(i)])),
      });
    },
  };
}
