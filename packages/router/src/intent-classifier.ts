import {
  AfwError,
  INTENTS,
  emitTrace,
  type ConfidenceLevel,
  type Embedder,
  type Intent,
  type IntentAlternative,
  type CascadeStep,
  type IntentClassification,
  type TraceContext,
} from "@afw/contracts";
import { createStaticEmbedder, createUseEmbedder } from "@afw/embeddings";
import { DEFAULT_INTENT_PATTERNS } from "./default-intent-patterns.js";
import { compileIntentPatterns, type IntentPatternConfigInput, type IntentPatternMatcher, type PatternMatch } from "./intent-patterns.js";
import { buildIntentFeatureRow, hashIntentExemplars, hashIntentPatterns, intentModelText, trainIntentModel, type IntentExemplar, type IntentModel } from "./intent-model.js";
import { loadBundledIntentModel } from "./intent-model-file.js";
import { combineCascade, parseCascadeSettings, type IntentCascadeOptions } from "./intent-cascade.js";
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
  /**
   * A second, slower model asked only when this classifier's model is unsure (see {@link IntentCascadeOptions}); `{}` takes
   * the defaults: the Universal Sentence Encoder lite model on the process's embedding worker thread below confidence 0.7.
   * @default no cascade
   * @example
   * ```ts
   * const classifier = createIntentClassifier({ cascade: { threshold: 0.7 } });
   * const { intent, cascade } = await classifier.classify("Any thoughts on my week?"); // cascade: "confident" | "escalated" | "escalation-failed"
   * ```
   */
  cascade?: IntentCascadeOptions;
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
  /**
   * Releases what the classifier holds: the embedding worker of a cascade it created (nothing for the default embedder; an
   * embedder passed in is the caller's to close).
   */
  close?(): Promise<void>;
}

const modelCache = new Map<string, Promise<IntentModel>>();

/** Longest wait of `warmUp` for a cascade's second model (its embedding worker loads the model). */
const CASCADE_WARM_UP_MS = 60_000;

/**
 * Most second-model embeddings of one cascade waiting at once; more escalations keep the first answer at once. At ~20 ms of
 * worker time each, 16 waiting take ~320 ms, within the default 500 ms timeout.
 */
const MAX_PENDING_ESCALATIONS = 16;

/** Confidence multiplier (towards uniform) of an answer given without the sentence embedding. */
const EMBEDDING_MISSING_SHRINK = 0.6;

function raceTimeout<T>(promise: Promise<T>, ms: number, signal?: AbortSignal): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    // An abort listener added to a signal that has already aborted never fires.
    if (signal?.aborted) {
      promise.catch(() => {});
      reject(new AfwError("ABORTED", "intent classification was aborted", { cause: signal.reason }));
      return;
    }
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

interface ModelLoader {
  embedder: Embedder;
  /** The model once loaded. */
  current(): IntentModel | undefined;
  /** Loads (or trains) the model once; a failed load is retried by the next call. */
  load(): Promise<IntentModel>;
}

/** Lazily resolves the model of `embedder`: the one given, else the bundled one, else one trained at first use (once per process). */
function modelLoader(embedder: Embedder, given: IntentModel | undefined, matcher: IntentPatternMatcher, options: IntentClassifierOptions): ModelLoader {
  let loaded = given;
  if (loaded && loaded.embedderId !== embedder.id) {
    throw new AfwError("CONFIG_INVALID", `intent model was trained for embedder ${loaded.embedderId}, not ${embedder.id}`);
  }
  let loading: Promise<IntentModel> | undefined = loaded ? Promise.resolve(loaded) : undefined;
  const load = (): Promise<IntentModel> => {
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
  return { embedder, current: () => loaded, load };
}

/** Each model's scorer: its weights copied feature-major once (one cache line per hashed feature instead of one per class). */
const scorers = new WeakMap<IntentModel, ReturnType<typeof createSoftmaxScorer>>();
function scorerOf(model: IntentModel): ReturnType<typeof createSoftmaxScorer> {
  let scorer = scorers.get(model);
  if (!scorer) scorers.set(model, (scorer = createSoftmaxScorer(model.weights)));
  return scorer;
}

/** An embedder that also embeds synchronously (the static one): it is called in place, with no timer to race. */
type SyncEmbedder = Embedder & { embedSync(text: string): Float32Array };

function hasEmbedSync(embedder: Embedder): embedder is SyncEmbedder {
  return typeof (embedder as Partial<SyncEmbedder>).embedSync === "function";
}

/** The synchronous embedding, or undefined when it fails (the model then answers without it, as after a timeout). */
function embedSyncOrUndefined(embedder: SyncEmbedder, text: string): Float32Array | undefined {
  try {
    return embedder.embedSync(text);
  } catch {
    return undefined;
  }
}

/**
 * The calibrated probabilities of `model` for a request, with the embedding when `embedder` gave it within `timeoutMs`
 * (`embedded` false otherwise: the probabilities are then the model's on the other features).
 * @throws AfwError `ABORTED` when `signal` aborts.
 */
async function modelProbabilities(
  model: IntentModel,
  embedder: Embedder,
  request: string,
  patternScores: Float64Array,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<{ probabilities: Float64Array; embedded: boolean }> {
  const row = buildIntentFeatureRow(request, undefined, patternScores, model.features, model.dimensions);
  const text = intentModelText(request, model.features);
  const embedding = hasEmbedSync(embedder) ? embedSyncOrUndefined(embedder, text) : (await raceTimeout(embedder.embed([text], signal), timeoutMs, signal))?.[0];
  if (embedding) for (let i = 0; i < model.dimensions; i++) row.dense[i] = (embedding[i] ?? 0) * model.features.embeddingScale;
  return { probabilities: softmaxInPlace(scorerOf(model)(row), model.temperature), embedded: embedding !== undefined };
}

/**
 * Creates the intent classifier: explicit intent wins; otherwise configurable patterns decide
 * alone when one intent clearly leads (fast path, ~10 µs); otherwise a softmax regression over
 * the sentence embedding, hashed words/character n-grams and the pattern scores decides, with a
 * temperature-calibrated confidence. With `cascade`, a second model (by default the USE lite model, its embedding on the
 * process's worker thread) answers the questions that model is unsure of; the result's `cascade` says which stage answered.
 *
 * @throws AfwError `CONFIG_INVALID` when `cascade` settings are out of range or a model was trained for another embedder.
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
  const first = modelLoader(embedder, options.model, matcher, options);
  const cascadeSettings = options.cascade ? parseCascadeSettings(options.cascade) : undefined;
  const ownedCascadeEmbedder = options.cascade && !options.cascade.embedder ? createUseEmbedder({ thread: "worker" }) : undefined;
  let closed = false;
  const second = options.cascade ? modelLoader(options.cascade.embedder ?? ownedCascadeEmbedder!, options.cascade.model, matcher, options) : undefined;

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
      ...(out.cascade ? { cascade: out.cascade } : {}),
      alternatives: out.alternatives,
      durationMs,
    });
    return out;
  };

  // Second-model embeddings not yet answered (also those whose wait timed out: the worker still computes them).
  let pendingEscalations = 0;
  const countedSecondEmbedder: Embedder | undefined = second && {
    id: second.embedder.id,
    dimensions: second.embedder.dimensions,
    embed(texts, signal) {
      pendingEscalations++;
      const settled = () => void pendingEscalations--;
      const vectors = second.embedder.embed(texts, signal);
      vectors.then(settled, settled);
      return vectors;
    },
  };
  /**
   * The second model's probabilities, or undefined when it failed, is overloaded or was too slow (the first answer stands).
   * @throws AfwError `ABORTED` when `signal` aborts.
   */
  const secondOpinion = async (request: string, patternScores: Float64Array, signal: AbortSignal | undefined): Promise<Float64Array | undefined> => {
    // A closed classifier does not start the embedding worker again; a busy one answers with the first model at once
    // rather than queue work it could not finish within the timeout.
    if (closed || pendingEscalations >= MAX_PENDING_ESCALATIONS) return undefined;
    const escalation = (async () => {
      const model = second!.current() ?? (await second!.load());
      const answer = await modelProbabilities(model, countedSecondEmbedder!, request, patternScores, cascadeSettings!.timeoutMs, signal);
      return answer.embedded ? answer.probabilities : undefined;
    })();
    // One bound for loading the model (trained at first use with own exemplars) and embedding; failures resolve undefined.
    return raceTimeout(escalation, cascadeSettings!.timeoutMs, signal);
  };

  return {
    thresholds,
    async close() {
      closed = true;
      await ownedCascadeEmbedder?.close();
    },
    async warmUp() {
      scorerOf(await first.load());
      await warmEmbedder(embedder);
      // The second model is optional: a cascade whose model cannot load (or not within a bounded wait) answers with the first one.
      if (second && !closed) await raceTimeout(Promise.all([second.load(), warmEmbedder(second.embedder)]), CASCADE_WARM_UP_MS);
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
        const confidence = first.current()?.fastPathPrecision ?? 0.95;
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
      const model = first.current() ?? (await first.load());
      const answer = await modelProbabilities(model, embedder, structure.request, pattern.scores, embeddingTimeoutMs, context?.signal);
      // Without the embedding (an embedder passed in failed, is overloaded or too slow) the model answers less sure.
      let probabilities = answer.embedded
        ? answer.probabilities
        : answer.probabilities.map((p) => EMBEDDING_MISSING_SHRINK * p + (1 - EMBEDDING_MISSING_SHRINK) / INTENTS.length);
      let embedded = answer.embedded;
      let cascade: CascadeStep | undefined;
      if (cascadeSettings) {
        cascade = "confident";
        if (Math.max(...probabilities) < cascadeSettings.threshold) {
          const secondProbabilities = await secondOpinion(structure.request, pattern.scores, context?.signal);
          cascade = secondProbabilities ? "escalated" : "escalation-failed";
          if (secondProbabilities) {
            probabilities = combineCascade(probabilities, secondProbabilities, cascadeSettings.combine);
            embedded = true;
          }
        }
      }
      const order = INTENTS.map((_, i) => i).sort((a, b) => probabilities[b]! - probabilities[a]!);
      return finish(started, context, {
        intent: INTENTS[order[0]!]!,
        confidence: probabilities[order[0]!]!,
        method: !embedded ? "lexical" : pattern.matches.length > 0 ? "hybrid" : "semantic",
        ...(cascade ? { cascade } : {}),
        alternatives: order
          .slice(1)
          .map((i) => ({ intent: INTENTS[i]!, confidence: probabilities[i]! }))
          .filter((a) => a.confidence >= 0.01)
          .slice(0, 3),
        matches: pattern.matches,
        probabilities: Object.fromEntries(INTENTS.map((intent, i) => [intent, probabilities[i]!])),
      });
    },
  };
}

/** Loads an embedder's model (when it has `warmUp`) and runs one embedding. */
async function warmEmbedder(embedder: Embedder): Promise<void> {
  const maybeWarm = embedder as Embedder & { warmUp?: () => Promise<void> };
  if (typeof maybeWarm.warmUp === "function") await maybeWarm.warmUp();
  await embedder.embed(["warm up"]);
}
