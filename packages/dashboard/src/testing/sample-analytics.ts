import type { TimeRangePreset as AnalyticsRange } from "@afw/analytics";
import type { MetricsExportView } from "../dashboard-source.js";
import type { InMemoryAnalyticsData } from "./in-memory-dashboard-source.js";

const HOUR_MS = 3_600_000;
const RANGE_MS: Record<AnalyticsRange, number> = { "1h": HOUR_MS, "24h": 24 * HOUR_MS, "7d": 7 * 24 * HOUR_MS };

function flowUsage(flowId: string, queries: number, failures: number, p50Ms: number, p95Ms: number, fallbacksFrom: number, fallbacksTo: number) {
  const attempts = queries + failures;
  return {
    flowId,
    backendId: flowId.split(":")[0] ?? flowId,
    queries,
    answered: queries - Math.round(failures / 2),
    cacheHits: Math.round(queries / 6),
    attempts,
    failures,
    successRate: Math.round(((attempts - failures) / attempts) * 10_000) / 10_000,
    latency: { count: attempts, p50Ms, p95Ms, meanMs: Math.round((p50Ms + p95Ms) / 2) },
    fallbacksFrom,
    fallbacksTo,
  };
}

/**
 * The analytics of the sample gateway of {@link createSampleDashboardSource}: a summary per range
 * (the 24h one: 412 queries, 96.8% success, 31.2% cache hits, an A/B experiment on hedging), an
 * analysis of `langflow-local:architect` (slow, often falling back), question patterns with two
 * intent-pattern proposals, learned adjustments and metrics rows.
 */
export function sampleAnalyticsData(now: number): InMemoryAnalyticsData {
  const bounds = (range: AnalyticsRange) => ({ from: new Date(now - RANGE_MS[range]).toISOString(), to: new Date(now).toISOString() });
  const summary = (range: AnalyticsRange, scale: number) => {
    const n = (value: number) => Math.round(value * scale);
    const queries = n(412);
    const failed = n(13);
    const cacheHits = n(106);
    const cacheMisses = n(234);
    const fallbackQueries = n(27);
    return {
      range: bounds(range),
      totals: {
        queries,
        answered: queries - failed,
        failed,
        successRate: Math.round(((queries - failed) / queries) * 10_000) / 10_000,
        cacheHits,
        cacheMisses,
        cacheHitRate: Math.round((cacheHits / (cacheHits + cacheMisses)) * 10_000) / 10_000,
        fallbackQueries,
        fallbackRate: Math.round((fallbackQueries / queries) * 10_000) / 10_000,
        attempts: n(341),
        lowConfidence: n(38),
        feedback: { count: n(24), mean: 0.42 },
      },
      queryLatency: { count: queries, p50Ms: 480, p95Ms: 1_650, meanMs: 612 },
      attemptLatency: { count: n(341), p50Ms: 520, p95Ms: 1_720, meanMs: 640 },
      topFlows: [
        flowUsage("flowise-local:code-helper", n(171), n(3), 610, 1_380, n(2), n(19)),
        flowUsage("flowise-local:docs-qa", n(118), n(1), 340, 820, 0, n(3)),
        flowUsage("langflow-local:architect", n(74), n(21), 1_240, 4_900, n(22), 0),
        flowUsage("langflow-local:chat", n(49), 0, 290, 640, 0, n(5)),
      ],
      intents: [
        { intent: "technical-analysis", queries: n(158), share: 0.3835, successRate: 0.981, fallbackRate: 0.044, meanConfidence: 0.82 },
        { intent: "rag-retrieval", queries: n(112), share: 0.2718, successRate: 0.991, fallbackRate: 0.018, meanConfidence: 0.88 },
        { intent: "structural-thinking", queries: n(81), share: 0.1966, successRate: 0.877, fallbackRate: 0.259, meanConfidence: 0.64 },
        { intent: "conversation", queries: n(61), share: 0.1481, successRate: 1, fallbackRate: 0, meanConfidence: 0.71 },
      ],
      experiments: [
        {
          experimentId: "hedge-structural",
          control: { queries: n(62), successRate: 0.855, latency: { count: n(62), p50Ms: 1_180, p95Ms: 4_700 }, fallbackRate: 0.29, feedback: { count: n(6), mean: 0.1 } },
          variant: { queries: n(19), successRate: 0.947, latency: { count: n(19), p50Ms: 760, p95Ms: 2_100 }, fallbackRate: 0.105, feedback: { count: n(3), mean: 0.5 } },
          difference: { successRate: 0.092, p50Ms: -420, p95Ms: -2_600, feedbackMean: 0.4 },
          variantShare: 0.2346,
        },
      ],
    };
  };
  const architect = {
    flowId: "langflow-local:architect",
    range: bounds("24h"),
    usage: flowUsage("langflow-local:architect", 74, 21, 1_240, 4_900, 22, 0),
    fallback: { asSource: { queries: 22, share: 0.2973 }, asTarget: { queries: 0, share: 0 } },
    feedback: { count: 6, mean: 0.1 },
    intents: [{ intent: "structural-thinking", queries: 71, failureRate: 0.2283, latency: { count: 92, p50Ms: 1_260, p95Ms: 4_950 } }],
    recommendations: [
      {
        kind: "fallback-source",
        severity: "warning",
        intent: "structural-thinking",
        message: "langflow-local:architect fails over in 30% of its structural-thinking queries (mostly BACKEND_TIMEOUT): raise its timeout or demote it for structural-thinking",
      },
    ],
  };
  const metricsRows = (groupBy: MetricsExportView["groupBy"]): MetricsExportView["rows"] => {
    const flows = summary("24h", 1).topFlows;
    if (groupBy === "flow") return flows.map((flow) => ({ group: flow.flowId, queries: flow.queries, answered: flow.answered, success_rate: flow.successRate, attempt_p95_ms: flow.latency.p95Ms }));
    if (groupBy === "backend") {
      const byBackend = new Map<string, { queries: number; answered: number }>();
      for (const flow of flows) {
        const entry = byBackend.get(flow.backendId) ?? { queries: 0, answered: 0 };
        entry.queries += flow.queries;
        entry.answered += flow.answered;
        byBackend.set(flow.backendId, entry);
      }
      return [...byBackend.entries()].map(([group, entry]) => ({ group, queries: entry.queries, answered: entry.answered, success_rate: null, attempt_p95_ms: null }));
    }
    return summary("24h", 1).intents.map((intent) => ({ group: intent.intent, queries: intent.queries, answered: null, success_rate: intent.successRate, attempt_p95_ms: null }));
  };
  const metrics = (groupBy: MetricsExportView["groupBy"]): MetricsExportView => ({
    range: bounds("24h"),
    groupBy,
    columns: ["group", "queries", "answered", "success_rate", "attempt_p95_ms"],
    rows: metricsRows(groupBy),
  });
  return {
    summaries: { "1h": summary("1h", 0.05), "24h": summary("24h", 1), "7d": summary("7d", 6.5) },
    flowAnalyses: { [architect.flowId]: architect },
    patterns: {
      range: bounds("24h"),
      queries: 412,
      questionsAnalysed: 398,
      clusters: [
        { id: "c1", size: 14, representative: "convert this parquet file to csv", dominantIntent: "data-processing", meanConfidence: 0.41, fallbackRate: 0.07, keywords: ["parquet", "csv", "convert"] },
        { id: "c2", size: 9, representative: "sketch the service boundaries of the billing system", dominantIntent: "structural-thinking", meanConfidence: 0.46, fallbackRate: 0.33, keywords: ["boundaries", "service"] },
      ],
      fallbackIntents: [{ intent: "structural-thinking", queries: 81, fallbackRate: 0.259, failureRate: 0.123 }],
      lowConfidence: [{ traceId: "sample-low-1", question: "parquet to csv but keep the schema?", intent: "data-processing", confidence: 0.31 }],
      proposals: [
        {
          kind: "intent-pattern",
          intent: "data-processing",
          keywords: ["parquet", "csv"],
          support: 14,
          reason: "classified as data-processing but with low confidence (14 questions, mean confidence 0.41): add these keywords as data-processing patterns",
          examples: ["convert this parquet file to csv"],
        },
        {
          kind: "intent-pattern",
          intent: "structural-thinking",
          keywords: ["boundaries"],
          support: 9,
          reason: "classified as structural-thinking but with low confidence (9 questions, mean confidence 0.46): add these keywords as structural-thinking patterns",
        },
      ],
    },
    learned: {
      maxAdjustment: 0.15,
      adjustments: [
        {
          intent: "structural-thinking",
          flowId: "langflow-local:architect",
          flowMatch: -0.0912,
          performance: -0.1204,
          samples: 86.4,
          successRate: 0.7721,
          reason: "learned prior for structural-thinking on langflow-local:architect: success 77.2% vs 98.9% for its peers over 86.4 weighted outcomes -> flow_match -0.0912, performance -0.1204",
        },
        {
          intent: "structural-thinking",
          flowId: "flowise-local:code-helper",
          flowMatch: 0.0301,
          performance: 0.0415,
          samples: 24.9,
          successRate: 0.9893,
          reason: "learned prior for structural-thinking on flowise-local:code-helper: success 98.9% vs 77.2% for its peers over 24.9 weighted outcomes -> flow_match +0.0301, performance +0.0415",
        },
      ],
    },
    metrics: { flow: metrics("flow"), backend: metrics("backend"), intent: metrics("intent") },
  };
}
