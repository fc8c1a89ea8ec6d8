/**
 * `@afw/dashboard/test`: fixtures for tests, demos and screenshots — trace events of a query
 * ({@link buildQueryTrace}) and a filled sample source ({@link createSampleDashboardSource}).
 *
 * @packageDocumentation
 */
export {
  buildQueryTrace,
  createSampleDashboardSource,
  type QueryTraceSpec,
  type QueryTraceCandidate,
  type QueryTraceAttempt,
  type SampleDashboardSourceOptions,
} from "./testing/sample-data.js";
export { sampleAnalyticsData } from "./testing/sample-analytics.js";
export {
  createInMemoryDashboardSource,
  type InMemoryDashboardSource,
  type InMemoryDashboardSourceInit,
  type InMemoryAnalyticsData,
  type AnalyticsFixture,
} from "./testing/in-memory-dashboard-source.js";
