/**
 * `@afw/analytics`: the audit log of gateway decisions, analytics over it (dashboard, per-flow
 * analysis with recommendations, question patterns, metrics export, flow-registry sync),
 * explicit feedback, and the learning loop — a bounded, decaying learned routing prior and A/B
 * routing — that makes routing improve with use.
 *
 * @packageDocumentation
 */
export { type AuditEvent, type AuditEventType } from "./audit-event.js";

export { type AuditLog, type AuditQuery } from "./audit-log.js";
export { createMemoryAuditLog } from "./memory-audit-log.js";
export { createRedisAuditLog } from "./redis-audit-log.js";
export { type RedisClient } from "./redis-support.js";
export { normalizeRating, createMemoryFeedbackStore, type FeedbackRecord, type FeedbackStore } from "./feedback.js";
export { createRedisFeedbackStore } from "./redis-feedback-store.js";
export { recordFeedback } from "./record-feedback.js";
export { buildQueryRecords } from "./query-records.js";
export { mean, ratio, type LatencySummary } from "./statistics.js";

export { analyticsDashboard } from "./dashboard.js";
export { analyzeFlow, type FlowRecommendation } from "./analyze-flow.js";
export { patternAnalysis } from "./pattern-analysis.js";
export { METRICS_COLUMNS, exportMetrics, type MetricsRow } from "./export-metrics.js";
export { toCsv, parseCsv } from "./csv.js";
export { syncFlowRegistry, type ConfiguredBackendFlows } from "./sync-flow-registry.js";
export { createLearnedRoutingPrior, applyLearnedAdjustment, type LearnedRoutingPrior, type RoutingOutcome } from "./learned-prior.js";
export { createMemoryPriorStore, createRedisPriorStore, type LearnedPriorStore, type PriorEntry } from "./prior-store.js";
export { AbExperimentSchema, createAbAssignment, type AbAssignment } from "./ab-assignment.js";
export { RecordFeedbackInputSchema, ANALYTICS_TOOLS, type AnalyticsToolName } from "./tool-schemas.js";
export { createAnalyticsService, type AnalyticsService } from "./analytics-service.js";
export { TrainingExampleSchema, buildTrainingExamples, type TrainingExample, type TrainingQuestion } from "./training-export.js";
// Types (and schemas) of the signatures above.
export { type AbAssignmentOptions, type AbDecision, type AbRequest } from "./ab-assignment.js";
export { type AnalyticsServiceOptions, type FlowRegistrySource, type WithMeta } from "./analytics-service.js";
export { type AnalyzeFlowOptions, type FlowAnalysis } from "./analyze-flow.js";
export { type AbAssignedEvent } from "./audit-event.js";
export { type AuditLogStats } from "./audit-log.js";
export { type CsvOptions, type CsvValue } from "./csv.js";
export { type AnalyticsDashboard, type AnalyticsDashboardOptions } from "./dashboard.js";
export { type ExportMetricsOptions, type MetricsExport } from "./export-metrics.js";
export { type FeedbackQuery, FeedbackRecordSchema, type MemoryFeedbackStoreOptions } from "./feedback.js";
export { type LearnedPriorSnapshotEntry, type LearnedRoutingPriorOptions, type RoutingAdjustment } from "./learned-prior.js";
export { type MemoryAuditLogOptions } from "./memory-audit-log.js";
export { type PatternAnalysis, type PatternAnalysisOptions, type QuestionText } from "./pattern-analysis.js";
export { type PriorStats, type RedisPriorStoreOptions } from "./prior-store.js";
export { type QueryRecord } from "./query-records.js";
export { type RecordFeedbackDependencies, type RecordFeedbackResult } from "./record-feedback.js";
export { type RedisAuditLogOptions } from "./redis-audit-log.js";
export { type RedisFeedbackStoreOptions } from "./redis-feedback-store.js";
export { type RegistryFlowEntry, type SyncFlowRegistryOptions, type SyncFlowRegistryResult } from "./sync-flow-registry.js";
export { type TimeInput, type TimeRange } from "./time-range.js";
export { type ExperimentComparison, type FlowUsage, type IntentUsage, type ReportRange } from "./analytics-data.js";
export { type AnalyticsReportMeta } from "./analytics-service.js";
export { type FlowIntentBreakdown, type FlowRecommendationThresholds } from "./analyze-flow.js";
export { AbAssignedEventSchema } from "./audit-event.js";
export { type DashboardTotals } from "./dashboard.js";
export { type LearnedPriorBounds } from "./learned-prior.js";
export { type FallbackIntent, type LowConfidenceQuestion, type PatternProposal, type QuestionCluster, type QuestionLookup } from "./pattern-analysis.js";
export { type AttemptRecord, type CandidateRecord, type FallbackRecord } from "./query-records.js";
export { type TurnResolver } from "./record-feedback.js";
export { type FeedbackSummary } from "./statistics.js";
export { type FlowRegistryChange } from "./sync-flow-registry.js";
export { type TimeRangePreset } from "./time-range.js";
