import { createStoreDashboardSource, type DashboardSource } from "@afw/dashboard";
import type { GatewayServer } from "./gateway-server.js";

/**
 * The operator dashboard's data source over a gateway's parts: backends and flows of the
 * registry, the health, circuit, performance, cache and session stores, the trace ring buffer
 * with the questions kept by the pipeline, the downstream servers and the tool index.
 * Clearing the cache by flow also marks that flow's older answers stale (as `clear_cache` does).
 *
 * @example
 * ```ts
 * const dashboard = createDashboard({ source: createGatewayDashboardSource(gateway) });
 * ```
 */
export function createGatewayDashboardSource(gateway: GatewayServer, options: { startedAt?: string } = {}): DashboardSource {
  const { registry, stores, pipeline, downstream, toolSearch } = gateway;
  return createStoreDashboardSource({
    info: { name: gateway.serverInfo.name, version: gateway.serverInfo.version, ...(options.startedAt ? { startedAt: options.startedAt } : {}) },
    backends: () => registry.list().map((backend) => ({ id: backend.id, kind: backend.kind })),
    flows: () => registry.flows(),
    healthStore: stores.health,
    circuitStore: stores.circuits,
    performanceStore: stores.performance,
    ...(gateway.traces ? { traces: gateway.traces } : {}),
    questionOf: (traceId) => pipeline.questionOf(traceId),
    cache: {
      stats: () => stores.cache.stats(),
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
}
