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

/**
 * The analytics MCP tools: title, description and zod input shape of each, for
 * `server.registerTool(name, { title, description, inputSchema: inputShape }, handler)`.
 */
export const ANALYTICS_TOOLS = {
  analytics_dashboard: {
    title: "Analytics dashboard",
    description:
      "Usage over a time range (1h, 24h, 7d or from/to): totals, success rate, latency p50/p95, cache hit rate, fallback rate, top flows, intents distribution and A/B comparisons.",
    inputShape: {
      ...timeRangeShape,
      top: z.number().int().min(1).max(100).default(10).describe("How many flows to list in `topFlows`."),
    },
  },
  analyze_flow: {
    title: "Analyze a flow",
    description:
      "One flow's usage, success, latency p50/p95, fallback share (as source and target), feedback, per-intent breakdown and concrete recommendations.",
    inputShape: {
      flow_id: z.string().min(1).max(200).describe("Gateway-wide flow id, `<backendId>:<flowId>`."),
      ...timeRangeShape,
    },
  },
  pattern_analysis: {
    title: "Question patterns",
    description:
      "Common questions clustered by meaning, intents that often fall back, low-confidence questions, and proposed keywords for new intent patterns or flows.",
    inputShape: {
      ...timeRangeShape,
      similarity_threshold: z.number().min(0).max(1).default(0.75).describe("Cosine similarity to a cluster's centre needed to join it."),
      min_cluster_size: z.number().int().min(1).max(1000).default(3).describe("Smallest reported cluster."),
      max_clusters: z.number().int().min(1).max(200).default(20).describe("Most clusters reported."),
      low_confidence_threshold: z.number().min(0).max(1).default(0.5).describe("Intent confidence under this is low."),
    },
  },
  export_metrics: {
    title: "Export metrics",
    description: "Per-backend, per-flow or per-intent metrics over a time range as JSON or CSV.",
    inputShape: {
      ...timeRangeShape,
      format: MetricsFormatSchema.default("json").describe("`json` or `csv`."),
      group_by: MetricsGroupBySchema.default("flow").describe("One row per `backend`, `flow` or `intent`."),
    },
  },
  sync_flow_registry: {
    title: "Sync the flow registry",
    description:
      "Compares discovered flows with the configured registry and proposes adds, updates and removals with inferred intents. Dry run unless apply is true; applying invalidates the cache of changed flows.",
    inputShape: {
      apply: z.boolean().default(false).describe("Apply the proposed changes; by default only propose them (dry run)."),
      backend: z.string().min(1).max(64).optional().describe("Only this backend id."),
      flow_ids: z.array(z.string().min(1).max(200)).max(500).optional().describe("With `apply`: apply only the changes of these gateway-wide flow ids."),
    },
  },
  record_feedback: {
    title: "Record feedback",
    description: "Rates an answer (session id + turn or trace id, rating -1..1 or 1..5 stars, optional comment); the rating feeds analytics and routing.",
    inputShape: {
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
    },
  },
} as const satisfies Record<string, { title: string; description: string; inputShape: z.ZodRawShape }>;

/** Name of an analytics MCP tool. */
export type AnalyticsToolName = keyof typeof ANALYTICS_TOOLS;

/** @internal */
export const AnalyticsDashboardInputSchema = z.object(ANALYTICS_TOOLS.analytics_dashboard.inputShape).strict();
/** @internal */
export const AnalyzeFlowInputSchema = z.object(ANALYTICS_TOOLS.analyze_flow.inputShape).strict();
/** @internal */
export const PatternAnalysisInputSchema = z.object(ANALYTICS_TOOLS.pattern_analysis.inputShape).strict();
/** @internal */
export const ExportMetricsInputSchema = z.object(ANALYTICS_TOOLS.export_metrics.inputShape).strict();
/** @internal */
export const SyncFlowRegistryInputSchema = z.object(ANALYTICS_TOOLS.sync_flow_registry.inputShape).strict();
/** Zod schema of `record_feedback`'s input: its shape, strict, with `turn` or `trace_id` required. */
export const RecordFeedbackInputSchema = z
  .object(ANALYTICS_TOOLS.record_feedback.inputShape)
  .strict()
  .refine((input) => input.turn !== undefined || input.trace_id !== undefined, { message: "give turn or trace_id", path: ["turn"] });
