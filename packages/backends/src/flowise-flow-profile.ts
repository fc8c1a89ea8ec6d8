import type { ChatMessage } from "@afw/contracts";
import { parseJsonBounded } from "./json-limits.js";
import { asRecord, nodeHints, nonEmptyString } from "./reply-utils.js";
import type { FlowiseChatflow } from "./flowise-reply.js";
import type { ParameterTarget } from "./settings.js";
import type { DiscoveredFlow } from "./universal-flow.js";

/**
 * What the adapter reads from a chatflow's configuration (its `flowData` graph and `apiConfig`), the way Flowise 3.x
 * itself reads them (docs/guides/flowise-behaviours.md).
 */
export interface FlowiseFlowProfile {
  /** Whether the flow keeps its own memory of a session (keyed by `sessionId`). */
  memory: boolean;
  /** `apiConfig.overrideConfig.status`: overrides are applied at all. */
  overridesEnabled: boolean;
  /** Node id, label and input names of each node. */
  nodes: Array<{ id: string; label: string; inputs: ReadonlySet<string> }>;
  /** Enabled override parameter names by node label. */
  enabledByLabel: ReadonlyMap<string, ReadonlySet<string>>;
}

const MAX_FLOW_DATA_CHARS = 5_000_000;
const MAX_NODES = 2_000;
const AGENTFLOW_MEMORY_NODES = new Set(["agentAgentflow", "llmAgentflow", "conditionAgentAgentflow"]);

function parseJsonString(value: string | null | undefined): Record<string, unknown> | undefined {
  if (!value || value.length > MAX_FLOW_DATA_CHARS) return undefined;
  try {
    return asRecord(parseJsonBounded(value));
  } catch {
    return undefined;
  }
}

const isFalse = (value: unknown) => value === false || value === "false";

/**
 * Reads a chatflow's memory and override configuration. Undefined when `flowData` is missing or
 * unreadable (then nothing is known, and nothing is claimed).
 */
export function readFlowiseProfile(flowData: string | null | undefined, apiConfig: string | null | undefined): FlowiseFlowProfile | undefined {
  const graph = parseJsonString(flowData);
  if (!graph) return undefined;
  const rawNodes = Array.isArray(graph["nodes"]) ? (graph["nodes"] as unknown[]).slice(0, MAX_NODES) : [];
  const rawEdges = Array.isArray(graph["edges"]) ? (graph["edges"] as unknown[]).slice(0, MAX_NODES * 4) : [];
  const edgeSources = new Set(rawEdges.map((edge) => nonEmptyString(asRecord(edge)?.["source"])).filter((source): source is string => source !== undefined));
  const nodes: FlowiseFlowProfile["nodes"] = [];
  let memory = false;
  for (const raw of rawNodes) {
    const data = asRecord(asRecord(raw)?.["data"]);
    const id = nonEmptyString(data?.["id"]) ?? nonEmptyString(asRecord(raw)?.["id"]);
    if (!data || !id) continue;
    const inputs = asRecord(data["inputs"]) ?? {};
    const name = nonEmptyString(data["name"]) ?? "";
    nodes.push({ id, label: nonEmptyString(data["label"]) ?? name, inputs: new Set(Object.keys(inputs)) });
    if (data["category"] === "Memory" && edgeSources.has(id)) memory = true;
    if (name === "seqStart" && nonEmptyString(inputs["agentMemory"])) memory = true;
    if (AGENTFLOW_MEMORY_NODES.has(name)) {
      const flags = Object.keys(inputs).filter((key) => key.endsWith("EnableMemory"));
      // The agent, LLM and condition-agent nodes remember by default (their `*EnableMemory` input defaults to true).
      if (flags.length === 0 || flags.some((key) => !isFalse(inputs[key]))) memory = true;
    }
  }
  const overrideConfig = asRecord(parseJsonString(apiConfig)?.["overrideConfig"]);
  const enabledByLabel = new Map<string, Set<string>>();
  const byLabel = asRecord(overrideConfig?.["nodes"]) ?? {};
  for (const [label, params] of Object.entries(byLabel)) {
    if (!Array.isArray(params)) continue;
    const enabled = new Set<string>();
    for (const param of params) {
      const record = asRecord(param);
      const name = nonEmptyString(record?.["name"]);
      if (name && record?.["enabled"] === true) enabled.add(name);
    }
    enabledByLabel.set(label, enabled);
  }
  return { memory, overridesEnabled: overrideConfig?.["status"] === true, nodes, enabledByLabel };
}

/** Whether a flow applies a parameter placed at `target`: `true`, or why not; undefined when unknown. */
export function parameterVerdict(profile: FlowiseFlowProfile | undefined, target: ParameterTarget): true | { reason: string } | undefined {
  if (!profile) return undefined;
  const howTo = "enable it in the chatflow's Configuration > Security > Override Config (see docs/guides/flowise.md)";
  if (!profile.overridesEnabled) return { reason: `the chatflow does not accept API overrides: ${howTo}` };
  const enabled = (label: string) => profile.enabledByLabel.get(label)?.has(target.param) === true;
  if (target.node !== undefined) {
    const node = profile.nodes.find((candidate) => candidate.id === target.node);
    if (!node) return { reason: `the chatflow has no node '${target.node}' (check parameterMapping)` };
    return enabled(node.label) ? true : { reason: `'${target.param}' of node '${node.label}' is not enabled for override: ${howTo}` };
  }
  const having = profile.nodes.filter((node) => node.inputs.has(target.param));
  if (having.length === 0) return { reason: `no node of the chatflow has an input '${target.param}' (check parameterMapping)` };
  if (having.some((node) => enabled(node.label))) return true;
  const labels = [...new Set(having.map((node) => node.label))].join("', '");
  return { reason: `'${target.param}' of '${labels}' is not enabled for override: ${howTo}` };
}

/** How a session's earlier messages reach a flow. */
export interface ContextPlan {
  /** Messages to send as `history`. */
  history: ChatMessage[];
  /** Whether to send the session id (the flow's memory key). */
  sendSessionId: boolean;
  /** Whether the flow's memory holds the session under its id and will remember this turn. */
  platformMemory: boolean;
}

/**
 * Gives each earlier message to a flow exactly once. Flowise prepends `history` to what its memory loads for the session
 * id, so.
 */
export function planContext(history: readonly ChatMessage[], flowKey: string, memory: boolean): ContextPlan {
  const messages = history.filter((message) => message.role !== "system");
  if (!memory) return { history: messages, sendSessionId: true, platformMemory: false };
  const held = messages.map((message) => message.rememberedBy === flowKey);
  const firstHeld = held.indexOf(true);
  const prefixEnd = firstHeld === -1 ? messages.length : firstHeld;
  if (held.slice(prefixEnd).every(Boolean)) return { history: messages.slice(0, prefixEnd), sendSessionId: true, platformMemory: true };
  return { history: messages, sendSessionId: false, platformMemory: false };
}

/** A listed chatflow as the adapter discovers it (tags from `category`, node hints from `flowData`). */
export function toDiscovered(chatflow: FlowiseChatflow, profile: FlowiseFlowProfile | undefined): DiscoveredFlow {
  const tags = (chatflow.category ?? "")
    .split(";")
    .map((tag) => tag.trim())
    .filter(Boolean);
  return {
    backendFlowId: chatflow.id,
    name: chatflow.name ?? chatflow.id,
    description: chatflow.description ?? undefined,
    tags,
    flowType: chatflow.type ?? "CHATFLOW",
    nodeHints: nodeHints(parseJsonString(chatflow.flowData)?.["nodes"], (data) => [data?.["category"], data?.["name"], data?.["label"]]),
    metadata: {
      deployed: chatflow.deployed ?? false,
      isPublic: chatflow.isPublic ?? false,
      requiresApiKey: Boolean(chatflow.apikeyid),
      ...(profile ? { memory: profile.memory, overridesEnabled: profile.overridesEnabled } : {}),
      ...(chatflow.category ? { category: chatflow.category } : {}),
      ...(chatflow.updatedDate !== undefined ? { updatedDate: chatflow.updatedDate } : {}),
    },
  };
}
