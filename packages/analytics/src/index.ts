/**
 * `@afw/analytics`: the audit log of gateway decisions, analytics over it (dashboard, per-flow
 * analysis with recommendations, question patterns, metrics export, flow-registry sync),
 * explicit feedback, and the learning loop — a bounded, decaying learned routing prior and A/B
 * routing — that makes routing improve with use.
 *
 * @packageDocumentation
 */
export { type AuditEvent } from "./audit-event.js";
export { createMemoryAuditLog, type AuditLog, type AuditQuery, type MemoryAuditLogOptions } from "./audit-log.js";
export { createRedisAuditLog, type RedisAuditLogOptions } from "./redis-audit-log.js";
export { type RedisClient } from "./redis-support.js";
export { createMemoryFeedbackStore, type FeedbackRecord, type FeedbackStore } from "./feedback.js";
export { createRedisFeedbackStore, type RedisFeedbackStoreOptions } from "./redis-feedback-store.js";
export { buildQueryRecords, type QueryRecord } from "./query-records.js";
export { METRICS_COLUMNS } from "./export-metrics.js";
export { toCsv } from "./csv.js";
export { type ConfiguredBackendFlows } from "./sync-flow-registry.js";
export {
  createLearnedRoutingPrior,
  applyLearnedAdjustment,
  type LearnedRoutingPrior,
  type LearnedRoutingPriorOptions,
} from "./learned-prior.js";
export { createMemoryPriorStore, createRedisPriorStore, type LearnedPriorStore, type RedisPriorStoreOptions } from "./prior-store.js";
export { AbExperimentSchema, createAbAssignment, type AbAssignment, type AbAssignmentOptions } from "./ab-assignment.js";
export { RecordFeedbackInputSchema, ANALYTICS_TOOLS, type AnalyticsToolName } from "./tool-schemas.js";
export { createAnalyticsService, type AnalyticsService, type AnalyticsServiceOptions } from "./analytics-service.js";
export type { AnalyticsDashboard } from "./dashboard.js";
export type { FlowAnalysis } from "./analyze-flow.js";
export type { PatternAnalysis } from "./pattern-analysis.js";
export { TrainingExampleSchema, type TrainingExample, type TrainingQuestion } from "./training-export.js";
