import {
  accumulateFlows,
  compareExperiments,
  flowUsageOf,
  intentUsage,
  outcomesOf,
  prepareData,
  type AnalyticsData,
  type ExperimentComparison,
  type FlowUsage,
  type IntentUsage,
  type ReportRange,
} from "./analytics-data.js";
import { ratio, round, summarizeFeedback, summarizeLatency, type FeedbackSummary, type LatencySummary } from "./statistics.js";

/** Totals of the dashboard. */
export interface DashboardTotals {
  /** Queries that started in the range. */
  queries: number;
  answered: number;
  failed: number;
  /** Queries whose end was not (yet) seen. */
  pending: number;
  /** answered / (answered + failed). */
  successRate: number | null;
  /** Queries answered from the cache (exact or semantic). */
  cacheHits: number;
  /** Queries that looked in the cache and missed (not those that bypassed it). */
  cacheMisses: number;
  /** cacheHits / (cacheHits + cacheMisses). */
  cacheHitRate: number | null;
  /** Completed queries that needed at least one fallback. */
  fallbackQueries: number;
  /** fallbackQueries / completed queries. */
  fallbackRate: number | null;
  /** Backend calls (every attempt). */
  attempts: number;
  /** Attempts that ended in error or timeout. */
  attemptFailures: number;
  /** Queries the router reported as low-confidence. */
  lowConfidence: number;
  /** Feedback given in the range. */
  feedback: FeedbackSummary;
}

/** The `analytics_dashboard` report. */
export interface AnalyticsDashboard {
  range: ReportRange;
  totals: DashboardTotals;
  /** Durations of completed queries (cache hits included). */
  queryLatency: LatencySummary;
  /** Latency of backend calls (cancelled hedge losers excluded). */
  attemptLatency: LatencySummary;
  /** The most used flows, by queries. */
  topFlows: FlowUsage[];
  /** Queries per intent, most used first. */
  intents: IntentUsage[];
  /** Queries without an intent (cache hits are served before classification). */
  unclassifiedQueries: number;
  /** A/B experiments seen in the range, control against variant. */
  experiments: ExperimentComparison[];
}

/** Options of {@link analyticsDashboard}. */
export interface AnalyticsDashboardOptions extends AnalyticsData {
  /** Number of flows in `topFlows`. @default 10 */
  top?: number | undefined;
}

/**
 * The usage dashboard over a time range: totals, success rate, query and attempt latency
 * (p50/p95, nearest rank), cache hit rate, fallback rate, the top flows by usage, the intent
 * distribution and A/B comparisons. A pure function of the audit events and feedback.
 *
 * @example
 * ```ts
 * const report = analyticsDashboard({ events: await auditLog.query({ from: Date.now() - 86_400_000, limit: 200_000 }), range: "24h" });
 * report.totals.successRate; // e.g. 0.97
 * ```
 * @throws AfwError `INVALID_INPUT` for a malformed range.
 */
export function analyticsDashboard(options: AnalyticsDashboardOptions): AnalyticsDashboard {
  const { range, records, feedback, feedbackByTrace } = prepareData(options);
  const { completed, answered, failed, fallbackQueries, successRate, fallbackRate } = outcomesOf(records);
  const cacheHits = records.filter((r) => r.cacheHit).length;
  const cacheMisses = records.filter((r) => !r.cacheHit && r.cache === "miss").length;
  const attempts = records.flatMap((r) => r.attempts);
  const flows = [...accumulateFlows(records, feedbackByTrace).values()].map(flowUsageOf);
  flows.sort((a, b) => b.queries - a.queries || b.answered - a.answered || (a.flowId < b.flowId ? -1 : 1));
  return {
    range,
    totals: {
      queries: records.length,
      answered,
      failed,
      pending: records.length - answered - failed,
      successRate,
      cacheHits,
      cacheMisses,
      cacheHitRate: round(ratio(cacheHits, cacheHits + cacheMisses)),
      fallbackQueries,
      fallbackRate,
      attempts: attempts.length,
      attemptFailures: attempts.filter((a) => a.outcome === "error" || a.outcome === "timeout").length,
      lowConfidence: records.filter((r) => r.lowConfidence !== undefined).length,
      feedback: summarizeFeedback(feedback.map((f) => f.score)),
    },
    queryLatency: summarizeLatency(completed.map((r) => r.durationMs).filter((d): d is number => d !== undefined)),
    attemptLatency: summarizeLatency(attempts.filter((a) => a.outcome !== "aborted").map((a) => a.latencyMs)),
    topFlows: flows.slice(0, Math.max(0, options.top ?? 10)),
    intents: intentUsage(records),
    unclassifiedQueries: records.filter((r) => r.intent === undefined).length,
    experiments: compareExperiments(records, feedbackByTrace),
  };
}
