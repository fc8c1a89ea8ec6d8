/**
 * The shapes of the analytics the dashboard shows. They are the minimal subsets of the reports of
 * `@afw/analytics` (`analytics_dashboard`, `analyze_flow`, `pattern_analysis`, `export_metrics`
 * and the learned prior's snapshot) that the page reads; the gateway adapts its analytics output
 * to them, and extra fields a source returns are passed through to the JSON endpoints unchanged.
 * Rates are 0..1 and `null` without data; latencies are milliseconds.
 */

/** A named time range ending now: the last hour, day or week. */
export type AnalyticsRange = "1h" | "24h" | "7d";

/** The bounds of a report (ISO 8601). */
export interface AnalyticsRangeBounds {
  /** First included instant. */
  from: string;
  /** Last included instant. */
  to: string;
}

/** Latency percentiles of a set of durations (nearest rank). */
export interface AnalyticsLatencyView {
  /** Number of durations. */
  count: number;
  /** Median, milliseconds. */
  p50Ms: number | null;
  /** 95th percentile, milliseconds. */
  p95Ms: number | null;
  /** Mean, milliseconds. */
  meanMs?: number | null | undefined;
}

/** Explicit feedback (`record_feedback`), normalised to -1..1. */
export interface AnalyticsFeedbackView {
  /** Ratings counted. */
  count: number;
  /** Mean rating, -1..1. */
  mean: number | null;
}

/** Headline numbers of a range. */
export interface AnalyticsTotalsView {
  /** Queries that started in the range. */
  queries: number;
  /** Queries answered. */
  answered: number;
  /** Queries that failed. */
  failed: number;
  /** `answered / (answered + failed)`. */
  successRate: number | null;
  /** Queries answered from the cache. */
  cacheHits: number;
  /** Queries that looked in the cache and missed. */
  cacheMisses: number;
  /** `cacheHits / (cacheHits + cacheMisses)`. */
  cacheHitRate: number | null;
  /** Completed queries that needed a fallback. */
  fallbackQueries: number;
  /** `fallbackQueries / completed queries`. */
  fallbackRate: number | null;
  /** Backend calls (every attempt). */
  attempts?: number | undefined;
  /** Queries the router reported as low-confidence. */
  lowConfidence?: number | undefined;
  /** Feedback given in the range. */
  feedback?: AnalyticsFeedbackView | undefined;
}

/** Usage, success and latency of one flow. */
export interface AnalyticsFlowUsageView {
  /** Gateway-wide flow id. */
  flowId: string;
  /** Backend of the flow. */
  backendId: string;
  /** Queries that attempted the flow or were served from its cached answers. */
  queries: number;
  /** Queries the flow answered by running. */
  answered: number;
  /** Queries answered from its cached answers. */
  cacheHits: number;
  /** Backend calls to the flow. */
  attempts: number;
  /** Calls that ended in error or timeout. */
  failures: number;
  /** Successful calls / completed calls. */
  successRate: number | null;
  /** Latency of its calls. */
  latency: AnalyticsLatencyView;
  /** Fallbacks away from the flow. */
  fallbacksFrom: number;
  /** Fallbacks to the flow. */
  fallbacksTo: number;
}

/** Usage of one intent. */
export interface AnalyticsIntentView {
  /** Intent name. */
  intent: string;
  /** Queries classified as it. */
  queries: number;
  /** Share of all classified queries. */
  share: number | null;
  /** Share of its completed queries that were answered. */
  successRate: number | null;
  /** Share of its completed queries that needed a fallback. */
  fallbackRate: number | null;
  /** Mean classifier confidence. */
  meanConfidence: number | null;
}

/** Outcomes of one arm of an A/B experiment. */
export interface AnalyticsExperimentArmView {
  /** Queries assigned to the arm. */
  queries: number;
  /** `answered / (answered + failed)`. */
  successRate: number | null;
  /** Durations of its completed queries. */
  latency: AnalyticsLatencyView;
  /** Share of its completed queries that needed a fallback. */
  fallbackRate: number | null;
  /** Feedback on its answers. */
  feedback: AnalyticsFeedbackView;
}

/** Control against variant of one A/B experiment. */
export interface AnalyticsExperimentView {
  /** Configured experiment id. */
  experimentId: string;
  /** The control arm (the configured routing). */
  control: AnalyticsExperimentArmView;
  /** The variant arm. */
  variant: AnalyticsExperimentArmView;
  /** Variant minus control, `null` where a side has no data. */
  difference: { successRate: number | null; p50Ms: number | null; p95Ms: number | null; feedbackMean: number | null };
  /** Share of the experiment's queries in the variant arm. */
  variantShare: number | null;
}

/** `GET {apiPath}/analytics/summary`: the usage dashboard of a range (`analytics_dashboard`). */
export interface AnalyticsSummaryView {
  /** Bounds of the report. */
  range: AnalyticsRangeBounds;
  /** Headline numbers. */
  totals: AnalyticsTotalsView;
  /** Durations of completed queries. */
  queryLatency: AnalyticsLatencyView;
  /** Latency of backend calls. */
  attemptLatency?: AnalyticsLatencyView | undefined;
  /** The most used flows, most queries first. */
  topFlows: AnalyticsFlowUsageView[];
  /** Queries per intent, most used first. */
  intents: AnalyticsIntentView[];
  /** A/B experiments seen in the range. */
  experiments: AnalyticsExperimentView[];
  /** True when the range held more events than one report reads (it covers the newest). */
  truncated?: boolean | undefined;
}

/** One rule-based recommendation of `analyze_flow`. */
export interface AnalyticsRecommendationView {
  /** Which rule produced it, e.g. `slow-fallback-target`. */
  kind: string;
  /** `info`, `warning` or `critical`. */
  severity: "info" | "warning" | "critical";
  /** The intent it is about, when it is about one. */
  intent?: string | undefined;
  /** What to do, with the evidence. */
  message: string;
}

/** One flow's numbers for one intent. */
export interface AnalyticsFlowIntentView {
  /** Intent name. */
  intent: string;
  /** Queries of this intent that touched the flow. */
  queries: number;
  /** Failed calls / completed calls for this intent. */
  failureRate: number | null;
  /** Latency of its calls for this intent. */
  latency: AnalyticsLatencyView;
}

/** `GET {apiPath}/analytics/flows/:flowId`: one flow's analysis (`analyze_flow`). */
export interface FlowAnalysisView {
  /** Gateway-wide flow id. */
  flowId: string;
  /** Bounds of the report. */
  range: AnalyticsRangeBounds;
  /** Usage over every intent. */
  usage: AnalyticsFlowUsageView;
  /** Fallbacks away from (`asSource`) and to (`asTarget`) the flow, with their share of its queries. */
  fallback: { asSource: { queries: number; share: number | null }; asTarget: { queries: number; share: number | null } };
  /** Feedback on its answers. */
  feedback: AnalyticsFeedbackView;
  /** Per-intent breakdown. */
  intents: AnalyticsFlowIntentView[];
  /** Concrete recommendations, most severe first. */
  recommendations: AnalyticsRecommendationView[];
}

/** A group of similar questions. */
export interface QuestionClusterView {
  /** Cluster id within one report, e.g. `c1`. */
  id: string;
  /** Questions in the cluster. */
  size: number;
  /** The question closest to the cluster's centre. */
  representative: string;
  /** The intent most of its questions were classified as. */
  dominantIntent: string | null;
  /** Mean classifier confidence. */
  meanConfidence: number | null;
  /** Share of its completed queries that needed a fallback. */
  fallbackRate: number | null;
  /** Words that characterise it. */
  keywords: string[];
}

/** An intent whose queries often fell back or failed. */
export interface FallbackIntentView {
  /** Intent name. */
  intent: string;
  /** Its queries in the range. */
  queries: number;
  /** Share of its completed queries that needed a fallback. */
  fallbackRate: number | null;
  /** Share of its completed queries that failed. */
  failureRate: number | null;
}

/** A question the classifier was unsure about. */
export interface LowConfidenceQuestionView {
  /** Trace id of the query. */
  traceId: string;
  /** The question, when known (`null` otherwise; hidden in redacted mode). */
  question: string | null;
  /** The intent it was classified as. */
  intent: string | null;
  /** Classifier confidence, 0..1. */
  confidence: number;
}

/** A proposal of `pattern_analysis`: keywords for an intent, or a group of questions that needs a flow. */
export interface PatternProposalView {
  /** `intent-pattern` (add `keywords` as patterns of `intent`) or `new-flow`. */
  kind: "intent-pattern" | "new-flow";
  /** The intent the keywords belong to. */
  intent: string | null;
  /** Proposed keywords. */
  keywords: string[];
  /** Questions behind the proposal. */
  support: number;
  /** Why, with the numbers. */
  reason: string;
  /** Example questions (hidden in redacted mode). */
  examples?: string[] | undefined;
}

/** `GET {apiPath}/analytics/patterns`: the question patterns of a range (`pattern_analysis`). */
export interface PatternAnalysisView {
  /** Bounds of the report. */
  range: AnalyticsRangeBounds;
  /** Queries in the range. */
  queries: number;
  /** Questions clustered. */
  questionsAnalysed: number;
  /** Clusters, largest first. */
  clusters: QuestionClusterView[];
  /** Intents that often fall back or fail. */
  fallbackIntents: FallbackIntentView[];
  /** Questions under the low-confidence threshold, least confident first. */
  lowConfidence: LowConfidenceQuestionView[];
  /** Candidates for new intent patterns or flows. */
  proposals: PatternProposalView[];
}

/** The learned prior's current adjustment of one (intent, flow). */
export interface LearnedAdjustmentView {
  /** Intent name. */
  intent: string;
  /** Gateway-wide flow id. */
  flowId: string;
  /** Added to the `flow_match` score component (bounded). */
  flowMatch: number;
  /** Added to the `performance` score component (bounded). */
  performance: number;
  /** Decayed number of outcomes behind it. */
  samples: number;
  /** Decayed success rate of the flow for the intent. */
  successRate: number | null;
  /** One-line explanation (as `explain_routing` shows it). */
  reason: string;
}

/** `GET {apiPath}/analytics/learned`: the learned routing prior. */
export interface LearnedPriorView {
  /** The largest absolute adjustment. */
  maxAdjustment: number;
  /** Every (intent, flow) the prior knows. */
  adjustments: LearnedAdjustmentView[];
}

/** A cell of an exported metrics row. */
export type MetricsCell = string | number | null;

/** What `GET {apiPath}/analytics/export` serialises as JSON or CSV (`export_metrics`). */
export interface MetricsExportView {
  /** Bounds of the export. */
  range: AnalyticsRangeBounds;
  /** `backend`, `flow` or `intent`. */
  groupBy: "backend" | "flow" | "intent";
  /** Column names, in CSV order. */
  columns: string[];
  /** One row per group. */
  rows: Array<Record<string, MetricsCell>>;
}
