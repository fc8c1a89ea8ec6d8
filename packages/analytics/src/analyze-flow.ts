import { percentile, type Intent } from "@afw/contracts";
import {
  accumulateFlows,
  compareExperiments,
  emptyFlowAccumulator,
  flowUsageOf,
  prepareData,
  type AnalyticsData,
  type ExperimentComparison,
  type FlowUsage,
  type ReportRange,
} from "./analytics-data.js";
import { flowsTouched } from "./query-records.js";
import { groupBy, increment, rankCounts, ratio, round, summarizeFeedback, summarizeLatency, type FeedbackSummary, type LatencySummary } from "./statistics.js";

/** One concrete, rule-based recommendation about a flow. */
export interface FlowRecommendation {
  /** Which rule produced it. */
  kind: "unused" | "slow" | "slow-fallback-target" | "failing" | "never-chosen" | "fallback-source" | "negative-feedback";
  severity: "info" | "warning" | "critical";
  /** The intent the recommendation is about, when it is about one. */
  intent?: Intent | undefined;
  /** What to do, in one sentence with the evidence. */
  message: string;
  /** The numbers behind the message. */
  evidence: Record<string, number | string | null>;
}

/** One flow's numbers for one intent (the fields of {@link FlowUsage} restricted to the intent, and its routing decisions). */
export interface FlowIntentBreakdown {
  intent: Intent;
  queries: number;
  answered: number;
  /** Backend calls, cancelled hedge losers included. */
  attempts: number;
  /** Attempts that succeeded or failed (not cancelled). */
  completedAttempts: number;
  failures: number;
  /** failures / completed attempts. */
  failureRate: number | null;
  errors: Record<string, number>;
  latency: LatencySummary;
  fallbacksFrom: number;
  fallbacksTo: number;
  feedback: FeedbackSummary;
  /** Routing decisions of this intent that listed the flow as a candidate. */
  candidateDecisions: number;
  /** Of those, decisions where it matched the intent (`flow_match` >= the match threshold). */
  matchingDecisions: number;
  /** Decisions where the router tried it first. */
  chosen: number;
  /** Its best rank among the candidates, if listed. */
  bestRank: number | null;
}

/** The `analyze_flow` report. */
export interface FlowAnalysis {
  flowId: string;
  range: ReportRange;
  /** Usage, success and latency over every intent. */
  usage: FlowUsage;
  /** Latency of its successful attempts only. */
  successLatency: LatencySummary;
  fallback: {
    /** Queries in which it failed and the router moved on, and their share of its queries. */
    asSource: { queries: number; share: number | null; topTargets: Array<{ flowId: string; count: number }>; reasons: Record<string, number> };
    /** Queries in which it was the fallback target, and their share of its queries. */
    asTarget: { queries: number; share: number | null; topSources: Array<{ flowId: string; count: number }> };
  };
  /** Feedback on its answers (ratings linked to it, created in the range). */
  feedback: FeedbackSummary;
  /** Per-intent breakdown of the intents it served or matched, most queries first. */
  intents: FlowIntentBreakdown[];
  /** Median p95 attempt latency of the other flows, for comparison. */
  peerP95Ms: number | null;
  /** A/B experiments among the queries that touched this flow. */
  experiments: ExperimentComparison[];
  /** Concrete recommendations, most severe first. */
  recommendations: FlowRecommendation[];
}

/** Options of {@link analyzeFlow}. */
export interface AnalyzeFlowOptions extends AnalyticsData {
  /** Gateway-wide flow id (`<backendId>:<backendFlowId>`). */
  flowId: string;
}

/**
 * Thresholds of the recommendations: samples needed before a rule speaks, a slow p95 (absolute, or this factor of the
 * other flows' median p95), failure rate, fallback share, poor mean feedback and the ratings it needs, and the
 * `flow_match` that counts as matching an intent.
 */
const THRESHOLDS = {
  minSamples: 10,
  slowP95Ms: 5000,
  slowFactor: 2,
  failureRate: 0.1,
  fallbackShare: 0.2,
  negativeFeedback: -0.3,
  minFeedback: 3,
  matchThreshold: 0.7,
} as const;

const SEVERITY_ORDER = { critical: 0, warning: 1, info: 2 } as const;
const percent = (value: number | null) => (value === null ? "n/a" : `${Math.round(value * 100)}%`);

/**
 * The `analyze_flow` report of one flow, with rule-based recommendations (slow and often the
 * fallback target, failing for an intent, never chosen despite matching, often falling back,
 * rated poorly, unused). A pure function of the audit events and feedback.
 *
 * @throws AfwError `INVALID_INPUT` for a malformed range.
 */
export function analyzeFlow(options: AnalyzeFlowOptions): FlowAnalysis {
  const { flowId } = options;
  const t = THRESHOLDS;
  const { range, records, feedback, feedbackByTrace } = prepareData(options);
  const all = accumulateFlows(records, feedbackByTrace);
  const own = all.get(flowId) ?? emptyFlowAccumulator(flowId);
  const usage: FlowUsage = flowUsageOf(own);
  const touched = records.filter((record) => flowsTouched(record).has(flowId));

  // fallback as source / target
  const targets = new Map<string, number>();
  const sources = new Map<string, number>();
  const reasons = new Map<string, number>();
  const intentOfTarget = new Map<Intent, number>();
  for (const record of records) {
    for (const fallback of record.fallbacks) {
      if (fallback.fromFlowId === flowId) {
        increment(targets, fallback.toFlowId);
        increment(reasons, fallback.reason);
      }
      if (fallback.toFlowId === flowId) {
        increment(sources, fallback.fromFlowId);
        if (record.intent) increment(intentOfTarget, record.intent);
      }
    }
  }
  const sourceQueries = own.sourceTraces.size;
  const targetQueries = own.targetTraces.size;

  // per intent
  const byIntent = accumulateFlows(records, feedbackByTrace, (id, record) => (id === flowId ? record.intent : undefined));
  const decisions = new Map<Intent, { candidate: number; matching: number; chosen: number; bestRank: number | null }>();
  for (const [intent, list] of groupBy(records, (r) => (r.candidates.some((c) => c.flowId === flowId) ? r.intent : undefined))) {
    const ranks = list.map((r) => r.candidates.find((c) => c.flowId === flowId)!);
    decisions.set(intent, {
      candidate: list.length,
      matching: ranks.filter((c) => c.breakdown.flow_match >= t.matchThreshold).length,
      chosen: list.filter((r) => r.chosenFlowId === flowId).length,
      bestRank: Math.min(...ranks.map((c) => c.rank)),
    });
  }
  const flowFeedback = feedback.filter((f) => f.flowId === flowId);
  const intents = new Set<Intent>([...(byIntent.keys() as Iterable<Intent>), ...decisions.keys()]);
  const breakdown: FlowIntentBreakdown[] = [...intents]
    .map((intent) => {
      const accumulator = byIntent.get(intent);
      const stats = accumulator ? flowUsageOf(accumulator) : undefined;
      const decision = decisions.get(intent);
      const completed = (accumulator?.successes ?? 0) + (accumulator?.failures ?? 0);
      return {
        intent,
        queries: stats?.queries ?? 0,
        answered: stats?.answered ?? 0,
        attempts: stats?.attempts ?? 0,
        completedAttempts: completed,
        failures: stats?.failures ?? 0,
        failureRate: round(ratio(accumulator?.failures ?? 0, completed)),
        errors: stats?.errors ?? {},
        latency: stats?.latency ?? summarizeLatency([]),
        fallbacksFrom: stats?.fallbacksFrom ?? 0,
        fallbacksTo: stats?.fallbacksTo ?? 0,
        feedback: summarizeFeedback(flowFeedback.filter((f) => f.intent === intent).map((f) => f.score)),
        candidateDecisions: decision?.candidate ?? 0,
        matchingDecisions: decision?.matching ?? 0,
        chosen: decision?.chosen ?? 0,
        bestRank: decision?.bestRank ?? null,
      };
    })
    // Every flow is a candidate of every decision: report the intents it served or matched.
    .filter((breakdown) => breakdown.queries > 0 || breakdown.matchingDecisions > 0)
    .sort((a, b) => b.queries - a.queries || b.candidateDecisions - a.candidateDecisions || (a.intent < b.intent ? -1 : 1));

  const peerP95s = [...all.values()]
    .filter((a) => a.flowId !== flowId && a.latencies.length >= t.minSamples)
    .map((a) => percentile(a.latencies, 95))
    .filter((v): v is number => v !== undefined);
  const peerP95Ms = percentile(peerP95s, 50) ?? null;

  const analysis: FlowAnalysis = {
    flowId,
    range,
    usage,
    successLatency: summarizeLatency(own.successLatencies),
    fallback: {
      asSource: {
        queries: sourceQueries,
        share: round(ratio(sourceQueries, usage.queries)),
        topTargets: rankCounts(targets).map(({ key, count }) => ({ flowId: key, count })),
        reasons: Object.fromEntries(rankCounts(reasons).map(({ key, count }) => [key, count])),
      },
      asTarget: {
        queries: targetQueries,
        share: round(ratio(targetQueries, usage.queries)),
        topSources: rankCounts(sources).map(({ key, count }) => ({ flowId: key, count })),
      },
    },
    feedback: summarizeFeedback(flowFeedback.map((f) => f.score)),
    intents: breakdown,
    peerP95Ms,
    experiments: compareExperiments(touched, feedbackByTrace),
    recommendations: [],
  };
  analysis.recommendations = recommend(analysis, rankCounts(intentOfTarget)[0]?.key, flowFeedback);
  return analysis;
}

function recommend(
  analysis: FlowAnalysis,
  topTargetIntent: Intent | undefined,
  flowFeedback: ReadonlyArray<{ score: number; intent?: Intent | undefined }>,
): FlowRecommendation[] {
  const out: FlowRecommendation[] = [];
  const t = THRESHOLDS;
  const { usage, fallback, intents, peerP95Ms } = analysis;
  const busiestIntent = intents.find((i) => i.attempts > 0)?.intent;

  if (usage.queries === 0) {
    out.push({
      kind: "unused",
      severity: "info",
      message: "not used in this range: no query attempted it or was served from its cache",
      evidence: { queries: 0 },
    });
  }

  const p95 = usage.latency.p95Ms;
  const slowByThreshold = p95 !== null && p95 >= t.slowP95Ms;
  const slowByPeers = p95 !== null && peerP95Ms !== null && peerP95Ms > 0 && p95 >= t.slowFactor * peerP95Ms;
  if (usage.latency.count >= t.minSamples && (slowByThreshold || slowByPeers)) {
    const peers = peerP95Ms === null ? "" : ` vs ${peerP95Ms} ms for other flows`;
    const targetShare = fallback.asTarget.share;
    if (targetShare !== null && targetShare >= t.fallbackShare) {
      const intent = topTargetIntent ?? busiestIntent;
      out.push({
        kind: "slow-fallback-target",
        severity: "warning",
        ...(intent ? { intent } : {}),
        message:
          `slow (p95 ${p95} ms${peers}) and often the fallback target (${percent(targetShare)} of its queries): ` +
          `raise its timeout or demote it${intent ? ` for intent ${intent}` : ""}`,
        evidence: { p95Ms: p95, peerP95Ms, fallbackTargetShare: targetShare, fallbackTargetQueries: fallback.asTarget.queries },
      });
    } else {
      out.push({
        kind: "slow",
        severity: "warning",
        ...(busiestIntent ? { intent: busiestIntent } : {}),
        message: `slow (p95 ${p95} ms${peers}): raise its timeout or prefer a faster flow${busiestIntent ? ` for intent ${busiestIntent}` : ""}`,
        evidence: { p95Ms: p95, peerP95Ms },
      });
    }
  }

  for (const intent of intents) {
    const completed = intent.completedAttempts;
    if (completed >= t.minSamples && intent.failureRate !== null && intent.failureRate >= t.failureRate) {
      const top = Object.keys(intent.errors)[0];
      out.push({
        kind: "failing",
        severity: intent.failureRate >= 2 * t.failureRate ? "critical" : "warning",
        intent: intent.intent,
        message:
          `fails ${percent(intent.failureRate)} for intent ${intent.intent} (${intent.failures} of ${completed} attempts` +
          `${top ? `, mostly ${top}` : ""}): demote it for ${intent.intent}`,
        evidence: { failureRate: intent.failureRate, failures: intent.failures, attempts: completed, topError: top ?? null },
      });
    }
    if (intent.matchingDecisions >= t.minSamples && intent.chosen === 0 && intent.attempts === 0) {
      out.push({
        kind: "never-chosen",
        severity: "info",
        intent: intent.intent,
        message:
          `never chosen for intent ${intent.intent} despite matching (a matching candidate in ${intent.matchingDecisions} decisions, ` +
          `best rank ${intent.bestRank}): check its health and performance scores, or remove ${intent.intent} from its intents`,
        evidence: { matchingDecisions: intent.matchingDecisions, chosen: 0, bestRank: intent.bestRank },
      });
    }
  }

  const sourceShare = fallback.asSource.share;
  if (usage.queries >= t.minSamples && sourceShare !== null && sourceShare >= t.fallbackShare) {
    const target = fallback.asSource.topTargets[0]?.flowId;
    const reason = Object.keys(fallback.asSource.reasons)[0];
    out.push({
      kind: "fallback-source",
      severity: sourceShare >= 2 * t.fallbackShare ? "critical" : "warning",
      ...(busiestIntent ? { intent: busiestIntent } : {}),
      message:
        `falls back to another flow in ${percent(sourceShare)} of its queries (${fallback.asSource.queries}` +
        `${reason ? `, mostly ${reason}` : ""}${target ? `, usually to ${target}` : ""}): check its backend, or rank ${target ?? "the fallback"} first`,
      evidence: { fallbackSourceShare: sourceShare, fallbackSourceQueries: fallback.asSource.queries, topTarget: target ?? null, topReason: reason ?? null },
    });
  }

  const feedback = summarizeFeedback(flowFeedback.map((f) => f.score));
  if (feedback.count >= t.minFeedback && feedback.mean !== null && feedback.mean <= t.negativeFeedback) {
    const byIntent = new Map<Intent, number>();
    for (const f of flowFeedback) if (f.score < 0 && f.intent) increment(byIntent, f.intent);
    const intent = rankCounts(byIntent)[0]?.key;
    out.push({
      kind: "negative-feedback",
      severity: "warning",
      ...(intent ? { intent } : {}),
      message: `rated poorly (mean ${feedback.mean} over ${feedback.count} ratings): review its answers${intent ? ` for intent ${intent}` : ""}`,
      evidence: { feedbackMean: feedback.mean, ratings: feedback.count, negative: feedback.negative },
    });
  }

  return out.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
}
