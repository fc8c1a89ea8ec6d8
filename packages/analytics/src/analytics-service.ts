import { AfwError, parseOrThrow, type Embedder, type UniversalFlow } from "@afw/contracts";
import type { z } from "zod";
import { analyzeFlow, type FlowAnalysis } from "./analyze-flow.js";
import type { AuditEvent } from "./audit-event.js";
import { TRACE_SPAN_MS, type AuditLog } from "./audit-log.js";
import { analyticsDashboard, type AnalyticsDashboard } from "./dashboard.js";
import { exportMetrics, type MetricsExport } from "./export-metrics.js";
import { createMemoryFeedbackStore, type FeedbackRecord, type FeedbackStore } from "./feedback.js";
import type { LearnedRoutingPrior } from "./learned-prior.js";
import { patternAnalysis, type PatternAnalysis, type QuestionLookup } from "./pattern-analysis.js";
import { recordFeedback, type RecordFeedbackResult, type TurnResolver } from "./record-feedback.js";
import { syncFlowRegistry, type ConfiguredBackendFlows, type SyncFlowRegistryResult } from "./sync-flow-registry.js";
import { resolveTimeRange, timeRangeOfInput, type ResolvedTimeRange, type TimeRangeInput } from "./time-range.js";
import type { AnalyticsData } from "./analytics-data.js";
import { buildTrainingExamples, type TrainingExample, type TrainingQuestion } from "./training-export.js";
import {
  AnalyticsDashboardInputSchema,
  AnalyzeFlowInputSchema,
  ExportMetricsInputSchema,
  PatternAnalysisInputSchema,
  SyncFlowRegistryInputSchema,
  type RecordFeedbackInputSchema,
} from "./tool-schemas.js";

/** How much of the audit log a report read. */
export interface AnalyticsReportMeta {
  /** Events read from the audit log. */
  eventsRead: number;
  /** True when the range held more than `maxEvents` events: the report covers only the newest. */
  truncated: boolean;
}

/** A report with {@link AnalyticsReportMeta}. */
export type WithMeta<T> = T & { meta: AnalyticsReportMeta };

/** Options of {@link createAnalyticsService}. */
export interface AnalyticsServiceOptions {
  /** The audit log the reports read. */
  auditLog: AuditLog;
  /** Where feedback is stored. @default an in-memory store */
  feedbackStore?: FeedbackStore | undefined;
  /** Learns from linked feedback. */
  prior?: LearnedRoutingPrior | undefined;
  /** Embeds questions for `pattern_analysis` (required by that tool only). */
  embedder?: Embedder | undefined;
  /** Looks up the question text of a trace for `pattern_analysis`. */
  questionOf?: QuestionLookup | undefined;
  /** Resolves a session turn to its trace id for `record_feedback`. */
  resolveTurn?: TurnResolver | undefined;
  /** Most audit events one report reads. @default 200_000 */
  maxEvents?: number | undefined;
  /** Clock. @default Date.now */
  now?: (() => number) | undefined;
}

/** Where {@link AnalyticsService.syncFlowRegistry} gets the flows from and how it invalidates. */
export interface FlowRegistrySource {
  /** The backends' current discovery result. */
  discovered: readonly UniversalFlow[];
  /** The configured registry. */
  configured: readonly ConfiguredBackendFlows[];
  /** Called once per changed flow after an apply (e.g. `cache.invalidate({ flowId })`). */
  invalidate?: ((flowId: string) => Promise<unknown> | unknown) | undefined;
}

/**
 * The analytics MCP tools as one object: each method takes the tool's raw input (validated with
 * its schema), reads the audit log and feedback, and returns the report. The gateway registers
 * the tools with {@link ANALYTICS_TOOLS} and calls these methods.
 */
export interface AnalyticsService {
  /** `analytics_dashboard`. */
  analyticsDashboard(input?: z.input<typeof AnalyticsDashboardInputSchema>): Promise<WithMeta<AnalyticsDashboard>>;
  /** `analyze_flow`. */
  analyzeFlow(input: z.input<typeof AnalyzeFlowInputSchema>): Promise<WithMeta<FlowAnalysis>>;
  /**
   * `pattern_analysis`. Question texts come from the configured `questionOf`.
   *
   * @throws AfwError `CONFIG_INVALID` when no embedder is configured.
   */
  patternAnalysis(input?: z.input<typeof PatternAnalysisInputSchema>): Promise<WithMeta<PatternAnalysis>>;
  /** `export_metrics`. */
  exportMetrics(input?: z.input<typeof ExportMetricsInputSchema>): Promise<WithMeta<MetricsExport>>;
  /** `sync_flow_registry`: proposes (or applies) registry changes, with usage from the last 7 days as evidence. */
  syncFlowRegistry(input: z.input<typeof SyncFlowRegistryInputSchema>, source: FlowRegistrySource): Promise<SyncFlowRegistryResult & { invalidated: number }>;
  /** `record_feedback`. */
  recordFeedback(input: z.input<typeof RecordFeedbackInputSchema>): Promise<RecordFeedbackResult>;
  /**
   * The training examples of `questions` (e.g. a tenant's session turns): each joined with its
   * trace's decision, outcome and elicited answer, and its rating (see `buildTrainingExamples`).
   */
  trainingExamples(questions: readonly TrainingQuestion[]): Promise<TrainingExample[]>;
}

/**
 * Creates the {@link AnalyticsService} over an audit log and a feedback store.
 *
 * @example
 * ```ts
 * const analytics = createAnalyticsService({ auditLog, feedbackStore, prior, embedder });
 * server.registerTool("analytics_dashboard", { ...ANALYTICS_TOOLS.analytics_dashboard, inputSchema: ANALYTICS_TOOLS.analytics_dashboard.inputShape },
 *   async (input) => ({ content: [{ type: "text", text: JSON.stringify(await analytics.analyticsDashboard(input)) }] }));
 * ```
 */
export function createAnalyticsService(options: AnalyticsServiceOptions): AnalyticsService {
  const { auditLog } = options;
  const feedbackStore = options.feedbackStore ?? createMemoryFeedbackStore();
  const now = options.now ?? Date.now;
  const maxEvents = Math.max(1, options.maxEvents ?? 200_000);

  const load = async (range: ResolvedTimeRange): Promise<{ events: AuditEvent[]; feedback: FeedbackRecord[]; meta: AnalyticsReportMeta }> => {
    const [events, feedback] = await Promise.all([
      auditLog.query({ from: range.from, to: range.to + TRACE_SPAN_MS, limit: maxEvents, order: "desc" }),
      feedbackStore.list({ from: range.from, to: range.to }),
    ]);
    return { events, feedback, meta: { eventsRead: events.length, truncated: events.length >= maxEvents } };
  };
  /** Validates a report tool's input, reads its range and runs the report over it. */
  const report = async <S extends z.ZodType<TimeRangeInput>, T>(schema: S, tool: string, input: unknown, run: (parsed: z.infer<S>, data: AnalyticsData) => T | Promise<T>) => {
    const parsed = parseOrThrow(schema, input, "INVALID_INPUT", `${tool} input`);
    const at = now();
    const range = resolveTimeRange(timeRangeOfInput(parsed), at);
    const { events, feedback, meta } = await load(range);
    return { ...(await run(parsed, { events, feedback, range, now: at })), meta };
  };

  return {
    analyticsDashboard: (input = {}) => report(AnalyticsDashboardInputSchema, "analytics_dashboard", input, (parsed, data) => analyticsDashboard({ ...data, top: parsed.top })),
    analyzeFlow: (input) =>
      report(AnalyzeFlowInputSchema, "analyze_flow", input, (parsed, data) => analyzeFlow({ ...data, flowId: parsed.flow_id })),
    patternAnalysis: (input = {}) =>
      report(PatternAnalysisInputSchema, "pattern_analysis", input, (parsed, data) => {
        if (!options.embedder) throw new AfwError("CONFIG_INVALID", "pattern_analysis needs an embedder: pass one to createAnalyticsService");
        return patternAnalysis({
          ...data,
          embedder: options.embedder,
          questionOf: options.questionOf,
          similarityThreshold: parsed.similarity_threshold,
          minClusterSize: parsed.min_cluster_size,
          maxClusters: parsed.max_clusters,
          lowConfidenceThreshold: parsed.low_confidence_threshold,
        });
      }),
    exportMetrics: (input = {}) =>
      report(ExportMetricsInputSchema, "export_metrics", input, (parsed, data) => exportMetrics({ ...data, format: parsed.format, groupBy: parsed.group_by })),
    async syncFlowRegistry(input, source) {
      const parsed = parseOrThrow(SyncFlowRegistryInputSchema, input, "INVALID_INPUT", "sync_flow_registry input");
      const at = now();
      const range = resolveTimeRange("7d", at);
      const events = await auditLog
        .query({ from: range.from, to: range.to, limit: maxEvents, order: "desc", types: ["query-answered", "intent-classified", "routing-decided", "query-received"] })
        .catch(() => [] as AuditEvent[]);
      const backend = parsed.backend;
      const discovered = backend === undefined ? source.discovered : source.discovered.filter((flow) => flow.backendId === backend);
      const result = syncFlowRegistry({
        discovered,
        configured: source.configured,
        apply: parsed.apply,
        ...(parsed.flow_ids ? { only: parsed.flow_ids } : {}),
        ...(backend === undefined ? {} : { discoveredBackendIds: discovered.some((f) => f.source !== "configured") ? [backend] : [] }),
        events,
      });
      let invalidated = 0;
      if (result.applied && source.invalidate) {
        for (const flowId of result.invalidateFlowIds) {
          try {
            await source.invalidate(flowId);
            invalidated++;
          } catch {
            // reported through the count
          }
        }
      }
      return { ...result, invalidated };
    },
    async trainingExamples(questions) {
      if (questions.length === 0) return [];
      // Ratings come after the answers: everything from the first question until now.
      const from = questions.reduce((first, q) => Math.min(first, q.askedAt), Infinity);
      const { events, feedback } = await load({ from, to: now() });
      return buildTrainingExamples({ events, feedback, questions });
    },
    recordFeedback(input) {
      return recordFeedback(input, {
        feedbackStore,
        auditLog,
        resolveTurn: options.resolveTurn,
        prior: options.prior,
        now,
      });
    },
  };
}
