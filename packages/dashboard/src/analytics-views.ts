import type { AnalyticsDashboard, FlowAnalysis, PatternAnalysis } from "@afw/analytics";

/** A named time range ending now: the last hour, day or week. */
export type AnalyticsRange = "1h" | "24h" | "7d";

/** `GET {apiPath}/analytics/summary`: the `analytics_dashboard` report, `truncated` when the range held more events than one report reads. */
export type AnalyticsSummaryView = AnalyticsDashboard & { truncated?: boolean | undefined };

/** `GET {apiPath}/analytics/flows/:flowId`: the `analyze_flow` report. */
export type FlowAnalysisView = FlowAnalysis;

/** `GET {apiPath}/analytics/patterns`: the `pattern_analysis` report. */
export type PatternAnalysisView = PatternAnalysis;

/** The learned prior's current adjustment of one (intent, flow). */
export interface LearnedAdjustmentView {
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

/** `GET {apiPath}/analytics/learned`: the learned routing prior, bounded by `maxAdjustment`. */
export interface LearnedPriorView {
  maxAdjustment: number;
  /** Every (intent, flow) the prior knows. */
  adjustments: LearnedAdjustmentView[];
}

/** What `GET {apiPath}/analytics/export` writes as JSON or CSV (`export_metrics`): one row per group, `columns` in CSV order. */
export interface MetricsExportView {
  /** Bounds of the export (ISO 8601). */
  range: { from: string; to: string };
  groupBy: "backend" | "flow" | "intent";
  columns: string[];
  rows: Array<Record<string, string | number | null>>;
}
