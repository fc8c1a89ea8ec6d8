import { AfwError, IntentSchema, takeOldest, type Intent, type ScoreAdjuster, type TraceSink } from "@afw/contracts";
import type { AuditEvent } from "./audit-event.js";
import { eventTimeMs } from "./audit-event.js";
import {
  addPriorEntry,
  createMemoryPriorStore,
  decayPriorStats,
  emptyPriorStats,
  mergePriorStats,
  type LearnedPriorStore,
  type PriorEntry,
  type PriorStats,
} from "./prior-store.js";

/** Options of {@link createLearnedRoutingPrior}. */
export interface LearnedRoutingPriorOptions {
  /** Where the decayed sums live; a shared (Redis) store makes every instance learn. @default in memory */
  store?: LearnedPriorStore | undefined;
  /** The largest absolute adjustment of a score component, in (0, 1]. @default 0.15 */
  maxAdjustment?: number | undefined;
  /** Outcomes lose half their weight every `halfLifeMs`. @default 6 hours */
  halfLifeMs?: number | undefined;
  /** Decayed outcomes of an (intent, flow) needed before it is adjusted at all. @default 20 */
  minSamples?: number | undefined;
  /** With a shared store: flush increments every this many ms. @default 1000 */
  flushIntervalMs?: number | undefined;
  /** With a shared store: reload every this many ms. @default 5000 */
  refreshIntervalMs?: number | undefined;
  /** Clock. @default Date.now */
  now?: (() => number) | undefined;
  /** When a traced outcome happened: the event's `timestamp` (replays) or the prior's `clock` on arrival (a live feed with an injected clock). @default "timestamp" */
  eventTime?: "timestamp" | "clock" | undefined;
}

/** One observed outcome of routing an intent to a flow. */
export interface RoutingOutcome {
  intent: Intent;
  /** Gateway-wide flow id. */
  flowId: string;
  /** Whether the call succeeded (omit for a feedback-only outcome). */
  success?: boolean | undefined;
  /** Latency of the call. */
  latencyMs?: number | undefined;
  /** A normalised rating -1..1 of the answer. */
  feedback?: number | undefined;
  /** When it happened (epoch ms). @default now */
  at?: number | undefined;
}

/** A bounded adjustment of two score components for one (intent, flow), with the evidence behind it. */
export interface RoutingAdjustment {
  /** Added to `flow_match`; |value| <= maxAdjustment. */
  flow_match: number;
  /** Added to `performance`; |value| <= maxAdjustment. */
  performance: number;
  /** Decayed number of outcomes behind it. */
  samples: number;
  /** Decayed success rate, mean latency and mean feedback (with enough ratings) of the flow for the intent. */
  successRate: number | null;
  meanLatencyMs: number | null;
  feedbackMean: number | null;
  /** The same of the intent's other flows (or the expected success rate). */
  peerSuccessRate: number | null;
  peerMeanLatencyMs: number | null;
  /** One-line explanation for `explain_routing`. */
  reason: string;
}

/** One (intent, flow) the prior knows, with its current adjustment. */
export interface LearnedPriorSnapshotEntry {
  intent: Intent;
  flowId: string;
  stats: PriorStats;
  adjustment: RoutingAdjustment;
}

/**
 * A learned routing prior: per intent and flow, decayed success, latency and feedback become
 * bounded adjustments of `flow_match` and `performance`. A {@link @afw/contracts!TraceSink}: it
 * learns from every `backend-call-end` (with its trace's intent); `adjust` is synchronous.
 */
export interface LearnedRoutingPrior extends TraceSink {
  /** The largest absolute adjustment. */
  readonly maxAdjustment: number;
  /** Learns from a trace event (never throws). */
  emit(event: AuditEvent): void;
  /**
   * Records one outcome directly.
   *
   * @throws AfwError `INVALID_INPUT` for an unknown intent, an empty flow id or a feedback outside -1..1.
   */
  observe(outcome: RoutingOutcome): void;
  /** The adjustment for routing `intent` to `flowId` now. Synchronous; zero until `minSamples`. */
  adjust(intent: Intent, flowId: string): RoutingAdjustment;
  /** The router's score-adjuster hook (source `learned-prior`): the adjustment of every (intent, flow) seen, undefined for unseen ones. */
  readonly scoreAdjuster: ScoreAdjuster;
  /** Every known (intent, flow) with its adjustment, optionally of one intent. */
  snapshot(intent?: Intent): LearnedPriorSnapshotEntry[];
  /** Writes pending increments to the store. */
  flush(): Promise<void>;
  /** Writes pending increments, then reloads what every instance learned. */
  refresh(): Promise<void>;
  /** Stops background sync, flushes and closes the store. Idempotent. */
  close(): Promise<void>;
}

/** Decayed ratings needed before feedback counts. */
const MIN_FEEDBACK = 3;
/** Success rate a flow is compared with when its intent has no other measured flow. */
const EXPECTED_SUCCESS_RATE = 0.95;

const clamp = (value: number, bound: number) => Math.max(-bound, Math.min(bound, value));
const round4 = (value: number) => Math.round(value * 10_000) / 10_000;
const keyOf = (intent: Intent, flowId: string) => `${intent}\u0000${flowId}`;

/**
 * Creates a {@link LearnedRoutingPrior}.
 *
 * How an adjustment is computed for (intent I, flow F), with every sum decayed to now:
 * - nothing until F has `minSamples` outcomes for I; then a confidence
 *   `c = min(1, (n - minSamples) / minSamples) * n / (n + minSamples)` that ramps up smoothly;
 * - success signal `clamp((rate(F) - rate(peers)) / 0.25, -1, 1)` (a 25-point gap gives the full signal), peers = the other
 *   flows of I (or an expected 95 % when they have fewer than `minSamples` outcomes);
 * - latency signal `clamp(-log2(meanLatency(F) / meanLatency(peers)), -1, 1)` (twice as slow: -1);
 * - feedback signal: the mean rating, with confidence `fn / (fn + 3)`, once 3 ratings;
 * - `flow_match = max * (c * success)` or, with feedback, `max * (c * success + cf * feedback) / 2`;
 * - `performance = max * c * (success + latency) / 2` (or `max * c * success` without peer latency);
 * - each clamped to ±`maxAdjustment`. Old evidence fades with `halfLifeMs`, so a flow that
 *   recovers (or stops being used) drifts back to 0: no unbounded drift.
 *
 * @example
 * ```ts
 * const prior = createLearnedRoutingPrior({ maxAdjustment: 0.15, halfLifeMs: 3_600_000, minSamples: 20 });
 * const sink = fanOutTraceSink(auditLog, prior);
 * const router = createRouter({ backends, scoreAdjuster: prior.scoreAdjuster, maxScoreAdjustment: prior.maxAdjustment });
 * ```
 * @throws AfwError `CONFIG_INVALID` for a non-positive half-life, minSamples or maxAdjustment.
 */
export function createLearnedRoutingPrior(options: LearnedRoutingPriorOptions = {}): LearnedRoutingPrior {
  const maxAdjustment = options.maxAdjustment ?? 0.15;
  const halfLifeMs = options.halfLifeMs ?? 6 * 3_600_000;
  const minSamples = options.minSamples ?? 20;
  const successScale = 0.25;
  const maxTracked = 10_000;
  const now = options.now ?? Date.now;
  if (!(maxAdjustment > 0 && maxAdjustment <= 1)) throw new AfwError("CONFIG_INVALID", "maxAdjustment must be in (0, 1]");
  if (!(halfLifeMs > 0)) throw new AfwError("CONFIG_INVALID", "halfLifeMs must be positive");
  if (!(minSamples > 0)) throw new AfwError("CONFIG_INVALID", "minSamples must be positive");
  const store = options.store ?? createMemoryPriorStore();

  /** What this instance believes: the last load merged with everything observed since. */
  let view = new Map<string, PriorEntry>();
  /** Increments not yet written to the store. */
  let pending = new Map<string, PriorEntry>();
  const traceIntents = new Map<string, Intent>();
  let closed = false;
  /** Bumped whenever `view` changes; keys the per-intent totals below. */
  let viewVersion = 0;
  let totalsCache: { t: number; version: number; totals: Map<Intent, PriorStats> } | undefined;

  const addTo = (map: Map<string, PriorEntry>, intent: Intent, flowId: string, stats: PriorStats) => addPriorEntry(map, { intent, flowId, stats }, halfLifeMs);

  const record = (outcome: RoutingOutcome) => {
    const called = outcome.success !== undefined;
    const latency = called && Number.isFinite(outcome.latencyMs) && outcome.latencyMs! >= 0 ? outcome.latencyMs! : undefined;
    const rated = outcome.feedback !== undefined;
    if (!called && !rated) return;
    const stats: PriorStats = { n: called ? 1 : 0, s: outcome.success ? 1 : 0, l: latency ?? 0, ln: latency === undefined ? 0 : 1, f: 0, fn: 0, t: outcome.at ?? now() };
    if (rated) Object.assign(stats, { f: outcome.feedback, fn: 1 });
    viewVersion++;
    addTo(view, outcome.intent, outcome.flowId, stats);
    addTo(pending, outcome.intent, outcome.flowId, stats);
  };

  const observe = (outcome: RoutingOutcome) => {
    if (!IntentSchema.safeParse(outcome.intent).success) throw new AfwError("INVALID_INPUT", `unknown intent '${String(outcome.intent)}'`);
    if (typeof outcome.flowId !== "string" || outcome.flowId.length === 0) throw new AfwError("INVALID_INPUT", "flowId must be a non-empty string");
    if (outcome.feedback !== undefined && !(outcome.feedback >= -1 && outcome.feedback <= 1)) {
      throw new AfwError("INVALID_INPUT", "feedback must be between -1 and 1");
    }
    record(outcome);
  };

  /** Decayed sums of every flow of each intent at `t` (computed once per clock tick and view change). */
  const intentTotals = (t: number): Map<Intent, PriorStats> => {
    if (totalsCache && totalsCache.t === t && totalsCache.version === viewVersion) return totalsCache.totals;
    const totals = new Map<Intent, PriorStats>();
    for (const entry of view.values()) {
      const decayed = decayPriorStats(entry.stats, t, halfLifeMs);
      const current = totals.get(entry.intent);
      totals.set(entry.intent, current ? mergePriorStats(current, decayed, halfLifeMs) : decayed);
    }
    totalsCache = { t, version: viewVersion, totals };
    return totals;
  };

  /** The intent's other flows: its total minus the flow's own sums (both decayed to `t`). */
  const peersOf = (intent: Intent, own: PriorStats, t: number): PriorStats => {
    const total = intentTotals(t).get(intent) ?? emptyPriorStats(t);
    // Rounding leaves dust where the flow is the intent's only one: treat it as nothing.
    const minus = (a: number, b: number) => (a - b > 1e-9 ? a - b : 0);
    const fn = minus(total.fn, own.fn);
    return { n: minus(total.n, own.n), s: minus(total.s, own.s), l: minus(total.l, own.l), ln: minus(total.ln, own.ln), f: fn > 0 ? total.f - own.f : 0, fn, t };
  };

  const adjust = (intent: Intent, flowId: string): RoutingAdjustment => {
    const t = now();
    const own = view.get(keyOf(intent, flowId));
    const stats = own ? decayPriorStats(own.stats, t, halfLifeMs) : emptyPriorStats(t);
    const peers = peersOf(intent, stats, t);
    const successRate = stats.n > 0 ? stats.s / stats.n : null;
    const peerSuccessRate = peers.n >= minSamples ? peers.s / peers.n : EXPECTED_SUCCESS_RATE;
    const meanLatencyMs = stats.ln > 0 ? stats.l / stats.ln : null;
    const peerMeanLatencyMs = peers.ln > 0 ? peers.l / peers.ln : null;
    const feedbackMean = stats.fn >= MIN_FEEDBACK ? stats.f / stats.fn : null;
    const enoughOutcomes = stats.n >= minSamples;
    // Confidence ramps up from 0 at minSamples to n / (n + minSamples) at twice that, so the
    // adjustment grows in small steps instead of jumping when the evidence becomes sufficient.
    const ramp = enoughOutcomes ? Math.min(1, (stats.n - minSamples) / minSamples) : 0;
    const c = ramp * (stats.n / (stats.n + minSamples));
    const success = enoughOutcomes && successRate !== null ? clamp((successRate - peerSuccessRate) / successScale, 1) : 0;
    const latencyKnown =
      enoughOutcomes && meanLatencyMs !== null && peerMeanLatencyMs !== null && stats.ln >= minSamples / 2 && peers.ln >= minSamples / 2 && peerMeanLatencyMs > 0;
    const latency = latencyKnown ? clamp(-Math.log2(Math.max(meanLatencyMs!, 1e-3) / peerMeanLatencyMs!), 1) : 0;
    const cf = feedbackMean !== null ? stats.fn / (stats.fn + MIN_FEEDBACK) : 0;
    const flowMatch = feedbackMean !== null ? (maxAdjustment * (c * success + cf * feedbackMean)) / 2 : maxAdjustment * c * success;
    const perf = latencyKnown ? (maxAdjustment * c * (success + latency)) / 2 : maxAdjustment * c * success;
    const adjustment: RoutingAdjustment = {
      flow_match: round4(clamp(flowMatch, maxAdjustment)),
      performance: round4(clamp(perf, maxAdjustment)),
      samples: round4(stats.n),
      successRate: successRate === null ? null : round4(successRate),
      peerSuccessRate: round4(peerSuccessRate),
      meanLatencyMs: meanLatencyMs === null ? null : Math.round(meanLatencyMs),
      peerMeanLatencyMs: peerMeanLatencyMs === null ? null : Math.round(peerMeanLatencyMs),
      feedbackMean: feedbackMean === null ? null : round4(feedbackMean),
      reason: "",
    };
    adjustment.reason = explain(intent, flowId, adjustment, enoughOutcomes, minSamples);
    return adjustment;
  };

  // flush and refresh run one at a time: a reload issued before a flush must not replace the
  // view after that flush took the increments out of `pending`.
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  const flushNow = async () => {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    const ok = await store.add([...batch.values()], halfLifeMs);
    if (!ok) {
      // Keep the increments for the next attempt (bounded: one entry per intent and flow).
      for (const entry of batch.values()) addTo(pending, entry.intent, entry.flowId, entry.stats);
    }
  };

  const flush = () => exclusive(flushNow);

  const refresh = () => exclusive(async () => {
    await flushNow();
    const loaded = await store.load();
    if (!loaded) return;
    const next = new Map<string, PriorEntry>();
    for (const entry of loaded) addTo(next, entry.intent, entry.flowId, entry.stats);
    for (const entry of pending.values()) addTo(next, entry.intent, entry.flowId, entry.stats);
    view = next;
    viewVersion++;
  });

  const timers: NodeJS.Timeout[] = [];
  if (store.shared) {
    const flushTimer = setInterval(() => void flush().catch(() => undefined), Math.max(10, options.flushIntervalMs ?? 1000));
    const refreshTimer = setInterval(() => void refresh().catch(() => undefined), Math.max(10, options.refreshIntervalMs ?? 5000));
    flushTimer.unref();
    refreshTimer.unref();
    timers.push(flushTimer, refreshTimer);
    // Start from what the other instances learned so far.
    void refresh().catch(() => undefined);
  }

  const remember = (traceId: string, intent: Intent) => {
    traceIntents.delete(traceId);
    traceIntents.set(traceId, intent);
    if (traceIntents.size > maxTracked) takeOldest(traceIntents);
  };

  const whenOf = (event: AuditEvent) => {
    const at = options.eventTime === "clock" ? now() : eventTimeMs(event);
    return Number.isFinite(at) ? at : now();
  };

  return {
    maxAdjustment,
    emit(event) {
      if (closed) return;
      try {
        if (event.type === "intent-classified" || event.type === "routing-decided") {
          remember(event.traceId, event.type === "intent-classified" ? event.intent : event.decision.intent);
        } else if (event.type === "backend-call-end") {
          const intent = traceIntents.get(event.traceId);
          if (!intent || event.outcome === "aborted") return;
          record({ intent, flowId: event.flowId, success: event.outcome === "success", latencyMs: event.latencyMs, at: whenOf(event) });
        } else if (event.type === "route-elicited") {
          // A client's choice is a labelled example: the chosen flow fits, the suggestion passed over does not.
          if (event.action !== "accept" || event.chosenFlowId === undefined) return;
          record({ intent: event.intent, flowId: event.chosenFlowId, feedback: 1, at: whenOf(event) });
          if (event.chosenFlowId !== event.suggestedFlowId) record({ intent: event.intent, flowId: event.suggestedFlowId, feedback: -1, at: whenOf(event) });
        } else if (event.type === "query-answered" || event.type === "query-failed") {
          traceIntents.delete(event.traceId);
        }
      } catch {
        // a sink never throws
      }
    },
    observe,
    adjust,
    scoreAdjuster(intent, candidate) {
      if (!view.has(keyOf(intent, candidate.flowId))) return undefined;
      const adjustment = adjust(intent, candidate.flowId);
      return { flow_match: adjustment.flow_match, performance: adjustment.performance, reason: adjustment.reason, source: "learned-prior" };
    },
    snapshot(intent) {
      const t = now();
      return [...view.values()]
        .filter((entry) => intent === undefined || entry.intent === intent)
        .sort((a, b) => (a.intent < b.intent ? -1 : a.intent > b.intent ? 1 : a.flowId < b.flowId ? -1 : 1))
        .map((entry) => ({ intent: entry.intent, flowId: entry.flowId, stats: decayPriorStats(entry.stats, t, halfLifeMs), adjustment: adjust(entry.intent, entry.flowId) }));
    },
    flush,
    refresh,
    async close() {
      if (closed) return;
      closed = true;
      for (const timer of timers) clearInterval(timer);
      await flush().catch(() => undefined);
      await store.close();
    },
  };
}

function explain(intent: Intent, flowId: string, a: RoutingAdjustment, enough: boolean, minSamples: number): string {
  if (!enough && a.feedbackMean === null) return `learned prior for ${intent} on ${flowId}: no adjustment yet (${a.samples.toFixed(1)} of ${minSamples} weighted outcomes)`;
  const parts: string[] = [];
  if (enough) parts.push(`success ${pct(a.successRate)} vs ${pct(a.peerSuccessRate)} for its peers over ${a.samples.toFixed(1)} weighted outcomes`);
  if (a.meanLatencyMs !== null && a.peerMeanLatencyMs !== null) parts.push(`mean latency ${a.meanLatencyMs} ms vs ${a.peerMeanLatencyMs} ms`);
  if (a.feedbackMean !== null) parts.push(`mean feedback ${a.feedbackMean}`);
  return `learned prior for ${intent} on ${flowId}: ${parts.join(", ")} -> flow_match ${signed(a.flow_match)}, performance ${signed(a.performance)}`;
}

const pct = (value: number | null) => (value === null ? "n/a" : `${(value * 100).toFixed(1)}%`);
const signed = (value: number) => (value >= 0 ? `+${value.toFixed(4)}` : value.toFixed(4));
