import {
  INTENTS,
  percentiles,
  type BackendHealth,
  type BackendKind,
  type Intent,
  type PerformanceSample,
  type ScoreAdjusterResult,
  type ScoreAdjustment,
  type ScoringWeights,
} from "@afw/contracts";
import type { FlowProfile } from "./flow-profiles.js";

/** Capability scores (0..1) per backend kind and intent: Langflow 1.0 RAG / 0.7 conversation; Flowise 1.0 conversation / 0.7 RAG. */
const DEFAULT_CAPABILITIES: Readonly<Record<string, Partial<Record<Intent, number>>>> = Object.freeze({
  langflow: { "rag-retrieval": 1, conversation: 0.7 },
  flowise: { conversation: 1, "rag-retrieval": 0.7 },
});

/** The `flow_match` values of the formula. */
export const FLOW_MATCH_SCORES = Object.freeze({ exact: 1, partial: 0.7, generalPurpose: 0.3, none: 0 });

/**
 * `flow_match`: 1.0 when the flow's primary intent is `intent`, 0.7 when `intent` is among its other intents or a flow keyword
 * occurs in the question, 0.3 for a general-purpose flow, else 0.
 * @param questionWords - Folded words of the question (for keyword overlap); may be empty.
 */
export function flowMatchScore(profile: FlowProfile, intent: Intent, questionWords: ReadonlySet<string>): number {
  const index = INTENTS.indexOf(intent);
  if (profile.primaryIntentIndex === index) return FLOW_MATCH_SCORES.exact;
  if ((profile.intentMask & (1 << index)) !== 0) return FLOW_MATCH_SCORES.partial;
  if (profile.keywords.size > 0 && questionWords.size > 0) {
    const [small, large] = profile.keywords.size < questionWords.size ? [profile.keywords, questionWords] : [questionWords, profile.keywords];
    for (const word of small) if (large.has(word)) return FLOW_MATCH_SCORES.partial;
  }
  if (profile.generalPurpose) return FLOW_MATCH_SCORES.generalPurpose;
  return FLOW_MATCH_SCORES.none;
}

/** `health`: 1 healthy, 0.5 slow, 0 down; 0.5 when no snapshot exists. */
export function healthScore(health: Pick<BackendHealth, "status"> | undefined): number {
  if (!health) return 0.5;
  return health.status === "healthy" ? 1 : health.status === "slow" ? 0.5 : 0;
}

/** `capability`: the backend's `capabilities`, else {@link DEFAULT_CAPABILITIES} of its kind, else 0.5 (a flow's own override is applied by the router). */
export function capabilityScore(intent: Intent, kind: BackendKind, backendCapabilities?: Partial<Record<Intent, number>>): number {
  const value = backendCapabilities?.[intent] ?? DEFAULT_CAPABILITIES[kind]?.[intent] ?? 0.5;
  return Math.min(1, Math.max(0, value));
}

/** Summary of a performance window. */
export interface PerformanceSummary {
  samples: number;
  /** Recency-weighted success rate (0..1). */
  successRate: number;
  /** Median latency of successful calls (ms), or undefined. */
  p50Ms: number | undefined;
  /** 95th percentile latency of successful calls (ms), or undefined. */
  p95Ms: number | undefined;
  /** The `performance` score (0..1). */
  score: number;
}

/** Latency that scores 0.5 (1 at 0 ms). */
const REFERENCE_LATENCY_MS = 2_000;
/** Age at which a sample weighs half. */
const HALF_LIFE_MS = 600_000;
const DECAY_PER_MS = -Math.LN2 / HALF_LIFE_MS;
/** Score with no samples, and the prior few samples are pulled towards. */
export const NEUTRAL_PERFORMANCE_SCORE = 0.5;
/** Strength of that prior, in samples. */
const PRIOR_SAMPLES = 3;

/**
 * Turns a window of samples into the `performance` score:
 * `0.6 * successRate + 0.4 * (0.7 * L(p50) + 0.3 * L(p95))` with `L(x) = ref / (ref + x)` (ref 2 s); samples
 * are weighted by recency (`0.5 ** (age / 10 min)`) and the result is pulled towards
 * the neutral 0.5 when few samples exist.
 *
 * @example
 * ```ts
 * summarizePerformance(samples, Date.now()).score
 * ```
 */
export function summarizePerformance(samples: readonly PerformanceSample[], now: number): PerformanceSummary {
  const reference = REFERENCE_LATENCY_MS;
  const neutral = NEUTRAL_PERFORMANCE_SCORE;
  const prior = PRIOR_SAMPLES;
  if (samples.length === 0) return { samples: 0, successRate: Number.NaN, p50Ms: undefined, p95Ms: undefined, score: neutral };
  let weightSum = 0;
  let successWeight = 0;
  const latencies: number[] = [];
  for (const s of samples) {
    const age = Math.max(0, now - s.timestamp);
    const w = Math.exp(age * DECAY_PER_MS); // 0.5 ** (age / HALF_LIFE_MS), ~4x cheaper
    weightSum += w;
    if (s.success) {
      successWeight += w;
      latencies.push(s.latencyMs);
    }
  }
  const successRate = weightSum > 0 ? successWeight / weightSum : 0;
  const [p50, p95] = percentiles(latencies, [50, 95]);
  const l = (x: number | undefined) => (x === undefined ? 0 : reference / (reference + x));
  const raw = 0.6 * successRate + 0.4 * (0.7 * l(p50) + 0.3 * l(p95));
  const score = (weightSum * raw + prior * neutral) / (weightSum + prior);
  return { samples: samples.length, successRate, p50Ms: p50, p95Ms: p95, score: Math.min(1, Math.max(0, score)) };
}

/** Default bound of a score adjuster's delta of one component (see {@link adjustBreakdown}). */
export const DEFAULT_MAX_SCORE_ADJUSTMENT = 0.25;

/**
 * Applies a score adjuster's request to the `flow_match` and `performance` components: each delta is bounded to ±`maxAdjustment`
 * (a non-finite delta counts as 0), each component clamped to 0..1.
 */
export function adjustBreakdown(
  components: { flow_match: number; performance: number },
  requested: ScoreAdjusterResult,
  maxAdjustment: number = DEFAULT_MAX_SCORE_ADJUSTMENT,
): { flow_match: number; performance: number; adjustment: ScoreAdjustment } {
  const bound = Math.min(1, Math.max(0, maxAdjustment));
  const delta = (value: number) => (Number.isFinite(value) ? Math.max(-bound, Math.min(bound, value)) : 0);
  const unit = (value: number) => Math.max(0, Math.min(1, value));
  const dFlow = delta(requested.flow_match);
  const dPerf = delta(requested.performance);
  return {
    flow_match: unit(components.flow_match + dFlow),
    performance: unit(components.performance + dPerf),
    adjustment: {
      source: requested.source ?? "learned-prior",
      original: { flow_match: components.flow_match, performance: Math.round(components.performance * 1e6) / 1e6 },
      delta: { flow_match: dFlow, performance: dPerf },
      reason: typeof requested.reason === "string" ? requested.reason : "",
    },
  };
}

/** The weights of `partial` that are set (an explicit `undefined` must not erase a configured weight). */
export function definedWeights(partial: Partial<ScoringWeights>): Partial<ScoringWeights> {
  const out: Partial<ScoringWeights> = {};
  for (const key of ["flow_match", "health", "performance", "capability"] as const) {
    const value = partial[key];
    if (typeof value === "number" && Number.isFinite(value) && value >= 0) out[key] = value;
  }
  return out;
}

/** Rounds a score to six decimals for decisions. */
export function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** The `limit` smallest items under `compare`, sorted (partial selection, O(n·limit) worst case, O(n) typical). */
export function selectTop<T>(items: readonly T[], limit: number, compare: (a: T, b: T) => number): T[] {
  const top: T[] = [];
  for (const item of items) {
    if (top.length === limit && compare(item, top[top.length - 1]!) >= 0) continue;
    let i = top.length;
    while (i > 0 && compare(item, top[i - 1]!) < 0) i--;
    top.splice(i, 0, item);
    if (top.length > limit) top.pop();
  }
  return top;
}
