/** Asking when unsure: in the confirm and clarify confidence tiers (AIRIS: >= 0.9 route directly, 0.7-0.9 confirm, 0.5-0.7 clarify, below: the default route), a client that
 * declared the elicitation capability is asked (`elicitation/create`) which flow should answer, and the question is routed by the answer. */
import { emitTrace, type McpMetadata, type RoutingDecision, type TraceContext } from "@afw/contracts";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { ElicitRequestFormParams, ElicitResult, RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { GatewayConfig } from "./config-schema.js";

/** Flows offered as choices. */
const MAX_CHOICES = 4;
/** Longest wait for the client's answer (never more than half the query's remaining time). */
const ANSWER_TIMEOUT_MS = 60_000;
/** What `_mcp_metadata.elicitation` says. */
export type ElicitationMetadata = NonNullable<McpMetadata["elicitation"]>;

/** How a query can reach its client: `ask` sends `elicitation/create` on the request's session, or why it cannot. */
export type RouteElicitation =
  | { ask: (params: ElicitRequestFormParams, options: { signal: AbortSignal }) => Promise<ElicitResult> }
  | { unavailable: "stateless" | "no-capability" };

/** The confidence tiers of {@link elicitationTier}. */
export type ConfidenceTier = "direct" | "confirm" | "clarify" | "default";

type ElicitationConfig = GatewayConfig["routing"]["elicitation"];

/** The tier of a routing confidence: `direct` at or above `direct`, `confirm` at or above `confirm`, `clarify` at or above `clarify`, else `default`. */
export function elicitationTier(confidence: number, thresholds: Pick<ElicitationConfig, "direct" | "confirm" | "clarify">): ConfidenceTier {
  if (confidence >= thresholds.direct) return "direct";
  if (confidence >= thresholds.confirm) return "confirm";
  if (confidence >= thresholds.clarify) return "clarify";
  return "default";
}

/** How the tools/call `relatedRequestId` served by `server` can ask its client. */
export function routeElicitationOf(server: Server, relatedRequestId: RequestId): RouteElicitation {
  const transport = server.transport;
  const capabilities = server.getClientCapabilities();
  // Stateless HTTP: the SDK transport without a session id (each POST on a pooled server).
  const stateless = transport instanceof StreamableHTTPServerTransport && transport.sessionId === undefined;
  if (stateless || capabilities === undefined) return { unavailable: "stateless" };
  if (capabilities.elicitation === undefined) return { unavailable: "no-capability" };
  return { ask: (params, { signal }) => server.elicitInput(params, { relatedRequestId, signal }) };
}

/** Options of {@link elicitRoute}. */
export interface ElicitRouteOptions {
  /** `routing.elicitation` (undefined: never ask). */
  config: ElicitationConfig | undefined;
  /** The client of the query, when it came through MCP. */
  elicitation: RouteElicitation | undefined;
  /** True when the caller chose a backend or flow itself (never asked). */
  explicit: boolean;
  /** Overall deadline of the query (epoch ms): the wait is at most half the time left. */
  deadline: number;
  /** The query's own abort signal (client cancelled, overall timeout): rethrown, never swallowed. */
  signal: AbortSignal;
  trace: TraceContext;
}

/** Asks the client to confirm or choose the flow of an uncertain decision and returns the decision to execute: the chosen flow first on `accept`, the unchanged (default) decision on decline, cancel, timeout or
 * error, with what happened as `_mcp_metadata.elicitation` (absent when the tier asks nothing). @throws the query signal's reason when the query itself was aborted while waiting. */
export async function elicitRoute(decision: RoutingDecision, options: ElicitRouteOptions): Promise<{ decision: RoutingDecision; metadata?: ElicitationMetadata }> {
  const { config, elicitation } = options;
  if (config === undefined || !config.enabled || options.explicit || elicitation === undefined) return { decision };
  const tier = elicitationTier(decision.confidence, config);
  if (tier !== "confirm" && tier !== "clarify") return { decision };
  const choices = decision.candidates.filter((c, i, all) => !c.excluded && all.findIndex((o) => o.flowId === c.flowId) === i).slice(0, MAX_CHOICES);
  if (choices.length < 2 || decision.chosen === null) return { decision };
  if ("unavailable" in elicitation) return { decision, metadata: { asked: false, tier, reason: elicitation.unavailable } };
  const top = choices[0]!;
  const message =
    tier === "confirm"
      ? `Answer with "${top.flowName}" (${top.backendId})? Pick another flow if it fits the question better.`
      : `Which flow fits this question best? (${decision.intent}, confidence ${decision.confidence.toFixed(2)})`;
  const started = performance.now();
  const waitMs = Math.max(1, Math.floor(Math.min(ANSWER_TIMEOUT_MS, (options.deadline - Date.now()) / 2)));
  const timeout = AbortSignal.timeout(waitMs);
  let action: ElicitationMetadata["action"] & string = "error";
  let chosenFlowId: string | undefined;
  try {
    const result = await elicitation.ask(
      {
        mode: "form",
        message,
        requestedSchema: {
          type: "object",
          properties: {
            flow: { type: "string", title: "Flow", oneOf: choices.map((c) => ({ const: c.flowId, title: `${c.flowName} (${c.backendId})` })), default: top.flowId },
          },
          required: ["flow"],
        },
      },
      { signal: AbortSignal.any([options.signal, timeout]) },
    );
    const flow = result.action === "accept" ? result.content?.["flow"] : undefined;
    chosenFlowId = choices.find((c) => c.flowId === flow)?.flowId;
    action = result.action === "accept" && chosenFlowId === undefined ? "error" : result.action;
  } catch {
    if (options.signal.aborted) throw options.signal.reason;
    action = timeout.aborted ? "timeout" : "error";
  }
  emitTrace(options.trace, "route-elicited", {
    tier,
    intent: decision.intent,
    confidence: decision.confidence,
    action,
    choices: choices.map((c) => c.flowId),
    suggestedFlowId: top.flowId,
    ...(chosenFlowId === undefined ? {} : { chosenFlowId }),
    waitedMs: Math.round((performance.now() - started) * 1000) / 1000,
  });
  const metadata: ElicitationMetadata = { asked: true, tier, action, ...(chosenFlowId === undefined ? {} : { chosen_flow_id: chosenFlowId }) };
  if (chosenFlowId === undefined) return { decision, metadata };
  const chosen = decision.candidates.find((c) => c.flowId === chosenFlowId)!;
  const candidates = chosen === decision.candidates[0] ? decision.candidates : [chosen, ...decision.candidates.filter((c) => c !== chosen)].map((c, i) => ({ ...c, rank: i + 1 }));
  return {
    decision: {
      ...decision,
      candidates,
      chosen: { backendId: chosen.backendId, flowId: chosen.flowId, backendFlowId: chosen.backendFlowId },
      // The client chose (or confirmed) one flow: no hedging against another.
      strategy: decision.strategy === "hedge" ? "direct" : decision.strategy,
      reason: `${decision.reason}; the client chose ${chosen.flowName} on ${chosen.backendId}`,
    },
    metadata,
  };
}
