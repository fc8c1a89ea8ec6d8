import { flowKey } from "@afw/contracts";
import type { Logger } from "pino";
import type { BackendFactory } from "./backend-factory.js";
import type { BackendRegistry } from "./backend-registry.js";
import { parseGatewayConfig } from "./config-loader.js";
import type { GatewayConfig, GatewayConfigInput } from "./config-schema.js";
import type { GatewayLearning } from "./gateway-analytics.js";
import type { GatewayReloadReport, GatewayStores } from "./gateway-types.js";
import type { RouterPort } from "./router-port.js";
import type { QueryPipeline } from "./query-pipeline.js";

/** What {@link reloadGateway} changes in place. */
export interface ReloadTarget {
  config: GatewayConfig;
  router: RouterPort;
  learning: GatewayLearning;
  registry: BackendRegistry;
  backendFactory: BackendFactory;
  pipeline: QueryPipeline;
  stores: GatewayStores;
  logger: Logger;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Applies what can change without a restart (intent patterns, A/B experiments, the flows of backends built from the
 * configuration, invalidating their cached answers) and reports the rest as needing a restart. */
export async function reloadGateway({ config, router, learning, registry, backendFactory, pipeline, stores, logger }: ReloadTarget, input: GatewayConfig | GatewayConfigInput): Promise<GatewayReloadReport> {
  const next = parseGatewayConfig(input, { source: "<reloaded config>", env: {} });
  const report: GatewayReloadReport = { intentPatterns: false, experiments: false, backends: [], invalidatedFlows: [], restartRequired: [] };
  const { intentPatterns: nextPatterns, ...nextRouting } = next.routing;
  const { intentPatterns: currentPatterns, ...currentRouting } = config.routing;
  if (!same(nextPatterns, currentPatterns)) {
    config.routing.intentPatterns = nextPatterns;
    router.reload(config);
    report.intentPatterns = true;
  }
  if (!same(nextRouting, currentRouting)) report.restartRequired.push("routing");
  const { experiments, ...nextLearning } = next.analytics;
  if (!same(experiments, config.analytics.experiments)) {
    learning.setExperiments(next.analytics);
    config.analytics.experiments = experiments;
    report.experiments = true;
  }
  const { experiments: _experiments, ...currentLearning } = config.analytics;
  if (!same(nextLearning, currentLearning)) report.restartRequired.push("analytics.learning");
  const backendShape = (b: GatewayConfig["backends"][number]) => ({ ...b, flows: undefined });
  for (const backendConfig of next.backends) {
    const current = config.backends.find((b) => b.id === backendConfig.id);
    if (!current) {
      report.restartRequired.push(`backends.${backendConfig.id} (added)`);
      continue;
    }
    if (!same(backendShape(current), backendShape(backendConfig))) report.restartRequired.push(`backends.${backendConfig.id}`);
    if (same(current.flows, backendConfig.flows)) continue;
    const entry = registry.get(current.id);
    if (!entry || entry.source !== "config" || !current.enabled) {
      report.restartRequired.push(`backends.${current.id}.flows (not built from the configuration)`);
      continue;
    }
    const updated = { ...current, flows: backendConfig.flows };
    const rebuilt = await backendFactory(updated);
    // Swapped in one step (the backend never goes missing); calls running on the old adapter finish on it, and it is closed once they settle.
    await registry.replace(rebuilt, { config: updated, source: "config" });
    const before = new Map(current.flows.map((flow) => [flow.id, JSON.stringify(flow)]));
    const after = new Map(backendConfig.flows.map((flow) => [flow.id, JSON.stringify(flow)]));
    for (const id of new Set([...before.keys(), ...after.keys()])) {
      if (before.get(id) === after.get(id)) continue;
      const flowId = flowKey(current.id, id);
      pipeline.invalidateFlow(flowId);
      await stores.cache.invalidate({ flowId }).catch(() => undefined);
      report.invalidatedFlows.push(flowId);
    }
    current.flows = backendConfig.flows;
    report.backends.push(current.id);
  }
  for (const current of config.backends) {
    if (!next.backends.some((b) => b.id === current.id)) report.restartRequired.push(`backends.${current.id} (removed)`);
  }
  for (const key of Object.keys(next) as Array<keyof GatewayConfig>) {
    if (key === "routing" || key === "analytics" || key === "backends") continue;
    if (!same(next[key], config[key])) report.restartRequired.push(key);
  }
  logger.info({ reload: report }, "configuration reloaded");
  return report;
}
