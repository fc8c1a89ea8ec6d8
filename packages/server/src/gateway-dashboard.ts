import { METRICS_COLUMNS, type AnalyticsService, type FlowAnalysis, type LearnedRoutingPrior, type PatternAnalysis } from "@afw/analytics";
import { AfwError, type Intent } from "@afw/contracts";
import {
  createStoreDashboardSource,
  type AnalyticsSummaryView,
  type DashboardSource,
  type LearnedPriorView,
  type MetricsExportView,
} from "@afw/dashboard";
import type { GatewayServer } from "./gateway-types.js";
import { semanticCacheStats } from "./semantic-options.js";

/** The analytics methods of a {@link @afw/dashboard!DashboardSource} that {@link createAnalyticsDashboardSource} provides. */
export type DashboardAnalytics = Pick<DashboardSource, "analyticsSummary" | "flowAnalysis" | "patternAnalysis" | "learnedPrior" | "exportMetrics">;

/** Adapts the gateway's analytics service (the reports behind `analytics_dashboard`, `analyze_flow`, `pattern_analysis` and
 * `export_metrics`) and its learned routing prior to the dashboard's analytics shapes. */
export function createAnalyticsDashboardSource(analytics: AnalyticsService, prior?: LearnedRoutingPrior | undefined): DashboardAnalytics {
  const source: DashboardAnalytics = {
    async analyticsSummary({ range, top }): Promise<AnalyticsSummaryView> {
      const report = await analytics.analyticsDashboard({ range, top });
      return { ...report, truncated: report.meta.truncated };
    },
    async flowAnalysis(flowId, { range }): Promise<FlowAnalysis> {
      return analytics.analyzeFlow({ flow_id: flowId, range });
    },
    async patternAnalysis({ range }): Promise<PatternAnalysis | undefined> {
      try {
        return await analytics.patternAnalysis({ range });
      } catch (error) {
        // No embedder configured: the report cannot be computed on this gateway.
        if (AfwError.isInstance(error) && error.code === "CONFIG_INVALID") return undefined;
        throw error;
      }
    },
    async exportMetrics({ range, groupBy }): Promise<MetricsExportView> {
      const report = await analytics.exportMetrics({ range, format: "json", group_by: groupBy });
      return { range: report.range, groupBy: report.groupBy, columns: [...METRICS_COLUMNS], rows: report.rows.map((row) => ({ ...row })) };
    },
  };
  if (prior) {
    source.learnedPrior = async ({ intent }): Promise<LearnedPriorView> => {
      // Pick up what the other instances learned (Redis prior store); the local view otherwise.
      await prior.refresh().catch(() => undefined);
      return {
        maxAdjustment: prior.maxAdjustment,
        adjustments: prior.snapshot(intent as Intent | undefined).map((entry) => ({
          intent: entry.intent,
          flowId: entry.flowId,
          flowMatch: entry.adjustment.flow_match,
          performance: entry.adjustment.performance,
          samples: Math.round(entry.adjustment.samples * 100) / 100,
          successRate: entry.adjustment.successRate,
          reason: entry.adjustment.reason,
        })),
      };
    };
  }
  return source;
}

/**
 * The operator dashboard's data source over a gateway's parts: registry, stores, trace ring buffer, downstream servers, tool index and
 * analytics. Clearing the cache by flow also marks that flow's older answers stale (as `clear_cache` does).
 * @example
 * ```ts
 * const dashboard = createDashboard({ source: createGatewayDashboardSource(gateway) });
 * ```
 */
export function createGatewayDashboardSource(gateway: GatewayServer, options: { startedAt?: string } = {}): DashboardSource {
  const { registry, stores, pipeline, downstream, toolSearch } = gateway;
  const source = createStoreDashboardSource({
    info: { name: gateway.serverInfo.name, version: gateway.serverInfo.version, ...(options.startedAt ? { startedAt: options.startedAt } : {}) },
    backends: () => registry.list().map((backend) => ({ id: backend.id, kind: backend.kind })),
    flows: () => registry.flows(),
    healthStore: stores.health,
    circuitStore: stores.circuits,
    performanceStore: stores.performance,
    traces: gateway.traces,
    questionOf: (traceId) => pipeline.questionOf(traceId),
    cache: {
      // Flow keys include the `backend` a client asked for: never show a secret it contained.
      stats: async () => {
        const stats = await stores.cache.stats();
        return { ...stats, byFlow: Object.fromEntries(Object.entries(stats.byFlow).map(([flowId, counters]) => [gateway.redactor.redact(flowId), counters])) };
      },
      async invalidate(selector) {
        const removed = await stores.cache.invalidate(selector);
        if (selector.flowId !== undefined) pipeline.invalidateFlow(selector.flowId);
        return removed;
      },
    },
    sessionStore: stores.sessions,
    ...(downstream ? { toolServers: () => downstream.manager.status() } : {}),
    searchTools: (query, { limit }) => toolSearch.search({ query, top_k: limit }),
  });
  const search = stores.sessions.search?.bind(stores.sessions);
  // The store `search_history` reads, within the caller's tenant; secrets in past turns are redacted as the tool does.
  if (search) {
    source.searchHistory = async (query, { tenant }) => {
      const page = await search(query, tenant === undefined ? undefined : { tenant });
      const redact = (text: string) => gateway.redactor.redact(text);
      return { ...page, hits: page.hits.map((hit) => ({ ...hit, turn: { ...hit.turn, question: redact(hit.turn.question), answer: redact(hit.turn.answer) } })) };
    };
  }
  source.semanticCacheStats = () => semanticCacheStats(stores.cache, gateway.config);
  return Object.assign(source, createAnalyticsDashboardSource(gateway.analytics, gateway.learning.prior));
}
