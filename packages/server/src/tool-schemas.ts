import {
  BackendIdSchema,
  BackendKindSchema,
  CacheScopeSchema,
  GlobPatternSchema,
  IntentSchema,
  SessionIdSchema,
  SessionTagsSchema,
  UniversalQueryInputShape,
} from "@afw/contracts";
import { z } from "zod";
import { FlowRegistryEntrySchema } from "./config-schema.js";

const backendSelector = z.string().min(1).max(64).describe("A backend id or kind (`flowise`, `langflow`).");

/** Input shape of `flowise_query`: the legacy Flowise-only tool of the original server. */
export const FlowiseQueryInputShape = {
  question: UniversalQueryInputShape.question,
  chatflow_id: z.string().min(1).max(200).optional().describe("Flowise chatflow id (or gateway-wide `backendId:chatflowId`); default: routed among Flowise flows."),
  session_id: SessionIdSchema.optional().describe("Conversation id; turns are remembered."),
  tags: UniversalQueryInputShape.tags,
  allow_fallback: z.boolean().optional()
    .describe("Absent or false: Flowise (and chatflow_id, if given) must answer, or the call fails with the reason (e.g. CIRCUIT_OPEN, FLOW_NOT_FOUND). True: another flow or backend may answer, reported as `fallback_used` with `fallback_reason`."),
  timeout: UniversalQueryInputShape.timeout,
} as const;

/** Input shape of `list_flows`. */
export const ListFlowsInputShape = {
  backend: backendSelector.optional().describe("Only flows of this backend id or kind."),
  intent: IntentSchema.optional().describe("Only flows serving this intent."),
  refresh: z.boolean().default(false).describe("Rediscover flows now instead of using the cached list."),
} as const;

/** Input shape of `backend_status`. */
export const BackendStatusInputShape = {
  backend: backendSelector.optional().describe("Only this backend id or kind."),
} as const;

/** Input shape of `health_check`. */
export const HealthCheckInputShape = {
  backend: backendSelector.optional().describe("Probe only this backend id or kind."),
} as const;

/** Input shape of `backend_performance_compare`. */
export const BackendPerformanceCompareInputShape = {
  backend: backendSelector.optional().describe("Only this backend id or kind."),
  flow_id: z.string().min(1).max(200).optional().describe("Only this gateway-wide flow id."),
  min_samples: z.number().int().min(1).max(1000).default(5).describe("Samples a backend needs before it can be recommended."),
} as const;

/** Input shape of `backend_connect`. */
export const BackendConnectInputShape = {
  id: BackendIdSchema.describe("Id of the new backend."),
  kind: BackendKindSchema.describe("`flowise` or `langflow`."),
  baseURL: z.url({ protocol: /^https?$/, error: "baseURL must be an http(s) URL" }).describe("Must be on a host allowed by `backendConnect.allowedHosts`."),
  apiKey: z.string().min(1).max(4096).optional().describe("API key; never echoed back."),
  requestTimeoutMs: z.number().int().positive().max(600_000).optional(),
  flows: z.array(FlowRegistryEntrySchema).max(500).optional().describe("Flow registry entries (intents, keywords, cache class)."),
} as const;

/** Input shape of `list_sessions`. */
export const ListSessionsInputShape = {
  pattern: GlobPatternSchema.default("*").describe("Glob on session ids (`*` and `?`)."),
  tag: SessionTagsSchema.element.optional().describe("Only sessions with a turn that carried this tag, e.g. `project:falcon`."),
  limit: z.number().int().min(1).max(1000).default(50),
} as const;

/** Input shape of `search_history`. */
export const SearchHistoryInputShape = {
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
} as const;

/** Input shape of `get_session`. */
export const GetSessionInputShape = {
  session_id: SessionIdSchema,
  turns: z.number().int().min(1).max(10_000).optional().describe("Only the last N turns."),
} as const;

/** Input shape of `clear_cache`: exactly one selector. */
export const ClearCacheInputShape = {
  flow_id: z.string().min(1).max(200).optional().describe("Entries of this flow (the one that answered, or the one asked for)."),
  session_id: SessionIdSchema.optional().describe("Entries of this session."),
  scope: CacheScopeSchema.optional().describe("Every entry of this scope."),
  all: z.boolean().optional().describe("Every entry."),
} as const;

/** Input shape of `explain_routing`. */
export const ExplainRoutingInputShape = {
  question: UniversalQueryInputShape.question,
  intent: UniversalQueryInputShape.intent,
  backend: UniversalQueryInputShape.backend,
  flow_id: UniversalQueryInputShape.flow_id,
} as const;
