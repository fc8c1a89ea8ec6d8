/**
 * `@afw/analytics`: the audit log of gateway decisions, analytics over it (dashboard, per-flow
 * analysis with recommendations, question patterns, metrics export, flow-registry sync),
 * explicit feedback, and the learning loop — a bounded, decaying learned routing prior and A/B
 * routing — that makes routing improve with use.
 *
 * @packageDocumentation
 */
export { type AbAssignedEvent, type AuditEvent, type AuditEventType } from "./audit-event.js";
export { type TimeRangePreset, type TimeRange, type TimeInput } from "./time-range.js";
export { type AuditLog, type AuditQuery, type AuditLogStats } from "./audit-log.js";
export { createMemoryAuditLog, type MemoryAuditLogOptions } from "./memory-audit-log.js";
export { createRedisAuditLog, type RedisAuditLogOptions } from "./redis-audit-log.js";
export { type RedisClient, type RedisStoreConnectionOptions } from "./redis-support.js";
export { normalizeRating, createMemoryFeedbackStore, type FeedbackScale, type FeedbackRecord, type FeedbackQuery, type FeedbackStore, type MemoryFeedbackStoreOptions } from "./feedback.js";
export { createRedisFeedbackStore, type RedisFeedbackStoreOptions } from "./redis-feedback-store.js";
export { recordFeedback, type RecordFeedbackDependencies, type RecordFeedbackResult, type TurnResolver } from "./record-feedback.js";
export { buildQueryRecords, type QueryRecord, type AttemptRecord, type FallbackRecord, type CandidateRecord } from "./query-records.js";
export { mean, ratio, type LatencySummary, type FeedbackSummary } from "./statistics.js";
export {
  type AnalyticsData,
  type ReportRange,
  type FlowUsage,
  type IntentUsage,
  type ExperimentArmStats,
  type ExperimentComparison,
} from "./analytics-data.js";
export { analyticsDashboard, type AnalyticsDashboard, type AnalyticsDashboardOptions, type DashboardTotals } from "./dashboard.js";
export {
  analyzeFlow,
  type AnalyzeFlowOptions,
  type FlowAnalysis,
  type FlowIntentBreakdown,
  type FlowRecommendation,
  type FlowRecommendationThresholds,
} from "./analyze-flow.js";
export {
  patternAnalysis,
  type PatternAnalysisOptions,
  type PatternAnalysis,
  type QuestionCluster,
  type QuestionText,
  type QuestionLookup,
  type FallbackIntent,
  type LowConfidenceQuestion,
  type PatternProposal,
} from "./pattern-analysis.js";
export { METRICS_COLUMNS, exportMetrics, type ExportMetricsOptions, type MetricsExport, type MetricsFormat, type MetricsGroupBy, type MetricsRow } from "./export-metrics.js";
export { toCsv, parseCsv, type CsvValue, type CsvOptions } from "./csv.js";
export { syncFlowRegistry, type SyncFlowRegistryOptions, type SyncFlowRegistryResult, type FlowRegistryChange, type RegistryFieldChange, type RegistryFlowEntry, type ConfiguredBackendFlows } from "./sync-flow-registry.js";
export {
  createLearnedRoutingPrior,
  applyLearnedAdjustment,
  type LearnedRoutingPrior,
  type LearnedRoutingPriorOptions,
  type LearnedPriorBounds,
  type RoutingOutcome,
  type RoutingAdjustment,
  type LearnedPriorSnapshotEntry,
} from "./learned-prior.js";
export { createMemoryPriorStore, createRedisPriorStore, type LearnedPriorStore, type PriorStats, type PriorEntry, type RedisPriorStoreOptions } from "./prior-store.js";
export {
  AbExperimentSchema,
  createAbAssignment,
  type AbExperiment,
  type AbExperimentInput,
  type AbAssignment,
  type AbAssignmentOptions,
  type AbRequest,
  type AbDecision,
} from "./ab-assignment.js";
export { RecordFeedbackInputSchema, ANALYTICS_TOOLS, type AnalyticsToolName } from "./tool-schemas.js";
export {
  createAnalyticsService,
  type AnalyticsService,
  type AnalyticsServiceOptions,
  type AnalyticsReportMeta,
  type FlowRegistrySource,
  type WithMeta,
} from "./analytics-service.js";
