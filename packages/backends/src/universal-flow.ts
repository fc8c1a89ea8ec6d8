import { z } from "zod";
import { UniversalFlowSchema, flowKey, type UniversalFlow } from "@afw/contracts";
import { inferFlowIntents } from "./flow-inference.js";
import { ConfiguredFlowSchema, type ConfiguredFlow, type ConfiguredFlowInput } from "./settings.js";

const ConfiguredFlowsSchema = z.record(z.string(), ConfiguredFlowSchema);

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
  configured: ConfiguredFlowInput | undefined,
): UniversalFlow {
  const name = configured?.name ?? discovered?.name ?? backendFlowId;
  const description = configured?.description ?? discovered?.description;
  const tags = configured?.tags ?? discovered?.tags ?? [];
  const inferred = inferFlowIntents({ name, description, tags, flowType: discovered?.flowType, nodeHints: discovered?.nodeHints });
  const streaming = configured?.streaming ?? discovered?.streaming;
  const flow = UniversalFlowSchema.parse({
    id: flowKey(backend.id, backendFlowId),
    backendId: backend.id,
    backendKind: backend.kind,
    backendFlowId,
    name,
    description,
    intents: inferred.intents,
    keywords: inferred.keywords,
    tags,
    capabilities: [...new Set([...inferred.capabilities, ...(streaming === true ? ["streaming"] : [])])].sort(),
    // Configured intents say what the flow is for: it is then a catch-all only when the entry says so.
    generalPurpose: configured?.generalPurpose ?? (configured?.intents ? false : inferred.generalPurpose),
    flowType: discovered?.flowType,
    streaming,
    metadata: { ...(discovered?.metadata ?? {}), ...(discovered ? {} : { discovered: false }) },
  });
  return configured ? overlay(flow, configured, discovered ? "merged" : "configured") : flow;
}

/** Lays a configured entry over a flow: every field the entry sets wins (lists are replaced, not joined), except that either side
 * makes a flow a catch-all (`generalPurpose: true`) or uncacheable (`cacheable: false`). */
function overlay(flow: UniversalFlow, entry: ConfiguredFlowInput, source: "merged" | "configured"): UniversalFlow {
  return UniversalFlowSchema.parse({
    ...flow,
    name: entry.name ?? flow.name,
    description: entry.description ?? flow.description,
    intents: entry.intents ?? flow.intents,
    keywords: entry.keywords ?? flow.keywords,
    tags: entry.tags ?? flow.tags,
    capabilities: [...new Set(entry.capabilities ?? flow.capabilities)].sort(),
    generalPurpose: flow.generalPurpose || entry.generalPurpose === true,
    streaming: entry.streaming ?? flow.streaming,
    cacheable: flow.cacheable && entry.cacheable !== false,
    cacheClass: entry.cacheClass ?? flow.cacheClass,
    source,
  });
}

/**
 * Applies a backend's configured flow registry (keyed by the platform's flow id) to the flows its adapter returned — the one home
 * of the merge rules, used by the built-in adapters at discovery and by the gateway for every backend.
 *
 * - A flow whose `source` is `merged` or `configured` is kept as the adapter built it: it already applied the registry, so applying
 *   it again changes nothing (the built-in adapters return only such flows for configured ids).
 * - A `discovered` flow with an entry gets the entry laid over it (`source: "merged"`): every field the entry sets wins, lists
 *   included, and the others keep the adapter's values — except that `generalPurpose: true` and `cacheable: false` win from either
 *   side. With `enabled: false` it is dropped.
 * - An enabled entry no flow answers is added (`source: "configured"`), what it leaves unset inferred by {@link inferFlowIntents}
 *   from its name, description and tags.
 *
 * @example
 * ```ts
 * const flows = applyConfiguredFlows(backend, await backend.discoverFlows(), { "3f1c0a52": { intents: ["rag-retrieval"] } });
 * ```
 */
export function applyConfiguredFlows(
  backend: { id: string; kind: string },
  flows: readonly UniversalFlow[],
  configured: Readonly<Record<string, ConfiguredFlowInput>>,
): UniversalFlow[] {
  const entries = ConfiguredFlowsSchema.parse(configured);
  const listed = new Set(flows.map((flow) => flow.backendFlowId));
  const out = flows.flatMap((flow) => {
    const entry = entries[flow.backendFlowId];
    if (!entry || flow.source !== "discovered") return [flow];
    return entry.enabled ? [overlay(flow, entry, "merged")] : [];
  });
  for (const [backendFlowId, entry] of Object.entries(entries)) {
    if (!listed.has(backendFlowId) && entry.enabled) out.push(toUniversalFlow(backend, backendFlowId, undefined, entry));
  }
  return out;
}

/** Merges discovered flows with the configured registry (see {@link applyConfiguredFlows}); a flow id listed twice is kept once. */
export function mergeFlows(
  backend: { id: string; kind: string },
  discovered: readonly DiscoveredFlow[],
  configured: Record<string, ConfiguredFlow>,
): UniversalFlow[] {
  const unique = new Map<string, DiscoveredFlow>();
  for (const flow of discovered) if (!unique.has(flow.backendFlowId)) unique.set(flow.backendFlowId, flow);
  const flows = [...unique.values()]
    .filter((flow) => configured[flow.backendFlowId]?.enabled !== false)
    .map((flow) => toUniversalFlow(backend, flow.backendFlowId, flow, configured[flow.backendFlowId]));
  return applyConfiguredFlows(backend, flows, configured);
}
