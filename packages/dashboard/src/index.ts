/**
 * `@afw/dashboard`: the Agentic Flywheel operator dashboard — a self-contained web page (no build
 * step, no CDN), JSON endpoints and a server-sent-event live feed, served by a `node:http`
 * handler that the gateway mounts behind its bearer auth. The gateway supplies the data by
 * implementing {@link DashboardSource} (or building one with {@link createStoreDashboardSource}).
 *
 * @packageDocumentation
 */
export { createDashboard, type Dashboard, type DashboardOptions } from "./create-dashboard.js";
export { type DashboardSource, type BackendView, type FlowPerformanceView, type PerformanceFigures, type TimeSeriesPoint, type CircuitStateName, type FlowView, type QuerySummary, type FlowRef, type QueryAttempt, type QueryFallback, type QueryCacheOutcome, type CacheView, type CacheFlowView, type CacheHitRatePoint, type DashboardCacheSelector, type ToolServerView, type ToolSearchView, type GatewayInfo, type TraceEventListener } from "./dashboard-source.js";
export { type AnalyticsRange, type AnalyticsRangeBounds, type AnalyticsLatencyView, type AnalyticsFeedbackView, type AnalyticsTotalsView, type AnalyticsFlowUsageView, type AnalyticsIntentView, type AnalyticsExperimentArmView, type AnalyticsExperimentView, type AnalyticsSummaryView, type AnalyticsRecommendationView, type AnalyticsFlowIntentView, type FlowAnalysisView, type QuestionClusterView, type FallbackIntentView, type LowConfidenceQuestionView, type PatternProposalView, type PatternAnalysisView, type LearnedAdjustmentView, type LearnedPriorView, type MetricsCell, type MetricsExportView } from "./analytics-views.js";
export { renderIntentPatternsYaml, type IntentPatternsYamlOptions } from "./analytics-format.js";
export {
  createStoreDashboardSource,
  type StoreDashboardSourceParts,
  type TraceEventLog,
  type BackendDescriptor,
  type FlowDescriptor,
  type DashboardCacheAccess,
  type ToolServerInput,
  type MaybePromise,
} from "./store-dashboard-source.js";
export {
  createInMemoryDashboardSource,
  type InMemoryDashboardSource,
  type InMemoryDashboardSourceInit,
  type InMemoryCacheEntry,
  type DashboardSourceMethod,
  type InMemoryAnalyticsData,
  type InMemoryAnalyticsCall,
} from "./in-memory-dashboard-source.js";
export { buildQuerySummary, queriesFromTraceEvents, type BuildQuerySummaryOptions, type QueriesFromTraceEventsOptions } from "./query-summary.js";
export { type SeriesWindow } from "./time-series.js";
