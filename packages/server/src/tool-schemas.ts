import {
  BackendIdSchema,
  BackendKindSchema,
  CacheScopeSchema,
  GlobPatternSchema,
  IntentSchema,
  SessionIdSchema,
  SessionTagsSchema,
  GetPlaybookDetailsInputShape,
  SearchToolsInputShape,
  SearchWorkflowCatalogInputShape,
  UniversalQueryInputShape,
} from "@afw/contracts";
import { z } from "zod";
import { FlowRegistryEntrySchema } from "./config-schema.js";

const backendSelector = z.string().min(1).max(64).describe("A backend id or kind (`flowise`, `langflow`).");

/** One announced tool; `refine` is a cross-field rule of its input. */
export interface GatewayToolDefinition {
  title: string;
  description: string;
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  shape: z.ZodRawShape;
  refine?: { check: (args: Record<string, unknown>) => boolean; message: string };
}

/** Annotations of a tool that only reads. */
const READ_ONLY = { readOnlyHint: true, idempotentHint: true };

/** What `tools/list` announces of each of the gateway's own tools (title, description, annotations, input shape), and the cross-field rule of
 * an input that has one. The analytics tools are announced by `@afw/analytics` (`ANALYTICS_TOOLS`). */
export const GATEWAY_TOOLS = {
  universal_query: {
    title: "Ask the best AI workflow",
    description:
      "Answers a question with the best-suited AI workflow (Flowise or Langflow flow): classifies the intent, ranks every backend and flow, runs the best one with retry and fallback, and caches the answer. Pass session_id to continue a conversation. The result holds the answer and `_mcp_metadata` (backend, flow, scores, intent, attempts, fallback, cache hit, trace id). With parameters.stream and a progress token, tokens arrive as progress notifications.",
    annotations: { readOnlyHint: false, openWorldHint: true },
    shape: UniversalQueryInputShape,
  },
  flowise_query: {
    title: "Ask a Flowise chatflow (legacy)",
    description:
      "Legacy tool of the original Flowise MCP server: asks a Flowise chatflow a question. Give chatflow_id to pick the chatflow, else the best Flowise flow is chosen. Same result format as universal_query.",
    annotations: { readOnlyHint: false, openWorldHint: true },
    shape: {
      question: UniversalQueryInputShape.question,
      chatflow_id: z.string().min(1).max(200).optional().describe("Flowise chatflow id (or gateway-wide `backendId:chatflowId`); default: routed among Flowise flows."),
      session_id: SessionIdSchema.optional().describe("Conversation id; turns are remembered."),
      tags: UniversalQueryInputShape.tags,
      allow_fallback: z.boolean().optional()
        .describe("Absent or false: Flowise (and chatflow_id, if given) must answer, or the call fails with the reason (e.g. CIRCUIT_OPEN, FLOW_NOT_FOUND). True: another flow or backend may answer, reported as `fallback_used` with `fallback_reason`."),
      timeout: UniversalQueryInputShape.timeout,
    },
  },
  list_flows: {
    title: "List flows",
    description:
      "Lists the flows of every backend (or of one backend id or kind), with their intents, keywords, capabilities and cache class.",
    annotations: READ_ONLY,
    shape: {
      backend: backendSelector.optional().describe("Only flows of this backend id or kind."),
      intent: IntentSchema.optional().describe("Only flows serving this intent."),
      refresh: z.boolean().default(false).describe("Rediscover flows now instead of using the cached list."),
    },
  },
  backend_status: {
    title: "Backend status",
    description:
      "Shows every backend (or one id or kind): kind, URL (without credentials), latest health, circuit-breaker state, flow count and discovery problems. Probes nothing; see health_check.",
    annotations: READ_ONLY,
    shape: {
      backend: backendSelector.optional().describe("Only this backend id or kind."),
    },
  },
  health_check: {
    title: "Health check",
    description:
      "Probes every backend (or one id or kind) now and reports each one's status and latency, plus the cache and session stores.",
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
    shape: {
      backend: backendSelector.optional().describe("Probe only this backend id or kind."),
    },
  },
  backend_performance_compare: {
    title: "Compare backend performance",
    description:
      "Compares measured performance per backend and per flow from the shared performance store (recent window): request count, success rate, latency p50/p95, errors by code, and recommends the best backend.",
    annotations: READ_ONLY,
    shape: {
      backend: backendSelector.optional().describe("Only this backend id or kind."),
      flow_id: z.string().min(1).max(200).optional().describe("Only this gateway-wide flow id."),
      min_samples: z.number().int().min(1).max(1000).default(5).describe("Samples a backend needs before it can be recommended."),
    },
  },
  backend_connect: {
    title: "Connect a backend",
    description:
      "Adds a Flowise or Langflow backend at run time. Only hosts allowed by the gateway configuration (backendConnect.allowedHosts) are accepted; denied by default. The API key is never echoed.",
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    shape: {
      id: BackendIdSchema.describe("Id of the new backend."),
      kind: BackendKindSchema.describe("`flowise` or `langflow`."),
      baseURL: z.url({ protocol: /^https?$/, error: "baseURL must be an http(s) URL" }).describe("Must be on a host allowed by `backendConnect.allowedHosts`."),
      apiKey: z.string().min(1).max(4096).optional().describe("API key; never echoed back."),
      requestTimeoutMs: z.number().int().positive().max(600_000).optional(),
      flows: z.array(FlowRegistryEntrySchema).max(500).optional().describe("Flow registry entries (intents, keywords, cache class)."),
    },
  },
  list_sessions: {
    title: "List sessions",
    description:
      "Lists conversation sessions whose id matches a glob pattern (`*`, `?`) and, with `tag`, that carry that tag (e.g. `project:falcon`), newest first, with turn counts and tags.",
    annotations: READ_ONLY,
    shape: {
      pattern: GlobPatternSchema.default("*").describe("Glob on session ids (`*` and `?`)."),
      tag: SessionTagsSchema.element.optional().describe("Only sessions with a turn that carried this tag, e.g. `project:falcon`."),
      limit: z.number().int().min(1).max(1000).default(50),
    },
  },
  search_history: {
    title: "Search conversation history",
    description:
      "Finds past question/answer turns of every session of the caller's tenant by meaning and keywords, tag, session, backend, flow and time range; best-matching (then newest) first, paged with `cursor`. Each hit has the session id, time, flow, backend, tags and redacted snippets of the question and answer.",
    annotations: READ_ONLY,
    shape: {
      text: z.string().min(1).max(1000).optional().describe("What to look for: matched by meaning against past questions and as stemmed keywords against questions and answers (see `mode`)."),
      mode: z.enum(["hybrid", "meaning", "keyword"]).default("hybrid")
        .describe("`hybrid` (meaning and keywords fused), `meaning` or `keyword`. Without `sessions.searchEmbedder` the search is by keyword; the result's `mode` says which ran."),
      tag: SessionTagsSchema.element.optional().describe("Only turns that carried this tag, e.g. `project:falcon`."),
      session_id: SessionIdSchema.optional().describe("Only turns of this session."),
      backend: z.string().min(1).max(64).optional().describe("Only turns answered by this backend id."),
      flow_id: z.string().min(1).max(200).optional().describe("Only turns answered by this gateway-wide flow id."),
      from: z.iso.datetime({ offset: true }).optional().describe("Only turns asked at or after this ISO 8601 time."),
      to: z.iso.datetime({ offset: true }).optional().describe("Only turns asked at or before this ISO 8601 time."),
      limit: z.number().int().min(1).max(100).default(10),
      cursor: z.string().min(1).max(64).optional().describe("`next_cursor` of the previous page."),
    },
  },
  get_session: {
    title: "Get a session",
    description: "Returns a conversation session with its turns (question, answer, flow, backend, intent), oldest first.",
    annotations: READ_ONLY,
    shape: {
      session_id: SessionIdSchema,
      turns: z.number().int().min(1).max(10_000).optional().describe("Only the last N turns."),
    },
  },
  clear_cache: {
    title: "Clear cached answers",
    description:
      "Removes cached answers by flow id, session id, scope (`shared` or `session`) or all; give exactly one. Returns how many entries were removed.",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    shape: {
      flow_id: z.string().min(1).max(200).optional().describe("Entries of this flow (the one that answered, or the one asked for)."),
      session_id: SessionIdSchema.optional().describe("Entries of this session."),
      scope: CacheScopeSchema.optional().describe("Every entry of this scope."),
      all: z.boolean().optional().describe("Every entry."),
    },
    refine: {
      check: (args) => ["flow_id", "session_id", "scope"].filter((key) => args[key] !== undefined).length + (args["all"] === true ? 1 : 0) === 1,
      message: "give exactly one of flow_id, session_id, scope or all: true",
    },
  },
  search_tools: {
    title: "Search tools",
    description:
      "Finds the tools that fit a task, described in plain language, among every indexed tool (downstream MCP servers and configured catalogs). Hybrid keyword + semantic search; each result has an affordance summary (use when, inputs, output).",
    annotations: READ_ONLY,
    shape: SearchToolsInputShape,
  },
  search_workflow_catalog: {
    title: "Search the workflow catalog",
    description:
      "Searches remediation workflows / playbooks by a natural-language or structured query (e.g. `OOMKilled critical`), with exact label filters (label.severity, label.environment, …) and exclusions. Returns ranked workflows with confidence.",
    annotations: READ_ONLY,
    shape: SearchWorkflowCatalogInputShape,
  },
  get_playbook_details: {
    title: "Get playbook details",
    description:
      "Returns a workflow / playbook with its steps, prerequisites, rollback steps and labels (newest version unless `version` is given).",
    annotations: READ_ONLY,
    shape: GetPlaybookDetailsInputShape,
  },
  explain_routing: {
    title: "Explain routing",
    description:
      "Shows how a question would be routed, without running anything: the intent classification with alternatives, every (backend, flow) candidate with its score breakdown (flow match, health, performance, capability), the choice and why.",
    annotations: READ_ONLY,
    shape: {
      question: UniversalQueryInputShape.question,
      intent: UniversalQueryInputShape.intent,
      backend: UniversalQueryInputShape.backend,
      flow_id: UniversalQueryInputShape.flow_id,
    },
  },
  call_tool: {
    title: "Call a downstream tool",
    description:
      "Calls a tool of a downstream MCP server by its namespaced name `server__tool` (find it with `search_tools` first, which also gives its input schema), with its arguments.",
    annotations: { openWorldHint: true },
    shape: {
      name: z.string().min(3).max(200)
        .describe("Namespaced name of the downstream tool, `server__tool`, as `search_tools` returns it (its `id` `server/tool` is accepted too)."),
      arguments: z.record(z.string(), z.unknown()).default({}).describe("Arguments of the downstream tool (see its `inputSchema` in the `search_tools` result)."),
    },
  },
} satisfies Record<string, GatewayToolDefinition>;
