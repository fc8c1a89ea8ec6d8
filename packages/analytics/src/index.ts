/**
 * `@afw/analytics`: the audit log of gateway decisions, analytics over it (dashboard, per-flow
 * analysis with recommendations, question patterns, metrics export, flow-registry sync),
 * explicit feedback, and the learning loop — a bounded, decaying learned routing prior and A/B
 * routing — that makes routing improve with use.
 *
 * @packageDocumentation
 */
export type { AuditEvent, AbAssignedEvent } from "./audit-event.js";
export { createMemoryAuditLog, type AuditLog, type AuditQuery, type AuditLogStats, type MemoryAuditLogOptions } from "./audit-log.js";
export { createRedisAuditLog, type RedisAuditLogOptions } from "./redis-audit-log.js";
export type { RedisStoreConnectionOptions } from "./redis-support.js";
export type { TimeInput, TimeRange, TimeRangePreset } from "./time-range.js";
export {
  createMemoryFeedbackStore,
  type FeedbackRecord,
  type FeedbackScale,
  type FeedbackStore,
  type FeedbackQuery,
} from "./feedback.js";
export { createRedisFeedbackStore, type RedisFeedbackStoreOptions } from "./redis-feedback-store.js";
export { buildQueryRecords, type QueryRecord, type AttemptRecord, type CandidateRecord, type FallbackRecord } from "./query-records.js";
export { METRICS_COLUMNS, type MetricsExport, type MetricsRow, type MetricsFormat, type MetricsGroupBy } from "./export-metrics.js";
export { toCsv, type CsvValue } from "./csv.js";
export type { ConfiguredBackendFlows, RegistryFlowEntry, SyncFlowRegistryResult, FlowRegistryChange, RegistryFieldChange } from "./sync-flow-registry.js";
export {
  createLearnedRoutingPrior,
  type LearnedRoutingPrior,
  type LearnedRoutingPriorOptions,
  type LearnedPriorSnapshotEntry,
  type RoutingAdjustment,
  type RoutingOutcome,
} from "./learned-prior.js";
export { createRedisPriorStore, type LearnedPriorStore, type PriorEntry, type PriorStats } from "./prior-store.js";
export {
  AbExperimentSchema,
  createAbAssignment,
  type AbAssignment,
  type AbAssignmentOptions,
  type AbExperiment,
  type AbDecision,
  type AbRequest,
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
export type { RecordFeedbackResult, TurnResolver } from "./record-feedback.js";
export type { AnalyticsDashboard, DashboardTotals } from "./dashboard.js";
export type { ExperimentArmStats, ExperimentComparison, FlowUsage, IntentUsage, ReportRange } from "./analytics-data.js";
export type { FeedbackSummary, LatencySummary } from "./statistics.js";
export type { FlowAnalysis, FlowIntentBreakdown, FlowRecommendation } from "./analyze-flow.js";
export type {
  PatternAnalysis,
  QuestionCluster,
  FallbackIntent,
  LowConfidenceQuestion,
  PatternProposal,
  QuestionLookup,
} from "./pattern-analysis.js";
export { TrainingExampleSchema, type TrainingExample, type TrainingQuestion } from "./training-export.js";
