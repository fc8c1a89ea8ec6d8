import { UniversalFlowSchema, flowKey, type UniversalFlow } from "@afw/contracts";
import { inferFlowIntents } from "./flow-inference.js";
import type { ConfiguredFlow } from "./settings.js";

/** A flow as an adapter read it from the platform, before inference and merging. */
export interface DiscoveredFlow {
  backendFlowId: string;
  name: string;
  description?: string | undefined;
  tags: string[];
  flowType?: string | undefined;
  /** Node names/categories from the flow graph, for inference. */
  nodeHints: string[];
  streaming?: boolean | undefined;
  metadata: Record<string, unknown>;
}

/** Builds the gateway's {@link UniversalFlow} from what discovery found and/or the configured registry entry. */
export function toUniversalFlow(
  backend: { id: string; kind: string },
  backendFlowId: string,
  discovered: DiscoveredFlow | undefined,
  configured: ConfiguredFlow | undefined,
): UniversalFlow {
  const name = configured?.name ?? discovered?.name ?? backendFlowId;
  const description = configured?.description ?? discovered?.description;
  const tags = configured?.tags ?? discovered?.tags ?? [];
  const inferred = inferFlowIntents({
    name,
    description,
    tags,
    flowType: discovered?.flowType,
    nodeHints: discovered?.nodeHints,
  });
  const streaming = configured?.streaming ?? discovered?.streaming;
  const capabilities = new Set(configured?.capabilities ?? inferred.capabilities);
  if (streaming === true && !configured?.capabilities) capabilities.add("streaming");
  const source = discovered && configured ? "merged" : configured ? "configured" : "discovered";
  return UniversalFlowSchema.parse({
    id: flowKey(backend.id, backendFlowId),
    backendId: backend.id,
    backendKind: backend.kind,
    backendFlowId,
    name,
    description,
    intents: configured?.intents ?? inferred.intents,
    keywords: configured?.keywords ?? inferred.keywords,
    tags,
    capabilities: [...capabilities].sort(),
    // Configured intents say what the flow is for: it is then a catch-all only when the entry says so.
    generalPurpose: configured?.generalPurpose ?? (configured?.intents ? false : inferred.generalPurpose),
    flowType: discovered?.flowType,
    streaming,
    cacheable: configured?.cacheable ?? true,
    cacheClass: configured?.cacheClass,
    source,
    metadata: { ...(discovered?.metadata ?? {}), ...(discovered ? {} : { discovered: false }) },
  });
}

/**
 * Merges discovered flows with the configured registry: disabled entries are dropped, configured
 * entries missing from the platform's list are kept (`source: "configured"`), and unconfigured
 * flows are kept.
 */
export function mergeFlows(
  backend: { id: string; kind: string },
  discovered: readonly DiscoveredFlow[],
  configured: Record<string, ConfiguredFlow>,
): UniversalFlow[] {
  const flows: UniversalFlow[] = [];
  const seen = new Set<string>();
  for (const flow of discovered) {
    if (seen.has(flow.backendFlowId)) continue;
    seen.add(flow.backendFlowId);
    const entry = configured[flow.backendFlowId];
    if (entry?.enabled === false) continue;
    flows.push(toUniversalFlow(backend, flow.backendFlowId, flow, entry));
  }
  for (const [backendFlowId, entry] of Object.entries(configured)) {
    if (seen.has(backendFlowId) || entry.enabled === false) continue;
    flows.push(toUniversalFlow(backend, backendFlowId, undefined, entry));
  }
  return flows;
}
