import type { Intent } from "@afw/contracts";
import type { AuditEvent } from "./audit-event.js";
import type { FeedbackRecord } from "./feedback.js";
import { backendOfFlowId, buildQueryRecords, flowsTouched, type QueryRecord } from "./query-records.js";
import { groupBy, increment, mean, ratio, round, summarizeFeedback, summarizeLatency, type FeedbackSummary, type LatencySummary } from "./statistics.js";
import { resolveTimeRange, type TimeRange } from "./time-range.js";

/** What every analysis reads: audit events, feedback and a time range. */
export interface AnalyticsData {
  /** Audit events (any order; events outside the range are ignored by query start time). */
  events: readonly AuditEvent[];
  /** Feedback records; those created inside the range count. */
  feedback?: readonly FeedbackRecord[] | undefined;
  /** Time range of the analysis. @default "24h" */
  range?: TimeRange | undefined;
  /** Epoch milliseconds that presets (`1h`, ...) end at. @default Date.now() */
  now?: number | undefined;
}

/** The range of a report, as ISO strings. */
export interface ReportRange {
  from: string;
  to: string;
}

/** Folds the events into query records and keeps the records and feedback of the range. @internal */
export function prepareData(data: AnalyticsData) {
  const { from, to } = resolveTimeRange(data.range ?? "24h", data.now ?? Date.now());
  const records = buildQueryRecords(data.events).filter((record) => record.startedAt >= from && record.startedAt <= to);
  const feedback = (data.feedback ?? []).filter((record) => record.createdAt >= from && record.createdAt <= to);
  const feedbackByTrace = new Map<string, FeedbackRecord>();
  for (const record of feedback) if (record.traceId !== undefined) feedbackByTrace.set(record.traceId, record);
  const range: ReportRange = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  return { range, records, feedback, feedbackByTrace };
}

/** Usage, success and latency of one flow over a time range. */
export interface FlowUsage {
  /** Gateway-wide flow id. */
  flowId: string;
  backendId: string;
  /** Queries that attempted the flow or were served from its cached answers. */
  queries: number;
  /** Queries the flow answered by running (not from the cache). */
  answered: number;
  /** Queries answered from the flow's cached answers. */
  cacheHits: number;
  /** Queries where the router tried this flow first. */
  firstChoice: number;
  /** Backend calls to the flow (every attempt, retries included). */
  attempts: number;
  /** Attempts that ended in `error` or `timeout` (cancelled hedge losers are not failures). */
  failures: number;
  /** Successful attempts / (successful + failed attempts). */
  successRate: number | null;
  /** Latency of its attempts (successful and failed; not cancelled ones). */
  latency: LatencySummary;
  /** Fallbacks away from this flow. */
  fallbacksFrom: number;
  /** Fallbacks to this flow. */
  fallbacksTo: number;
  /** Error codes of failed attempts, by count. */
  errors: Record<string, number>;
  /** Feedback on queries the flow answered. */
  feedback: FeedbackSummary;
}

/** Per-flow accumulator. @internal */
export type FlowAccumulator = ReturnType<typeof emptyFlowAccumulator>;

/** An accumulator with no data (`sourceTraces`/`targetTraces`: traces in which the flow was a fallback source/target). @internal */
export function emptyFlowAccumulator(flowId: string, backendId: string = backendOfFlowId(flowId)) {
  return {
    flowId,
    backendId,
    queries: new Set<string>(),
    ...{ answered: 0, cacheHits: 0, firstChoice: 0, attempts: 0, failures: 0, successes: 0, fallbacksFrom: 0, fallbacksTo: 0 },
    latencies: [] as number[],
    successLatencies: [] as number[],
    targetTraces: new Set<string>(),
    sourceTraces: new Set<string>(),
    errors: new Map<string, number>(),
    feedback: [] as number[],
    queryDurations: [] as number[],
  };
}

/**
 * Accumulates per-flow statistics of `records`, optionally keyed by something else than the flow
 * (`keyOf`: e.g. the backend or the query's intent). @internal
 */
export function accumulateFlows(
  records: readonly QueryRecord[],
  feedbackByTrace: ReadonlyMap<string, FeedbackRecord>,
  keyOf: (flowId: string, record: QueryRecord) => string | undefined = (flowId) => flowId,
): Map<string, FlowAccumulator> {
  const flows = new Map<string, FlowAccumulator>();
  const get = (flowId: string, record: QueryRecord): FlowAccumulator | undefined => {
    const key = keyOf(flowId, record);
    if (key === undefined) return undefined;
    let accumulator = flows.get(key);
    if (!accumulator) flows.set(key, (accumulator = emptyFlowAccumulator(key, backendOfFlowId(flowId))));
    return accumulator;
  };
  for (const record of records) {
    for (const flowId of flowsTouched(record)) get(flowId, record)?.queries.add(record.traceId);
    if (record.chosenFlowId !== undefined) {
      const accumulator = get(record.chosenFlowId, record);
      if (accumulator) accumulator.firstChoice++;
    }
    for (const attempt of record.attempts) {
      const accumulator = get(attempt.flowId, record);
      if (!accumulator) continue;
      accumulator.attempts++;
      if (attempt.outcome === "aborted") continue;
      accumulator.latencies.push(attempt.latencyMs);
      if (attempt.outcome === "success") {
        accumulator.successes++;
        accumulator.successLatencies.push(attempt.latencyMs);
      } else {
        accumulator.failures++;
        increment(accumulator.errors, attempt.errorCode ?? attempt.outcome);
      }
    }
    for (const fallback of record.fallbacks) {
      const from = get(fallback.fromFlowId, record);
      if (from) {
        from.fallbacksFrom++;
        from.sourceTraces.add(record.traceId);
      }
      const to = get(fallback.toFlowId, record);
      if (to) {
        to.fallbacksTo++;
        to.targetTraces.add(record.traceId);
      }
    }
    if (record.outcome === "answered" && record.answeredFlowId !== undefined) {
      const accumulator = get(record.answeredFlowId, record);
      if (accumulator) {
        if (record.cacheHit) accumulator.cacheHits++;
        else {
          accumulator.answered++;
          if (record.durationMs !== undefined) accumulator.queryDurations.push(record.durationMs);
        }
        const feedback = feedbackByTrace.get(record.traceId);
        if (feedback) accumulator.feedback.push(feedback.score);
      }
    }
  }
  return flows;
}

/** Turns an accumulator into a {@link FlowUsage}. @internal */
export function flowUsageOf(accumulator: FlowAccumulator): FlowUsage {
  return {
    flowId: accumulator.flowId,
    backendId: accumulator.backendId,
    queries: accumulator.queries.size,
    answered: accumulator.answered,
    cacheHits: accumulator.cacheHits,
    firstChoice: accumulator.firstChoice,
    attempts: accumulator.attempts,
    failures: accumulator.failures,
    successRate: round(ratio(accumulator.successes, accumulator.successes + accumulator.failures)),
    latency: summarizeLatency(accumulator.latencies),
    fallbacksFrom: accumulator.fallbacksFrom,
    fallbacksTo: accumulator.fallbacksTo,
    errors: Object.fromEntries([...accumulator.errors.entries()].sort((a, b) => b[1] - a[1])),
    feedback: summarizeFeedback(accumulator.feedback),
  };
}

/** Outcomes of one arm of an A/B experiment. */
export interface ExperimentArmStats {
  /** Queries assigned to the arm. */
  queries: number;
  answered: number;
  failed: number;
  /** answered / (answered + failed). */
  successRate: number | null;
  /** Durations of the arm's completed queries. */
  latency: LatencySummary;
  /** Queries that needed a fallback / completed queries. */
  fallbackRate: number | null;
  feedback: FeedbackSummary;
}

/** Control against variant of one A/B experiment. */
export interface ExperimentComparison {
  experimentId: string;
  control: ExperimentArmStats;
  variant: ExperimentArmStats;
  /** Variant minus control (null where either side has no data). */
  difference: { successRate: number | null; p50Ms: number | null; p95Ms: number | null; feedbackMean: number | null };
  /** Share of the experiment's queries in the variant arm. */
  variantShare: number | null;
}

const diff = (a: number | null, b: number | null) => (a === null || b === null ? null : round(a - b));

/** How some queries ended: completed ones, answered and failed counts, success and fallback rates. @internal */
export function outcomesOf(records: readonly QueryRecord[]) {
  const completed = records.filter((r) => r.outcome !== "pending");
  const answered = completed.filter((r) => r.outcome === "answered").length;
  const fallbackQueries = completed.filter((r) => r.fallbackUsed).length;
  const failed = completed.length - answered;
  return { completed, answered, failed, fallbackQueries, successRate: round(ratio(answered, completed.length)), fallbackRate: round(ratio(fallbackQueries, completed.length)) };
}

/** Compares the arms of every experiment seen in `records`. @internal */
export function compareExperiments(records: readonly QueryRecord[], feedbackByTrace: ReadonlyMap<string, FeedbackRecord>): ExperimentComparison[] {
  const statsOf = (list: QueryRecord[] = []): ExperimentArmStats => {
    const { completed, answered, failed, successRate, fallbackRate } = outcomesOf(list);
    const feedback = list.map((r) => feedbackByTrace.get(r.traceId)?.score).filter((s): s is number => s !== undefined);
    const durations = completed.map((r) => r.durationMs).filter((d): d is number => d !== undefined);
    return { queries: list.length, answered, failed, successRate, latency: summarizeLatency(durations), fallbackRate, feedback: summarizeFeedback(feedback) };
  };
  const experiments = groupBy(records, (r) => r.experiment?.experimentId);
  return [...experiments.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([experimentId, list]) => {
      const arms = groupBy(list, (r) => r.experiment?.arm);
      const c = statsOf(arms.get("control"));
      const v = statsOf(arms.get("variant"));
      return {
        experimentId,
        control: c,
        variant: v,
        difference: {
          successRate: diff(v.successRate, c.successRate),
          p50Ms: diff(v.latency.p50Ms, c.latency.p50Ms),
          p95Ms: diff(v.latency.p95Ms, c.latency.p95Ms),
          feedbackMean: diff(v.feedback.mean, c.feedback.mean),
        },
        variantShare: round(ratio(v.queries, list.length)),
      };
    });
}

/** Usage of one intent. */
export interface IntentUsage {
  intent: Intent;
  queries: number;
  /** Share of all classified queries. */
  share: number | null;
  answered: number;
  failed: number;
  successRate: number | null;
  /** Queries that needed a fallback / completed queries. */
  fallbackRate: number | null;
  meanConfidence: number | null;
  /** Queries the router reported as low-confidence. */
  lowConfidence: number;
}

/** Usage per intent of `records`, most used first. @internal */
export function intentUsage(records: readonly QueryRecord[]): IntentUsage[] {
  const groups = groupBy(records, (r) => r.intent);
  const classified = records.filter((r) => r.intent !== undefined).length;
  return [...groups.entries()]
    .map(([intent, list]) => {
      const { answered, failed, successRate, fallbackRate } = outcomesOf(list);
      const confidences = list.map((r) => r.confidence).filter((c): c is number => c !== undefined);
      return {
        intent,
        queries: list.length,
        share: round(ratio(list.length, classified)),
        answered,
        failed,
        successRate,
        fallbackRate,
        meanConfidence: round(mean(confidences)),
        lowConfidence: list.filter((r) => r.lowConfidence !== undefined).length,
      };
    })
    .sort((a, b) => b.queries - a.queries || (a.intent < b.intent ? -1 : 1));
}
