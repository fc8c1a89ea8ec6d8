import {
  BackendIdSchema,
  BackendKindSchema,
  DEFAULT_SCORING_WEIGHTS,
  IntentSchema,
} from "@afw/contracts";
import { ParameterMappingSchema } from "@afw/backends";
import { DEFAULT_CACHE_TTL_POLICY, parseRedisUrl } from "@afw/cache";
import { IntentCascadeSettingsSchema, IntentPatternRulesSchema } from "@afw/router";
import { AbExperimentSchema } from "@afw/analytics";
import { DownstreamConfigSchema } from "@afw/downstream";
import { useOnnxRuntimeInstalled } from "@afw/embeddings";
import { z } from "zod";

/** `routing.classifierEmbedder: auto` resolved: the classifier cascade where its second model, the Universal Sentence Encoder,
 * runs on ONNX Runtime (~1.5 ms of CPU per escalated question with 8-bit weights), else the static model alone (on tfjs an escalation costs
 * 17-35 ms; record `docs/decisions/2026-11-29-router-cascade-default.md`). `onnxRuntimeInstalled` is for tests.
 * @internal Not exported from the package. */
export function resolveClassifierEmbedder(
  kind: "auto" | "static" | "use" | "hashing" | "cascade",
  onnxRuntimeInstalled: () => boolean = useOnnxRuntimeInstalled,
): "static" | "use" | "hashing" | "cascade" {
  if (kind !== "auto") return kind;
  return onnxRuntimeInstalled() ? "cascade" : "static";
}

const isRedisUrl = (url: string): boolean => {
  try {
    parseRedisUrl(url);
    return true;
  } catch {
    return false;
  }
};

const unit = z.number().min(0).max(1);

/** A regular-expression source string, checked to compile (flags `iu` are added when used). */
const RegexSourceSchema = z.string().min(1).max(500)
  .refine((source) => {
    try {
      new RegExp(source, "iu");
      return true;
    } catch {
      return false;
    }
  }, "must be a valid regular expression");

/** Zod schema of {@link FlowRegistryEntry}. */
export const FlowRegistryEntrySchema = z
  .object({
    id: z.string().min(1).describe("The platform's own flow id (Flowise chatflow id, Langflow flow id or endpoint name)."),
    name: z.string().min(1).optional().describe("Display name; defaults to the discovered name or the id."),
    description: z.string().optional(),
    intents: z.array(IntentSchema).default([]).describe("Intents this flow serves, best first."),
    keywords: z.array(z.string().min(1)).default([]).describe("Words that make this flow a partial match for a question."),
    tags: z.array(z.string().min(1)).default([]),
    capabilities: z.array(z.string().min(1)).default([]).describe("E.g. `streaming`, `rag`, `agent`, `tools`, `memory`."),
    generalPurpose: z.boolean().default(false).describe("Catch-all flow for low-confidence questions."),
    cacheable: z.boolean().default(true).describe("False for flows whose answers must never be cached."),
    cacheClass: z.string().min(1).optional().describe("TTL class, a key of `cache.ttlByClass` (e.g. `technical`, `volatile`)."),
    streaming: z.boolean().optional().describe("Whether the flow streams tokens, when known."),
    parameterMapping: ParameterMappingSchema.optional().describe(
      "Where `temperature`, `max_tokens` (and a history transcript) go on the platform: `{ temperature: { node?, param } }`.",
    ),
  }).strict();

/** One entry of a backend's flow registry: what the gateway should know about a flow. */
export type FlowRegistryEntry = z.infer<typeof FlowRegistryEntrySchema>;

/** Zod schema of {@link BackendConfig}. */
export const BackendConfigSchema = z
  .object({
    id: BackendIdSchema.describe("Unique id of this backend instance, e.g. `flowise-prod`."),
    kind: BackendKindSchema.describe("`flowise`, `langflow`, or the kind of a custom adapter."),
    baseURL: z.url({ protocol: /^https?$/, error: "baseURL must be an http(s) URL" }).describe("Root URL of the platform, e.g. `http://localhost:3000`."),
    apiKey: z.string().min(1).optional().describe("API key (Flowise bearer key, Langflow `x-api-key`). Redacted everywhere."),
    headers: z.record(z.string(), z.string()).default({}).describe("Extra request headers. Values of credential-like headers (Authorization, *key*, *token*, …) are redacted."),
    requestTimeoutMs: z.number().int().positive().max(600_000).default(30_000).describe("Timeout of one backend call."),
    enabled: z.boolean().default(true).describe("Disabled backends are not created."),
    discoverFlows: z.boolean().default(true).describe("List flows from the platform (else only `flows` are used)."),
    capabilities: z.partialRecord(IntentSchema, unit).optional()
      .describe("Per-intent capability scores 0..1, overriding the router's defaults for this backend."),
    flows: z.array(FlowRegistryEntrySchema).default([]).describe("Flow registry: intents, keywords and cache class per flow."),
    defaultParameterMapping: ParameterMappingSchema.optional().describe("Parameter mapping of flows that have none."),
  }).strict();

/** A configured backend: one Flowise or Langflow (or custom) instance. Several of one kind are allowed. */
export type BackendConfig = z.infer<typeof BackendConfigSchema>;

/** Input form of {@link BackendConfig} (defaults not yet applied). */
export type BackendConfigInput = z.input<typeof BackendConfigSchema>;

/** Zod schema of {@link AuthTokenConfig}. */
export const AuthTokenConfigSchema = z
  .object({
    token: z.string().min(16, "auth tokens must be at least 16 characters").describe("The bearer token. Redacted everywhere."),
    name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "token name must be 1-64 letters, digits, '.', '_' or '-'").optional()
      .describe("Name used in logs and metrics (never the token itself). Defaults to `token-<n>`."),
    tenant: z.string().min(1).max(64).optional().describe("Tenant whose cache entries and sessions this token sees."),
    requestsPerMinute: z.number().int().positive().optional().describe("Overrides `http.rateLimit.requestsPerMinute`."),
  }).strict();

/** A bearer token accepted by the HTTP transport, with its name, tenant and rate limit. */
export type AuthTokenConfig = z.infer<typeof AuthTokenConfigSchema>;

/** Zod schema of {@link HttpConfig}. */
export const HttpConfigSchema = z
  .object({
    host: z.string().min(1).default("127.0.0.1").describe("Address to bind. Non-loopback addresses require `authTokens`."),
    port: z.number().int().min(0).max(65_535).default(8787).describe("TCP port; 0 picks a free one."),
    path: z.string().regex(/^\/[A-Za-z0-9._/-]*$/).default("/mcp").describe("Path of the Streamable HTTP endpoint."),
    stateless: z.boolean().default(true)
      .describe(
        "Stateless mode (no MCP session ids): any instance behind a load balancer can serve any request. `false`: MCP sessions (`Mcp-Session-Id`), shared across instances through the session registry.",
      ),
    authTokens: z.array(z.union([z.string().min(16, "auth tokens must be at least 16 characters"), AuthTokenConfigSchema])).default([])
      .describe("Accepted bearer tokens (strings or objects). Empty: loopback only, no auth."),
    cors: z
      .object({
        origins: z.array(z.string().min(1)).default([]).describe("Allowed origins (`*` for any). Empty: CORS off."),
      }).strict().default({ origins: [] }),
    bodyLimitBytes: z.number().int().positive().max(100 * 1024 * 1024).default(1_048_576).describe("Largest request body; larger ones get 413."),
    rateLimit: z
      .object({
        enabled: z.boolean().default(true),
        requestsPerMinute: z.number().int().positive().default(600).describe("Sustained rate per token (or per client address without auth); with `redis` configured the buckets are shared by every instance."),
        burst: z.number().int().positive().optional().describe("Bucket size. Defaults to a tenth of the per-minute rate, at least 10."),
      }).strict().default({ enabled: true, requestsPerMinute: 600 }),
    metricsAuth: z.boolean().default(true).describe("Require a bearer token on `/metrics` when tokens are configured."),
    headersTimeoutMs: z.number().int().positive().max(600_000).default(30_000)
      .describe("Time a client has to send its request headers; slower clients get a JSON 408 and are disconnected (slow-loris guard)."),
    bodyTimeoutMs: z.number().int().positive().max(600_000).default(30_000)
      .describe("Time a client has to send its whole request body once the headers arrived; slower clients get a JSON 408. Responses are not limited by it."),
  }).strict();

/** Settings of the Streamable HTTP transport. */
export type HttpConfig = z.infer<typeof HttpConfigSchema>;

/** Routing: scoring weights, confidence thresholds, intent patterns, retries, circuit breaking, health probes and elicitation. */
const RoutingConfigSchema = z
  .object({
    weights: z
      .object({
        flow_match: z.number().min(0).default(DEFAULT_SCORING_WEIGHTS.flow_match),
        health: z.number().min(0).default(DEFAULT_SCORING_WEIGHTS.health),
        performance: z.number().min(0).default(DEFAULT_SCORING_WEIGHTS.performance),
        capability: z.number().min(0).default(DEFAULT_SCORING_WEIGHTS.capability),
      }).strict().default({ ...DEFAULT_SCORING_WEIGHTS }).describe("score = Σ weight × component."),
    defaultFlow: z.string().min(1).optional().describe("Gateway-wide flow id (`backendId:flowId`) for unclassifiable questions."),
    classifierEmbedder: z.enum(["auto", "static", "use", "hashing", "cascade"]).default("auto")
      .transform((kind) => resolveClassifierEmbedder(kind))
      .describe("Embedder of the router's intent model: `static` (distilled from the Universal Sentence Encoder, microseconds, on the event loop), `use` (the Universal Sentence Encoder itself on a worker thread, ~0.5-5 ms of CPU per question on ONNX Runtime, ~10-100 ms on tfjs), `cascade` (the static model answers; below `routing.cascade.threshold` the Universal Sentence Encoder model answers, on the worker thread; its failure, overload or timeout keeps the static answer), `hashing` (word pieces, for tests) or `auto` (`cascade` where `onnxruntime-node` is installed, so the second model runs on ONNX Runtime, else `static`; the parsed configuration holds the choice)."),
    cascade: IntentCascadeSettingsSchema.prefault({})
      .describe("Settings of `classifierEmbedder: cascade`: `threshold` (static model's top confidence below which the USE model is asked), `timeoutMs` (longest wait for it), `combine` (`replace`: the USE model answers; `average`: the mean of both)."),
    hedge: z.boolean().default(true).describe("Run the top two backends in parallel for low-confidence questions."),
    intentPatterns: z.partialRecord(IntentSchema, z.union([z.array(RegexSourceSchema), IntentPatternRulesSchema])).default({})
      .describe(
        "Extra patterns per intent, added to the built-in ones: a list of regular expressions (case-insensitive), or rules `{ keywords: {word: weight}, phrases: {text: weight}, regex: [{pattern, weight}] }`.",
      ),
    retries: z.number().int().min(0).max(3).default(1).describe("Retries of the same candidate after a retryable error."),
    circuitBreaker: z
      .object({
        failureThreshold: z.number().int().positive().default(5).describe("Consecutive failures that open a backend's circuit."),
        cooldownMs: z.number().int().positive().default(30_000).describe("Time before a half-open probe."),
      }).strict().default({ failureThreshold: 5, cooldownMs: 30_000 }),
    health: z
      .object({
        intervalMs: z.number().int().min(0).default(30_000).describe("Background health probes; 0 disables them."),
        timeoutMs: z.number().int().positive().default(5_000),
      }).strict().default({ intervalMs: 30_000, timeoutMs: 5_000 }),
    elicitation: z
      .object({
        enabled: z.boolean().default(true).describe("Ask clients that declared elicitation to confirm or choose the flow of uncertain questions."),
        direct: unit.default(0.9).describe("Confidence from which the question is routed without asking."),
        confirm: unit.default(0.7).describe("Confidence from which (below `direct`) the client confirms the top flow."),
        clarify: unit.default(0.5).describe("Confidence from which (below `confirm`) the client chooses among the flows; below: the default route."),
      }).strict().refine((e) => e.direct >= e.confirm && e.confirm >= e.clarify, "elicitation thresholds must satisfy direct >= confirm >= clarify")
      .default({ enabled: true, direct: 0.9, confirm: 0.7, clarify: 0.5 })
      .describe("Asking when unsure (MCP elicitation): the confirm and clarify confidence tiers."),
  }).strict();

/** Response cache policy: TTL by flow class (else the intent's class), and the semantic answer cache. */
const CacheConfigSchema = z
  .object({
    enabled: z.boolean().default(true),
    defaultTtlSeconds: z.number().int().positive().default(DEFAULT_CACHE_TTL_POLICY.defaultTtlSeconds)
      .describe("TTL when neither the flow's class nor its intent's class has one (1 day)."),
    ttlByClass: z.record(z.string(), z.number().int().positive()).default({ ...DEFAULT_CACHE_TTL_POLICY.classes })
      .describe(
        "TTL per cache class: the flow's (`flows[].cacheClass`), else its intent's in `@afw/cache`'s default policy (technical-analysis and data-processing: technical; creative-orientation: creative; structural-thinking: strategic; rag-retrieval: document-qa). Technical 7 days, creative and strategic 30 days, volatile and document-qa 1 day.",
      ),
    semantic: z
      .object({
        enabled: z.boolean().default(false).describe("Serve a cached answer to a question close in meaning (same tenant, route, scope and session)."),
        threshold: z.number().gt(0).max(1).default(0.9).describe("Smallest cosine similarity of the two questions' embeddings."),
        embedder: z.enum(["use", "hashing"]).default("use").describe("`use` (offline Universal Sentence Encoder lite) or `hashing` (word pieces only, for tests)."),
      }).strict().prefault({})
      .describe("Semantic answer cache (off by default). Questions that differ in a number, a name or a negation never share an answer."),
  }).strict();

/** Conversation memory settings. */
export const SessionsConfigSchema = z
  .object({
    enabled: z.boolean().default(true),
    contextTurns: z.number().int().min(0).max(100).default(5).describe("Last turns passed to the backend as context."),
    maxTurns: z.number().int().positive().max(10_000).default(50).describe("Turns kept per session."),
    ttlSeconds: z.number().int().positive().default(7 * 86_400).describe("Idle sessions expire after this (7 days; slides on every turn)."),
    searchEmbedder: z.enum(["auto", "none", "use", "hashing"]).default("auto")
      .describe("Embedder of `search_history` by meaning: `use` (offline Universal Sentence Encoder lite; turns are embedded in the background), `hashing` (word pieces only, for tests), `none` (keyword search only), `auto` (`use` when the process runs it already, for the tool index, `tools.embedder: use`, the default, or the router's classifier, `routing.classifierEmbedder: use` or `cascade`, so the one model serves all; else `none`)."),
  }).strict();

/** Zod schema of {@link ToolsConfig}. */
export const ToolsConfigSchema = z
  .object({
    catalogs: z.array(z.string().min(1)).default([]).describe("Tool catalog files to index (format of `tools-catalog.json`); relative to the config file."),
    embedder: z.enum(["none", "hashing", "use"]).default("use")
      .describe(
        "Embedder of the tool index and workflow catalog: `use` (offline Universal Sentence Encoder lite, weights shipped in npm: hybrid keyword + semantic search), `hashing` (word pieces only, for tests), `none` (keyword only).",
      ),
    vectorCacheDir: z.string().min(1).optional()
      .describe(
        "Directory of the tool-vector cache files (one per embedder, vectors by content hash), so a restart does not embed the catalogs and downstream tools again; relative to the config file. Default: `$XDG_CACHE_HOME/afw/tool-vectors` (`~/.cache/afw/tool-vectors`). With `redis` the vectors are cached in Redis instead, shared by every instance.",
      ),
    fallbackToolIds: z.array(z.string().min(1)).default([]).describe("Safe tools returned when search confidence is low."),
    exposure: z.enum(["all", "search", "routed"]).default("search").describe(
      "What `tools/list` shows of the downstream MCP servers: `all` (every tool, namespaced `server__tool`), `search` (the gateway's tools plus `search_tools` and the `call_tool` meta-tool) or `routed` (the top-k downstream tools for the session's recent context).",
    ),
    routedTopK: z.number().int().min(1).max(100).default(8).describe("`routed` exposure: downstream tools listed per session."),
  }).strict();

/** Tool search settings. */
export type ToolsConfig = z.infer<typeof ToolsConfigSchema>;

/** Zod schema of {@link DownstreamSectionConfig}: `@afw/downstream`'s `DownstreamConfigSchema` plus `mcpJson`, an
 * `mcp.json`-style file (the `mcpServers` format of MCP clients) to import. */
export const DownstreamSectionSchema = DownstreamConfigSchema.safeExtend({
  mcpJson: z.string().min(1).optional()
    .describe("An `mcp.json` file (`mcpServers` format of Claude Desktop, Cursor, VS Code) whose servers are added to `servers`; relative to the config file. `${VAR}` is expanded from the environment."),
});

/** Downstream MCP servers aggregated behind the gateway (see `@afw/downstream`), plus an optional `mcp.json` import. */
export type DownstreamSectionConfig = z.infer<typeof DownstreamSectionSchema>;

/** Operator dashboard settings (HTTP transport only). */
export const DashboardConfigSchema = z
  .object({
    enabled: z.boolean().default(true).describe("Serve the operator dashboard over HTTP (page public, `apiPath` behind the bearer auth of `/mcp`)."),
    basePath: z.string().regex(/^\/[A-Za-z0-9_\-/]*$/).default("/dashboard").describe("Path of the page."),
    apiPath: z.string().regex(/^\/[A-Za-z0-9_\-/]*$/).default("/api").describe("Path prefix of the JSON endpoints and the live feed."),
    redact: z.boolean().default(false).describe("Hide user text (questions, session turns) on the dashboard."),
  }).strict();

/** Zod schema of {@link WorkflowsConfig}. */
export const WorkflowsConfigSchema = z
  .object({
    catalogs: z.array(z.string().min(1)).default([]).describe("Workflow catalog files or directories (JSON or YAML playbooks); relative to the config file."),
  }).strict();

/** Workflow catalog settings. */
export type WorkflowsConfig = z.infer<typeof WorkflowsConfigSchema>;

const LogLevelSchema = z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

/** Trace export besides the log (trace events are logged at `debug`, problems at `warn`): optional OTLP export. */
const TraceConfigSchema = z
  .object({
    otlp: z
      .object({
        endpoint: z.url({ protocol: /^https?$/ }).describe("OTLP/HTTP base URL; spans are POSTed as JSON to `<endpoint>/v1/traces`."),
        headers: z.record(z.string(), z.string()).default({}).describe("E.g. `Authorization` for Langfuse. Credential-like values are redacted."),
        serviceName: z.string().min(1).default("agentic-flywheel"),
      }).strict().optional().describe("OpenTelemetry export over OTLP/HTTP JSON (works with Langfuse, Jaeger, the OTel collector)."),
  }).strict();

/** Analytics and the learning loop: the learned routing prior and A/B routing experiments. */
const AnalyticsConfigSchema = z
  .object({
    learning: z
      .object({
        enabled: z.boolean().default(true).describe("Adjust routing from the gateway's own outcomes (a learned prior on `flow_match` and `performance`)."),
      }).strict().prefault({}).describe("The learned routing prior. With `redis`, every instance learns from every instance's traffic."),
    experiments: z.array(AbExperimentSchema).default([])
      .describe(
        "A/B routing: `{ id, intent?, share, unit: session|request, enabled, variant: { weights?, strategy?, label? } }`. A `share` of the intent's traffic is routed with the variant's weights or strategy; the first enabled experiment matching a request's intent applies.",
      ),
  }).strict();

/** Zod schema of {@link GatewayConfig}. */
export const GatewayConfigSchema = z
  .object({
    server: z
      .object({
        name: z.string().min(1).default("agentic-flywheel").describe("MCP server name announced to clients."),
        version: z.string().min(1).optional().describe("MCP server version announced to clients (defaults to the package's)."),
        instructions: z.string().optional().describe("Instructions announced to MCP clients."),
      }).strict().default({ name: "agentic-flywheel" }),
    backends: z.array(BackendConfigSchema).default([]).describe("Flowise/Langflow instances. Several of one kind are allowed."),
    backendConnect: z
      .object({
        allowedHosts: z.array(z.string().min(1)).default([])
          .describe("Hosts `backend_connect` may add (`host`, `host:port` or `*.domain`). Empty: the tool is denied."),
        allowedKinds: z.array(BackendKindSchema).default(["flowise", "langflow"]),
      }).strict().default({ allowedHosts: [], allowedKinds: ["flowise", "langflow"] }),
    redis: z
      .object({
        url: z.string()
          .refine((url) => isRedisUrl(url), "redis.url must be a redis://, rediss://, redis+sentinel://host:port,.../<master> or redis+cluster://host:port,... URL")
          .describe("One server (`redis://`), a Sentinel-managed master (`redis+sentinel://s1:26379,s2:26379/mymaster`) or a Cluster (`redis+cluster://n1:6379,n2:6379`); `rediss` for TLS."),
        keyPrefix: z.string().default("afw:"),
        operationTimeoutMs: z.number().int().positive().max(60_000).default(100)
          .describe("Bound of each Redis operation; on expiry it degrades to a miss / no-op. Env: `AFW_REDIS_OPERATION_TIMEOUT_MS`."),
        sessionBuffer: z
          .object({
            maxTurns: z.number().int().positive().default(10_000).describe("Most session turns held while Redis is away (and at most 16 MiB); beyond it an answer says `session_saved: false`."),
          }).strict().prefault({}).describe("Write-behind buffer of session turns that could not be written, replayed in order when Redis is back."),
      }).strict().optional().describe("Shared state (cache, sessions, metrics, health, circuits). Absent: in-memory stores."),
    chroma: z
      .object({
        url: z.url({ protocol: /^https?$/ }),
        collectionPrefix: z.string().default("afw"),
      }).strict().optional().describe("Chroma server for tool vectors. Absent: in-process vector index."),
    http: HttpConfigSchema.default(HttpConfigSchema.parse({})),
    routing: RoutingConfigSchema.prefault({}),
    cache: CacheConfigSchema.default(CacheConfigSchema.parse({})),
    sessions: SessionsConfigSchema.default(SessionsConfigSchema.parse({})),
    tools: ToolsConfigSchema.default(ToolsConfigSchema.parse({})),
    workflows: WorkflowsConfigSchema.default(WorkflowsConfigSchema.parse({})),
    downstream: DownstreamSectionSchema.prefault({}).describe("Downstream MCP servers whose tools the gateway aggregates (`server__tool`)."),
    dashboard: DashboardConfigSchema.prefault({}),
    trace: TraceConfigSchema.default(TraceConfigSchema.parse({})),
    analytics: AnalyticsConfigSchema.prefault({}),
    logging: z.object({ level: LogLevelSchema.default("info").describe("Level of the gateway's JSON logs (stderr).") }).strict().default({ level: "info" }),
    metrics: z.object({ defaultMetrics: z.boolean().default(true).describe("Also export Node.js process metrics.") }).strict()
      .default({ defaultMetrics: true }),
  }).strict()
  .superRefine((config, ctx) => {
    const seen = new Map<string, number>();
    config.backends.forEach((backend, index) => {
      const previous = seen.get(backend.id);
      if (previous !== undefined) {
        ctx.addIssue({ code: "custom", path: ["backends", index, "id"], message: `duplicate backend id '${backend.id}' (also backends.${previous})` });
      } else {
        seen.set(backend.id, index);
      }
      const flowIds = new Set<string>();
      backend.flows.forEach((flow, flowIndex) => {
        if (flowIds.has(flow.id)) {
          ctx.addIssue({ code: "custom", path: ["backends", index, "flows", flowIndex, "id"], message: `duplicate flow id '${flow.id}'` });
        }
        flowIds.add(flow.id);
      });
    });
    const names = new Set<string>();
    config.http.authTokens.forEach((entry, index) => {
      if (typeof entry === "object" && entry.name) {
        if (names.has(entry.name)) ctx.addIssue({ code: "custom", path: ["http", "authTokens", index, "name"], message: `duplicate token name '${entry.name}'` });
        names.add(entry.name);
      }
    });
    const experimentIds = new Set<string>();
    config.analytics.experiments.forEach((experiment, index) => {
      if (experimentIds.has(experiment.id)) ctx.addIssue({ code: "custom", path: ["analytics", "experiments", index, "id"], message: `duplicate experiment id '${experiment.id}'` });
      experimentIds.add(experiment.id);
    });
    if (config.routing.defaultFlow !== undefined && !config.routing.defaultFlow.includes(":")) {
      ctx.addIssue({ code: "custom", path: ["routing", "defaultFlow"], message: "defaultFlow must be a gateway-wide id `<backendId>:<flowId>`" });
    }
  });

/**
 * The whole gateway configuration, as validated (defaults applied).
 *
 * @example
 * ```ts
 * const config = GatewayConfigSchema.parse({ backends: [{ id: "flowise", kind: "flowise", baseURL: "http://localhost:3000" }] });
 * config.http.port; // 8787
 * ```
 */
export type GatewayConfig = z.infer<typeof GatewayConfigSchema>;

/** Input form of {@link GatewayConfig}: what a YAML file holds (every section optional). */
export type GatewayConfigInput = z.input<typeof GatewayConfigSchema>;
