/**
 * `@afw/dashboard`: the Agentic Flywheel operator dashboard — a self-contained web page (no build
 * step, no CDN), JSON endpoints and a server-sent-event live feed, served by a `node:http`
 * handler that the gateway mounts behind its bearer auth. The gateway supplies the data by
 * implementing {@link DashboardSource} (or building one with {@link createStoreDashboardSource}).
 *
 * @packageDocumentation
 */
export { createDashboard, type Dashboard, type DashboardOptions } from "./create-dashboard.js";
export { type DashboardSource, type BackendView, type FlowView, type QuerySummary, type CacheView, type ToolServerView, type ToolSearchView, type GatewayInfo, type TraceEventListener } from "./dashboard-source.js";
export { type AnalyticsSummaryView, type FlowAnalysisView, type PatternAnalysisView, type LearnedPriorView, type MetricsCell, type MetricsExportView } from "./analytics-views.js";
export { renderIntentPatternsYaml } from "./analytics-format.js";
export { createStoreDashboardSource } from "./store-dashboard-source.js";
export { createInMemoryDashboardSource, type InMemoryDashboardSource, type InMemoryAnalyticsData } from "./in-memory-dashboard-source.js";
export { buildQuerySummary, queriesFromTraceEvents } from "./query-summary.js";
// Types (and schemas) of the signatures above.
export { type IntentPatternsYamlOptions } from "./analytics-format.js";
export { type AnalyticsExperimentView, type AnalyticsFeedbackView, type AnalyticsFlowIntentView, type AnalyticsFlowUsageView, type AnalyticsIntentView, type AnalyticsLatencyView, type AnalyticsRange, type AnalyticsRangeBounds, type AnalyticsRecommendationView, type AnalyticsTotalsView, type FallbackIntentView, type LearnedAdjustmentView, type LowConfidenceQuestionView, type PatternProposalView, type QuestionClusterView } from "./analytics-views.js";
export { type CacheFlowView, type CacheHitRatePoint, type DashboardCacheSelector, type FlowPerformanceView, type FlowRef, type QueryAttempt, type QueryCacheOutcome, type QueryFallback, type TimeSeriesPoint } from "./dashboard-source.js";
export { type InMemoryAnalyticsCall, type InMemoryCacheEntry, type InMemoryDashboardSourceInit } from "./in-memory-dashboard-source.js";
export { type BuildQuerySummaryOptions, type QueriesFromTraceEventsOptions } from "./query-summary.js";
export { type StoreDashboardSourceParts } from "./store-dashboard-source.js";
export { type AnalyticsExperimentArmView } from "./analytics-views.js";
export { type BackendDescriptor, type DashboardCacheAccess, type FlowDescriptor, type MaybePromise, type ToolServerInput, type TraceEventLog } from "./store-dashboard-source.js";
export { type SeriesWindow } from "./time-series.js";
