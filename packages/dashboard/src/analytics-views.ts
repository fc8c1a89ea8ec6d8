import type { AnalyticsDashboard, FlowAnalysis, PatternAnalysis } from "@afw/analytics";

/** A named time range ending now: the last hour, day or week. */
export type AnalyticsRange = "1h" | "24h" | "7d";

/** `GET {apiPath}/analytics/summary`: `@afw/analytics`' `analytics_dashboard` report of a range. */
export type AnalyticsSummaryView = AnalyticsDashboard & {
  /** True when the range held more events than one report reads (it covers the newest). */
  truncated?: boolean | undefined;
};

/** `GET {apiPath}/analytics/flows/:flowId`: `@afw/analytics`' `analyze_flow` report. */
export type FlowAnalysisView = FlowAnalysis;

/** `GET {apiPath}/analytics/patterns`: `@afw/analytics`' `pattern_analysis` report. */
export type PatternAnalysisView = PatternAnalysis;

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
  /** Bounds of the export (ISO 8601). */
  range: { from: string; to: string };
  /** `backend`, `flow` or `intent`. */
  groupBy: "backend" | "flow" | "intent";
  /** Column names, in CSV order. */
  columns: string[];
  /** One row per group. */
  rows: Array<Record<string, MetricsCell>>;
}
