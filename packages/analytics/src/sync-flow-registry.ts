import { flowKey, type Intent, type UniversalFlow } from "@afw/contracts";
import type { AuditEvent } from "./audit-event.js";
import { buildQueryRecords } from "./query-records.js";
import { increment } from "./statistics.js";

/** One entry of a backend's configured flow registry (`backends[].flows[]`); unknown fields are kept untouched. */
export type RegistryFlowEntry = { id: string; [field: string]: unknown } & Partial<
  Pick<UniversalFlow, "name" | "description" | "intents" | "keywords" | "tags" | "capabilities" | "generalPurpose" | "cacheable" | "cacheClass" | "streaming">
>;

/** The configured registry of one backend. */
export interface ConfiguredBackendFlows {
  backendId: string;
  flows: RegistryFlowEntry[];
}

/** One field an update changes. */
export interface RegistryFieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

/** One proposed change of the registry. */
export interface FlowRegistryChange {
  /** `add` a discovered flow, `update` a configured entry, `remove` an entry the platform no longer lists. */
  action: "add" | "update" | "remove";
  /** Gateway-wide flow id. */
  flowId: string;
  backendId: string;
  backendFlowId: string;
  /** The entry after the change (add, update). */
  entry?: RegistryFlowEntry | undefined;
  /** The entry before the change (update, remove). */
  previous?: RegistryFlowEntry | undefined;
  /** Changed fields (update). */
  fields?: RegistryFieldChange[] | undefined;
  /** Intents inferred for the flow, best first, and where they came from (discovery infers them from the flow's texts). */
  inferredIntents?: Array<{ intent: Intent; source: "usage" | "discovery"; evidence?: number }> | undefined;
  /** Why, in one sentence. */
  reason: string;
}

/** Options of {@link syncFlowRegistry}. */
export interface SyncFlowRegistryOptions {
  /** What the backends' flow discovery returned (entries with `source: "configured"` were not found on the platform). */
  discovered: readonly UniversalFlow[];
  /** The configured registry, per backend. */
  configured: readonly ConfiguredBackendFlows[];
  /** Apply the proposal. @default false (dry run: nothing changes) */
  apply?: boolean | undefined;
  /** Apply only the changes of these gateway-wide flow ids. @default every proposed change */
  only?: readonly string[] | undefined;
  /** Backends whose discovery answered (entries missing from it are proposed for removal). @default those with a flow found on the platform */
  discoveredBackendIds?: readonly string[] | undefined;
  /** Audit events whose answered queries are evidence of the intents a flow serves. */
  events?: readonly AuditEvent[] | undefined;
}

/** Successful answers for an intent needed before usage proposes it. */
const MIN_USAGE = 5;

/** The result of {@link syncFlowRegistry}. */
export interface SyncFlowRegistryResult {
  /** True when the changes were applied to `registry`. */
  applied: boolean;
  /** Every proposed change (dry run) or the applied ones (apply), in registry order. */
  changes: FlowRegistryChange[];
  /** Proposed changes not applied because `only` left them out. */
  skipped: FlowRegistryChange[];
  /** The registry: unchanged (a copy) on a dry run, the new one when applied. */
  registry: ConfiguredBackendFlows[];
  /** Gateway-wide ids of the flows whose cached answers the caller must invalidate (empty on a dry run). */
  invalidateFlowIds: string[];
  /** Configured entries that needed no change. */
  unchanged: number;
}

const onPlatform = (flow: UniversalFlow) => flow.source !== "configured" && flow.metadata?.["discovered"] !== false;

const clone = <T>(value: T): T => structuredClone(value);

/**
 * Compares discovery with the configured registry and proposes `add` (listed, unconfigured; with
 * intents inferred from usage, then discovery), `update` (missing intents, intents
 * served 5+ times, missing name or streaming flag) and `remove` (no longer listed). A dry
 * run changes nothing; `apply: true` returns the new registry with exactly the proposed changes
 * (or those of `only`). Pure: the inputs are never mutated.
 */
export function syncFlowRegistry(options: SyncFlowRegistryOptions): SyncFlowRegistryResult {
  const usage = usageByFlow(options.events ?? []);
  const discoveredOn = new Map<string, UniversalFlow>();
  for (const flow of options.discovered) if (onPlatform(flow)) discoveredOn.set(flow.id, flow);
  const answeredBackends = new Set(options.discoveredBackendIds ?? [...discoveredOn.values()].map((f) => f.backendId));
  const registry = options.configured.map((backend) => ({ backendId: backend.backendId, flows: backend.flows.map(clone) }));

  const proposals: FlowRegistryChange[] = [];
  let unchanged = 0;
  const configuredIds = new Set<string>();
  for (const backend of registry) {
    for (const entry of backend.flows) {
      const flowId = flowKey(backend.backendId, entry.id);
      configuredIds.add(flowId);
      const flow = discoveredOn.get(flowId);
      if (!flow) {
        if (answeredBackends.has(backend.backendId)) {
          proposals.push({
            action: "remove",
            flowId,
            backendId: backend.backendId,
            backendFlowId: entry.id,
            previous: clone(entry),
            reason: `${backend.backendId} no longer lists flow '${entry.id}'`,
          });
        } else unchanged++;
        continue;
      }
      const update = proposeUpdate(entry, flow, usage.get(flowId));
      if (update) proposals.push({ ...update, flowId, backendId: backend.backendId, backendFlowId: entry.id });
      else unchanged++;
    }
  }
  for (const flow of discoveredOn.values()) {
    if (configuredIds.has(flow.id)) continue;
    const inferred = inferIntents(flow, usage.get(flow.id));
    const entry: RegistryFlowEntry = {
      id: flow.backendFlowId,
      name: flow.name,
      ...(flow.description ? { description: flow.description } : {}),
      intents: inferred.map((i) => i.intent),
      keywords: [...flow.keywords],
      tags: [...flow.tags],
      capabilities: [...flow.capabilities],
      generalPurpose: flow.generalPurpose,
      ...(flow.streaming === undefined ? {} : { streaming: flow.streaming }),
    };
    proposals.push({
      action: "add",
      flowId: flow.id,
      backendId: flow.backendId,
      backendFlowId: flow.backendFlowId,
      entry,
      inferredIntents: inferred,
      reason: `${flow.backendId} lists flow '${flow.name}' that the registry does not configure`,
    });
  }

  const apply = options.apply ?? false;
  if (!apply) return { applied: false, changes: proposals, skipped: [], registry, invalidateFlowIds: [], unchanged };

  const only = options.only ? new Set(options.only) : undefined;
  const chosen = only ? proposals.filter((p) => only.has(p.flowId)) : proposals;
  const skipped = only ? proposals.filter((p) => !only.has(p.flowId)) : [];
  for (const change of chosen) {
    let backend = registry.find((b) => b.backendId === change.backendId);
    if (!backend) registry.push((backend = { backendId: change.backendId, flows: [] }));
    const index = backend.flows.findIndex((entry) => entry.id === change.backendFlowId);
    if (change.action === "remove") {
      if (index !== -1) backend.flows.splice(index, 1);
    } else if (change.action === "update") {
      if (index !== -1) backend.flows[index] = clone(change.entry!);
    } else if (index === -1) backend.flows.push(clone(change.entry!));
  }
  return {
    applied: true,
    changes: chosen,
    skipped,
    registry,
    invalidateFlowIds: [...new Set(chosen.map((c) => c.flowId))],
    unchanged,
  };
}

type Usage = Map<Intent, number>;

function usageByFlow(events: readonly AuditEvent[]): Map<string, Usage> {
  const byFlow = new Map<string, Usage>();
  for (const record of buildQueryRecords(events)) {
    if (record.outcome !== "answered" || record.cacheHit || !record.intent || record.answeredFlowId === undefined) continue;
    let usage = byFlow.get(record.answeredFlowId);
    if (!usage) byFlow.set(record.answeredFlowId, (usage = new Map()));
    increment(usage, record.intent);
  }
  return byFlow;
}

function inferIntents(flow: UniversalFlow, usage: Usage | undefined): NonNullable<FlowRegistryChange["inferredIntents"]> {
  const out: NonNullable<FlowRegistryChange["inferredIntents"]> = [];
  const seen = new Set<Intent>();
  const used = [...(usage ?? new Map<Intent, number>()).entries()].filter(([, n]) => n >= MIN_USAGE).sort((a, b) => b[1] - a[1]);
  for (const [intent, evidence] of used) {
    seen.add(intent);
    out.push({ intent, source: "usage", evidence });
  }
  for (const intent of flow.intents) {
    if (seen.has(intent)) continue;
    seen.add(intent);
    out.push({ intent, source: "discovery" });
  }
  return out;
}

function proposeUpdate(
  entry: RegistryFlowEntry,
  flow: UniversalFlow,
  usage: Usage | undefined,
): Omit<FlowRegistryChange, "flowId" | "backendId" | "backendFlowId"> | undefined {
  const next: RegistryFlowEntry = clone(entry);
  const fields: RegistryFieldChange[] = [];
  const reasons: string[] = [];
  let inferred: FlowRegistryChange["inferredIntents"];
  const current = entry.intents ?? [];
  if (current.length === 0) {
    inferred = inferIntents(flow, usage);
    if (inferred.length > 0) {
      next.intents = inferred.map((i) => i.intent);
      reasons.push("it configures no intents");
    }
  } else {
    const served = [...(usage ?? new Map<Intent, number>()).entries()]
      .filter(([intent, n]) => n >= MIN_USAGE && !current.includes(intent))
      .sort((a, b) => b[1] - a[1]);
    if (served.length > 0) {
      inferred = served.map(([intent, evidence]) => ({ intent, source: "usage" as const, evidence }));
      next.intents = [...current, ...served.map(([intent]) => intent)];
      reasons.push(`it answered ${served.map(([i, n]) => `${n} ${i}`).join(", ")} questions`);
    }
  }
  if (next.intents !== entry.intents && JSON.stringify(next.intents) !== JSON.stringify(entry.intents)) {
    fields.push({ field: "intents", from: entry.intents ?? [], to: next.intents });
  }
  if (entry.name === undefined && flow.name && flow.name !== entry.id) {
    next.name = flow.name;
    fields.push({ field: "name", from: undefined, to: flow.name });
    reasons.push("the platform names it");
  }
  if (entry.streaming === undefined && flow.streaming !== undefined) {
    next.streaming = flow.streaming;
    fields.push({ field: "streaming", from: undefined, to: flow.streaming });
    reasons.push("the platform reports whether it streams");
  }
  if (fields.length === 0) return undefined;
  return {
    action: "update",
    entry: next,
    previous: clone(entry),
    fields,
    ...(inferred && fields.some((f) => f.field === "intents") ? { inferredIntents: inferred } : {}),
    reason: `update: ${reasons.join("; ")}`,
  };
}
