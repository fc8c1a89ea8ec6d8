import { z } from "zod";
import { accumulateFlows, emptyFlowAccumulator, outcomesOf, prepareData, type AnalyticsData, type FlowAccumulator, type ReportRange } from "./analytics-data.js";
import { toCsv } from "./csv.js";
import type { FeedbackRecord } from "./feedback.js";
import { backendOfFlowId, type QueryRecord } from "./query-records.js";
import { percentile } from "@afw/contracts";
import { groupBy, ratio, round, summarizeFeedback } from "./statistics.js";

/** Zod schema of {@link MetricsGroupBy}. */
export const MetricsGroupBySchema = z.enum(["backend", "flow", "intent"]);

/** What one row of {@link exportMetrics} is about: a backend, a flow or an intent. */
export type MetricsGroupBy = z.infer<typeof MetricsGroupBySchema>;

/** Zod schema of {@link MetricsFormat}. */
export const MetricsFormatSchema = z.enum(["json", "csv"]);

/** Output format of {@link exportMetrics}. */
export type MetricsFormat = z.infer<typeof MetricsFormatSchema>;

/** The columns of a metrics row, in CSV order. */
export const METRICS_COLUMNS = [
  "group", "queries", "answered", "failed", "success_rate", "cache_hits", "attempts", "attempt_failures", "attempt_success_rate",
  "attempt_p50_ms", "attempt_p95_ms", "query_p50_ms", "query_p95_ms", "fallbacks_from", "fallbacks_to", "feedback_count", "feedback_mean",
] as const;

/**
 * One row of exported metrics.
 *
 * - `queries`: queries that touched the group (attempted one of its flows or were served from
 *   their cache; for an intent: queries classified as it).
 * - `answered`/`failed`: of those, how many were answered (by the group, for backend/flow) or
 *   failed.
 * - `attempt_*`: backend calls to the group's flows (for an intent: every call of its queries);
 *   latency over non-cancelled calls.
 * - `query_p50_ms`/`query_p95_ms`: durations of the queries the group answered by running (for an
 *   intent: of its completed queries).
 * - `fallbacks_from`/`fallbacks_to`: fallbacks away from / to the group's flows (for an intent:
 *   both count the fallbacks of its queries).
 * - rates are 0..1, `null` (empty CSV cell) without data.
 */
export interface MetricsRow {
  group: string;
  queries: number;
  answered: number;
  failed: number;
  success_rate: number | null;
  cache_hits: number;
  attempts: number;
  attempt_failures: number;
  attempt_success_rate: number | null;
  attempt_p50_ms: number | null;
  attempt_p95_ms: number | null;
  query_p50_ms: number | null;
  query_p95_ms: number | null;
  fallbacks_from: number;
  fallbacks_to: number;
  feedback_count: number;
  feedback_mean: number | null;
}

/** The result of {@link exportMetrics}. */
export interface MetricsExport {
  format: MetricsFormat;
  groupBy: MetricsGroupBy;
  range: ReportRange;
  /** `application/json` or `text/csv`. */
  contentType: "application/json" | "text/csv";
  /** The serialised export: a JSON document `{ range, groupBy, columns, rows }` or CSV with a header row. */
  body: string;
  /** The rows, also as objects. */
  rows: MetricsRow[];
}

/** Options of {@link exportMetrics}. */
export interface ExportMetricsOptions extends AnalyticsData {
  /** @default "json" */
  format?: MetricsFormat | undefined;
  /** @default "flow" */
  groupBy?: MetricsGroupBy | undefined;
}

/**
 * Exports per-backend, per-flow or per-intent metrics over a time range as JSON or RFC 4180 CSV
 * (see {@link MetricsRow} for what each column counts). Rows are sorted by queries, then group.
 *
 * @example
 * ```ts
 * const { body } = exportMetrics({ events, range: "7d", format: "csv", groupBy: "backend" });
 * await writeFile("metrics.csv", body);
 * ```
 * @throws AfwError `INVALID_INPUT` for a malformed range.
 */
export function exportMetrics(options: ExportMetricsOptions): MetricsExport {
  const format = options.format ?? "json";
  const groupBy = options.groupBy ?? "flow";
  const { range, records, feedbackByTrace } = prepareData(options);
  const rows = groupBy === "intent" ? intentRows(records, feedbackByTrace) : flowRows(records, feedbackByTrace, groupBy);
  rows.sort((a, b) => b.queries - a.queries || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  const body =
    format === "csv"
      ? toCsv(METRICS_COLUMNS, rows as unknown as Array<Record<string, number | string | null>>)
      : JSON.stringify({ range, groupBy, columns: METRICS_COLUMNS, rows });
  return { format, groupBy, range, contentType: format === "csv" ? "text/csv" : "application/json", body, rows };
}

function rowOf(group: string, a: FlowAccumulator, answered: number, failed: number, queryDurations: number[], feedback: number[]): MetricsRow {
  const summary = summarizeFeedback(feedback);
  return {
    group,
    queries: a.queries.size,
    answered,
    failed,
    success_rate: round(ratio(answered, answered + failed)),
    cache_hits: a.cacheHits,
    attempts: a.attempts,
    attempt_failures: a.failures,
    attempt_success_rate: round(ratio(a.successes, a.successes + a.failures)),
    attempt_p50_ms: percentile(a.latencies, 50) ?? null,
    attempt_p95_ms: percentile(a.latencies, 95) ?? null,
    query_p50_ms: percentile(queryDurations, 50) ?? null,
    query_p95_ms: percentile(queryDurations, 95) ?? null,
    fallbacks_from: a.fallbacksFrom,
    fallbacks_to: a.fallbacksTo,
    feedback_count: summary.count,
    feedback_mean: summary.mean,
  };
}

function flowRows(records: readonly QueryRecord[], feedbackByTrace: ReadonlyMap<string, FeedbackRecord>, groupBy: "backend" | "flow"): MetricsRow[] {
  const keyOf = groupBy === "flow" ? (flowId: string) => flowId : (flowId: string) => backendOfFlowId(flowId);
  const groups = accumulateFlows(records, feedbackByTrace, keyOf);
  // failed queries per group: queries that touched the group and failed overall
  const failed = new Map<string, number>();
  for (const record of records) {
    if (record.outcome !== "failed") continue;
    const keys = new Set(record.attempts.map((a) => keyOf(a.flowId)));
    for (const key of keys) failed.set(key, (failed.get(key) ?? 0) + 1);
  }
  return [...groups.values()].map((a) => rowOf(a.flowId, a, a.answered + a.cacheHits, failed.get(a.flowId) ?? 0, a.queryDurations, a.feedback));
}

function intentRows(records: readonly QueryRecord[], feedbackByTrace: ReadonlyMap<string, FeedbackRecord>): MetricsRow[] {
  return [...groupBy(records, (r) => r.intent ?? "unclassified").entries()].map(([intent, list]) => {
    const a = accumulateFlows(list, new Map(), () => intent).get(intent) ?? emptyFlowAccumulator(intent, intent);
    const { completed, answered, failed } = outcomesOf(list);
    const durations = completed.filter((r) => r.durationMs !== undefined).map((r) => r.durationMs!);
    const feedback = list.map((r) => feedbackByTrace.get(r.traceId)?.score).filter((s): s is number => s !== undefined);
    // Every fallback of the intent's queries counts as both from and to the intent.
    const row = rowOf(intent, a, answered, failed, durations, feedback);
    row.queries = list.length;
    row.cache_hits = list.filter((r) => r.cacheHit).length;
    return row;
  });
}
