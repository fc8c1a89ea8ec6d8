/**
 * `@afw/dashboard`: the Agentic Flywheel operator dashboard — a web page (preact + htm served as
 * static ES modules, no build step, no CDN), JSON endpoints and a server-sent-event live feed,
 * served by a `node:http` handler that the gateway mounts behind its bearer auth. The gateway
 * supplies the data by implementing {@link DashboardSource} (or building one with
 * {@link createStoreDashboardSource}).
 *
 * @packageDocumentation
 */
export { createDashboard, type Dashboard, type DashboardOptions } from "./create-dashboard.js";
export type {
  DashboardSource,
  DashboardCacheSelector,
  TraceEventListener,
  BackendView,
  PerformanceFigures,
  TimeSeriesPoint,
  FlowView,
  QuerySummary,
  CacheView,
  CacheFlowView,
  CacheHitRatePoint,
  ToolServerView,
  ToolSearchView,
  GatewayInfo,
  SemanticCacheStatsView,
  AnalyticsSummaryView,
  LearnedPriorView,
  LearnedAdjustmentView,
  MetricsExportView,
} from "./dashboard-source.js";
export { renderIntentPatternsYaml, type IntentPatternsYamlOptions } from "./analytics-format.js";
export { createStoreDashboardSource, type StoreDashboardSourceParts, type DashboardCacheAccess, type TraceEventLog } from "./store-dashboard-source.js";
