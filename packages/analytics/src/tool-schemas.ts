import { z } from "zod";
import { SessionIdSchema } from "@afw/contracts";
import { MetricsFormatSchema, MetricsGroupBySchema } from "./export-metrics.js";
import { FeedbackScaleSchema } from "./feedback.js";
import { TimeRangePresetSchema } from "./time-range.js";

const timeRangeShape = {
  range: TimeRangePresetSchema.default("24h").describe("Time range ending now: `1h`, `24h` or `7d`."),
  from: z.iso.datetime({ offset: true }).optional().describe("Start of an explicit range (ISO 8601); with `from`/`to` set, `range` is ignored."),
  to: z.iso.datetime({ offset: true }).optional().describe("End of an explicit range (ISO 8601); defaults to now."),
} as const;

/** Zod shape of `analytics_dashboard`'s input, for MCP tool registration. */
export const AnalyticsDashboardInputShape = {
  ...timeRangeShape,
  top: z.number().int().min(1).max(100).default(10).describe("How many flows to list in `topFlows`."),
} as const;
/** Zod schema of {@link AnalyticsDashboardInput}. */
export const AnalyticsDashboardInputSchema = z.object(AnalyticsDashboardInputShape).strict();
/** Input of the `analytics_dashboard` tool. */
export type AnalyticsDashboardInput = z.infer<typeof AnalyticsDashboardInputSchema>;

/** Zod shape of `analyze_flow`'s input, for MCP tool registration. */
export const AnalyzeFlowInputShape = {
  flow_id: z.string().min(1).max(200).describe("Gateway-wide flow id, `<backendId>:<flowId>`."),
  ...timeRangeShape,
} as const;
/** Zod schema of {@link AnalyzeFlowInput}. */
export const AnalyzeFlowInputSchema = z.object(AnalyzeFlowInputShape).strict();
/** Input of the `analyze_flow` tool. */
export type AnalyzeFlowInput = z.infer<typeof AnalyzeFlowInputSchema>;

/** Zod shape of `pattern_analysis`'s input, for MCP tool registration. */
export const PatternAnalysisInputShape = {
  ...timeRangeShape,
  similarity_threshold: z.number().min(0).max(1).default(0.75).describe("Cosine similarity to a cluster's centre needed to join it."),
  min_cluster_size: z.number().int().min(1).max(1000).default(3).describe("Smallest reported cluster."),
  max_clusters: z.number().int().min(1).max(200).default(20).describe("Most clusters reported."),
  low_confidence_threshold: z.number().min(0).max(1).default(0.5).describe("Intent confidence under this is low."),
} as const;
/** Zod schema of {@link PatternAnalysisInput}. */
export const PatternAnalysisInputSchema = z.object(PatternAnalysisInputShape).strict();
/** Input of the `pattern_analysis` tool. */
export type PatternAnalysisInput = z.infer<typeof PatternAnalysisInputSchema>;

/** Zod shape of `export_metrics`'s input, for MCP tool registration. */
export const ExportMetricsInputShape = {
  ...timeRangeShape,
  format: MetricsFormatSchema.default("json").describe("`json` or `csv`."),
  group_by: MetricsGroupBySchema.default("flow").describe("One row per `backend`, `flow` or `intent`."),
} as const;
/** Zod schema of {@link ExportMetricsInput}. */
export const ExportMetricsInputSchema = z.object(ExportMetricsInputShape).strict();
/** Input of the `export_metrics` tool. */
export type ExportMetricsInput = z.infer<typeof ExportMetricsInputSchema>;

/** Zod shape of `sync_flow_registry`'s input, for MCP tool registration. */
export const SyncFlowRegistryInputShape = {
  apply: z.boolean().default(false).describe("Apply the proposed changes; by default only propose them (dry run)."),
  backend: z.string().min(1).max(64).optional().describe("Only this backend id."),
  flow_ids: z.array(z.string().min(1).max(200)).max(500).optional().describe("With `apply`: apply only the changes of these gateway-wide flow ids."),
} as const;
/** Zod schema of {@link SyncFlowRegistryInput}. */
export const SyncFlowRegistryInputSchema = z.object(SyncFlowRegistryInputShape).strict();
/** Input of the `sync_flow_registry` tool. */
export type SyncFlowRegistryInput = z.infer<typeof SyncFlowRegistryInputSchema>;

/** Zod shape of `record_feedback`'s input, for MCP tool registration. Give `turn` or `trace_id`. */
export const RecordFeedbackInputShape = {
  session_id: SessionIdSchema.describe("The conversation the rated answer belongs to."),
  turn: z.number().int().min(1).optional().describe("1-based turn of the session that is rated."),
  trace_id: z.string().min(1).max(200).optional().describe("`_mcp_metadata.trace_id` of the rated answer (preferred over `turn`)."),
  rating: z
    .number()
    .min(-1)
    .max(5)
    .describe("-1..1 (1 best), or 1..5 stars (5 best). A rating above 1 is taken as stars; pass `scale: \"stars\"` to give 1 star."),
  scale: FeedbackScaleSchema.optional().describe("`unit` (-1..1) or `stars` (1..5); inferred from the rating when absent."),
  comment: z.string().max(2000).optional().describe("Free text (stored as given; do not put secrets in it)."),
} as const;
/** Zod schema of {@link RecordFeedbackInput}: the shape plus "turn or trace_id is required". */
export const RecordFeedbackInputSchema = z
  .object(RecordFeedbackInputShape)
  .strict()
  .refine((input) => input.turn !== undefined || input.trace_id !== undefined, { message: "give turn or trace_id", path: ["turn"] });
/** Input of the `record_feedback` tool. */
export type RecordFeedbackInput = z.infer<typeof RecordFeedbackInputSchema>;

/** Name, title, description and input shape of one analytics MCP tool. */
export interface AnalyticsToolDefinition {
  title: string;
  description: string;
  inputShape: z.ZodRawShape;
}

/**
 * The analytics MCP tools, for `server.registerTool(name, { title, description, inputSchema:
 * inputShape }, handler)`.
 *
 * @example
 * ```ts
 * for (const [name, tool] of Object.entries(ANALYTICS_TOOLS)) {
 *   server.registerTool(name, { title: tool.title, description: tool.description, inputSchema: tool.inputShape }, handlers[name]);
 * }
 * ```
 */
export const ANALYTICS_TOOLS = {
  analytics_dashboard: {
    title: "Analytics dashboard",
    description:
      "Usage over a time range (1h, 24h, 7d or from/to): totals, success rate, latency p50/p95, cache hit rate, fallback rate, top flows, intents distribution and A/B comparisons.",
    inputShape: AnalyticsDashboardInputShape,
  },
  analyze_flow: {
    title: "Analyze a flow",
    description:
      "One flow's usage, success, latency p50/p95, fallback share (as source and target), feedback, per-intent breakdown and concrete recommendations.",
    inputShape: AnalyzeFlowInputShape,
  },
  pattern_analysis: {
    title: "Question patterns",
    description:
      "Common questions clustered by meaning, intents that often fall back, low-confidence questions, and proposed keywords for new intent patterns or flows.",
    inputShape: PatternAnalysisInputShape,
  },
  export_metrics: {
    title: "Export metrics",
    description: "Per-backend, per-flow or per-intent metrics over a time range as JSON or CSV.",
    inputShape: ExportMetricsInputShape,
  },
  sync_flow_registry: {
    title: "Sync the flow registry",
    description:
      "Compares discovered flows with the configured registry and proposes adds, updates and removals with inferred intents. Dry run unless apply is true; applying invalidates the cache of changed flows.",
    inputShape: SyncFlowRegistryInputShape,
  },
  record_feedback: {
    title: "Record feedback",
    description: "Rates an answer (session id + turn or trace id, rating -1..1 or 1..5 stars, optional comment); the rating feeds analytics and routing.",
    inputShape: RecordFeedbackInputShape,
  },
} as const satisfies Record<string, AnalyticsToolDefinition>;

/** Name of an analytics MCP tool. */
export type AnalyticsToolName = keyof typeof ANALYTICS_TOOLS;
