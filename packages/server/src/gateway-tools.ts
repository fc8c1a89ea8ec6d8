import {
  AfwError,
  emitTrace,
  GetPlaybookDetailsInputShape,
  SearchToolsInputShape,
  SearchWorkflowCatalogInputShape,
  UniversalQueryInputShape,
  type CacheInvalidation,
  type CircuitStateStore,
  type PerformanceSample,
  type PerformanceStore,
  type ResponseCache,
  type SessionStore,
  type TraceContext,
  type UniversalQueryInput,
  type UniversalQueryError,
} from "@afw/contracts";
import { checkOutboundUrl, lookupFromResolver, matchHostPattern, outboundConnectPolicy, type HostResolver } from "@afw/backends";
import { z } from "zod";
import type { BackendFactory } from "./backend-factory.js";
import type { BackendRegistry } from "./backend-registry.js";
import { BackendConfigSchema, type GatewayConfig } from "./config-schema.js";
import type { ToolSearchPort, WorkflowCatalogPort } from "./ports.js";
import type { QueryPipeline } from "./query-pipeline.js";
import type { RouteElicitation } from "./route-elicitation.js";
import type { Redactor } from "@afw/contracts";
import {
  BackendConnectInputShape,
  BackendPerformanceCompareInputShape,
  BackendStatusInputShape,
  ClearCacheInputShape,
  ExplainRoutingInputShape,
  FlowiseQueryInputShape,
  GetSessionInputShape,
  HealthCheckInputShape,
  ListFlowsInputShape,
  ListSessionsInputShape,
  SearchHistoryInputShape,
} from "./tool-schemas.js";

/** Characters of the question and answer a `search_history` hit shows. */
const SNIPPET_CHARS = 240;

/** What a tool handler gets besides its validated arguments. */
export interface ToolContext {
  /** Trace context of this call. */
  readonly trace: TraceContext;
  /** Aborted when the client cancels the call or the connection closes. */
  readonly signal: AbortSignal;
  /** Tenant of the caller (from its bearer token), if any. */
  readonly tenant: string | undefined;
  /** The arguments as sent (before defaults). */
  readonly rawArguments: Readonly<Record<string, unknown>>;
  /** Sends a progress notification when the client asked for them; no-op otherwise. */
  readonly progress: ((message: string) => void) | undefined;
  /** How `universal_query` can ask the client when unsure (undefined outside MCP). */
  readonly elicitation?: RouteElicitation | undefined;
}

/** One MCP tool of the gateway. */
export interface GatewayTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** Zod shape announced in `tools/list`. */
  readonly shape: z.ZodRawShape;
  /** Full validator (strict object plus cross-field rules). */
  readonly schema: z.ZodType;
  readonly annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  /** Runs the tool; returns a JSON-serialisable value or throws (`AfwError`, {@link ToolFailure}). */
  run(args: never, context: ToolContext): Promise<unknown>;
  /** Builds the error body of this tool (default: {@link ToolErrorBody}). */
  errorBody?(error: AfwError, context: { trace: TraceContext; elapsedMs: number }): Record<string, unknown>;
}

/** The JSON body of every failed tool call (besides `universal_query`'s richer error). */
export const ToolErrorBodySchema = z.object({
  error: z.string().describe("Human-readable message (no secrets)."),
  code: z.string().describe("Stable error code from contracts' ERROR_CODES."),
  details: z.record(z.string(), z.unknown()).optional(),
  trace_id: z.string().optional(),
});

/** The JSON body of a failed tool call: `{ error, code, details?, trace_id? }`. */
export type ToolErrorBody = z.infer<typeof ToolErrorBodySchema>;

/** Thrown by a tool to return a prepared error body (e.g. a `UniversalQueryError`). */
export class ToolFailure extends Error {
  constructor(readonly body: Record<string, unknown> & { code: string; error: string }) {
    super(body.error);
    this.name = "ToolFailure";
  }
}

/** What the tools need from the gateway. */
export interface ToolDependencies {
  config: GatewayConfig;
  registry: BackendRegistry;
  pipeline: QueryPipeline;
  cache: ResponseCache;
  sessions: SessionStore;
  performance: PerformanceStore;
  circuits: CircuitStateStore;
  toolSearch: ToolSearchPort;
  workflowCatalog: WorkflowCatalogPort;
  backendFactory: BackendFactory;
  redactor: Redactor;
  /**
   * Resolver for `backend_connect`'s address check and for the connections of the backends it
   * adds (each connection's address is checked again). @default `dns.lookup`
   */
  resolveHost?: HostResolver;
}

function tool<S extends z.ZodRawShape>(definition: {
  name: string;
  title: string;
  description: string;
  shape: S;
  refine?: (schema: z.ZodObject<S>) => z.ZodType<z.infer<z.ZodObject<S>>>;
  annotations: GatewayTool["annotations"];
  run: (args: z.infer<z.ZodObject<S>>, context: ToolContext) => Promise<unknown>;
  errorBody?: GatewayTool["errorBody"];
}): GatewayTool {
  const object = z.object(definition.shape).strict();
  return {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    shape: definition.shape,
    schema: definition.refine ? definition.refine(object) : object,
    annotations: definition.annotations,
    run: definition.run as GatewayTool["run"],
    ...(definition.errorBody ? { errorBody: definition.errorBody } : {}),
  };
}

/** Strips credentials, query and fragment from a URL before showing it. */
export function displayUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    parsed.search = "";
    parsed.hash = "";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return undefined;
  }
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** Latency and success statistics of a window of samples. */
function summarize(samples: readonly PerformanceSample[]) {
  const successes = samples.filter((s) => s.success);
  const latencies = (successes.length > 0 ? successes : samples).map((s) => s.latencyMs).sort((a, b) => a - b);
  const errors: Record<string, number> = {};
  for (const sample of samples) if (!sample.success) errors[sample.errorCode ?? "UNKNOWN"] = (errors[sample.errorCode ?? "UNKNOWN"] ?? 0) + 1;
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    requests: samples.length,
    successes: successes.length,
    success_rate: samples.length === 0 ? 0 : round(successes.length / samples.length),
    latency_p50_ms: round(percentile(latencies, 50)),
    latency_p95_ms: round(percentile(latencies, 95)),
    errors,
    last_at: samples.length === 0 ? undefined : new Date(Math.max(...samples.map((s) => s.timestamp))).toISOString(),
  };
}

/**
 * True when `hostname:port` of `url` matches a `backendConnect.allowedHosts` pattern (`host`,
 * `host:port`, `[v6]:port`, `*.domain`, `*`). Address patterns match every spelling of the same
 * address (`127.0.0.1` matches `http://2130706433/`). This is the name check only; see
 * `checkBackendConnectUrl` for the full SSRF policy (resolved addresses).
 */
export function isHostAllowed(url: URL, allowedHosts: readonly string[]): boolean {
  return matchHostPattern(url, allowedHosts) !== undefined;
}

/**
 * The `backend_connect` SSRF policy: the host must match `allowedHosts`, and every address it
 * resolves to must be allowed for that kind of match — `*` reaches public addresses only;
 * loopback and private ranges need an entry naming the host or its domain; cloud metadata,
 * link-local and other special addresses need an exact entry (see `checkOutboundUrl` in
 * `@afw/downstream`).
 *
 * @throws AfwError `FORBIDDEN` with the reason when refused.
 * @internal
 */
export async function checkBackendConnectUrl(url: URL, allowedHosts: readonly string[], resolve?: HostResolver): Promise<void> {
  const decision = await checkOutboundUrl(url, { allowedHosts, ...(resolve ? { resolve } : {}) });
  if (decision.allowed) return;
  const listed = isHostAllowed(url, allowedHosts);
  throw new AfwError("FORBIDDEN", listed ? `host '${url.host}' is refused: ${decision.reason}` : `host '${url.host}' is not in backendConnect.allowedHosts`, {
    details: { host: url.host },
  });
}

function universalErrorBody(error: AfwError, context: { trace: TraceContext; elapsedMs: number }): UniversalQueryError {
  return {
    error: error.message,
    code: error.code,
    attempts: 0,
    backends_tried: [],
    _mcp_metadata: { trace_id: context.trace.traceId, execution_time_ms: context.elapsedMs },
    ...(error.details ? { details: error.details } : {}),
  } as UniversalQueryError;
}

/**
 * Builds the gateway's MCP tools over its parts. The tools are transport-independent; see
 * `createGatewayServer` for how they are served.
 */
export function createGatewayTools(deps: ToolDependencies): GatewayTool[] {
  const { config, registry, pipeline, redactor } = deps;

  const runQuery = async (input: UniversalQueryInput, context: ToolContext, toolName: string) => {
    const streaming = input.parameters?.stream === true && context.progress !== undefined;
    const outcome = await pipeline.query(input, {
      trace: context.trace,
      signal: context.signal,
      tool: toolName,
      ...(context.tenant === undefined ? {} : { tenant: context.tenant }),
      ...(context.elicitation === undefined ? {} : { elicitation: context.elicitation }),
      ...(streaming ? { onToken: (text: string) => context.progress!(text), onRestart: () => context.progress!("\n[fallback: the answer restarts]\n") } : {}),
    });
    if (!outcome.ok) throw new ToolFailure(outcome.error as UniversalQueryError & Record<string, unknown>);
    return outcome.result;
  };

  const backendsMatching = (selector: string | undefined) =>
    registry.entries().filter((entry) => selector === undefined || entry.backend.id === selector || entry.backend.kind === selector);

  const requireBackends = (selector: string | undefined) => {
    const matching = backendsMatching(selector);
    if (selector !== undefined && matching.length === 0) throw new AfwError("NOT_FOUND", `no backend matches '${selector}'`, { details: { backend: selector } });
    return matching;
  };

  return [
    tool({
      name: "universal_query",
      title: "Ask the best AI workflow",
      description:
        "Answers a question with the best-suited AI workflow (Flowise or Langflow flow): classifies the intent, ranks every backend and flow, runs the best one with retry and fallback, and caches the answer. Pass session_id to continue a conversation. The result holds the answer and `_mcp_metadata` (backend, flow, scores, intent, attempts, fallback, cache hit, trace id). With parameters.stream and a progress token, tokens arrive as progress notifications.",
      shape: UniversalQueryInputShape,
      annotations: { readOnlyHint: false, openWorldHint: true },
      run: (args, context) => runQuery(args, context, "universal_query"),
      errorBody: universalErrorBody,
    }),
    tool({
      name: "flowise_query",
      title: "Ask a Flowise chatflow (legacy)",
      description:
        "Legacy tool of the original Flowise MCP server: asks a Flowise chatflow a question. Give chatflow_id to pick the chatflow, else the best Flowise flow is chosen. Same result format as universal_query.",
      shape: FlowiseQueryInputShape,
      annotations: { readOnlyHint: false, openWorldHint: true },
      run: (args, context) =>
        runQuery(
          {
            question: args.question,
            intent: "auto",
            backend: "flowise",
            timeout: args.timeout,
            ...(args.chatflow_id === undefined ? {} : { flow_id: args.chatflow_id }),
            ...(args.session_id === undefined ? {} : { session_id: args.session_id }),
            ...(args.tags === undefined ? {} : { tags: args.tags }),
            ...(args.allow_fallback === undefined ? {} : { allow_fallback: args.allow_fallback }),
          },
          context,
          "flowise_query",
        ),
      errorBody: universalErrorBody,
    }),
    tool({
      name: "list_flows",
      title: "List flows",
      description: "Lists the flows of every backend (or of one backend id or kind), with their intents, keywords, capabilities and cache class.",
      shape: ListFlowsInputShape,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: async (args, context) => {
        requireBackends(args.backend);
        let flows = await registry.flows({ refresh: args.refresh, signal: context.signal, trace: context.trace });
        if (args.backend !== undefined) flows = flows.filter((f) => f.backendId === args.backend || f.backendKind === args.backend);
        if (args.intent !== undefined) flows = flows.filter((f) => f.intents.includes(args.intent!));
        const problems = registry.discoveryProblems().filter((p) => args.backend === undefined || flows.some((f) => f.backendId === p.backendId) || p.backendId === args.backend);
        return {
          count: flows.length,
          flows: flows.map((f) => ({
            id: f.id,
            backend_id: f.backendId,
            backend_kind: f.backendKind,
            backend_flow_id: f.backendFlowId,
            name: f.name,
            ...(f.description ? { description: f.description } : {}),
            intents: f.intents,
            keywords: f.keywords,
            capabilities: f.capabilities,
            general_purpose: f.generalPurpose,
            cacheable: f.cacheable,
            ...(f.cacheClass ? { cache_class: f.cacheClass } : {}),
            source: f.source,
          })),
          ...(problems.length > 0 ? { discovery_problems: problems.map((p) => ({ backend_id: p.backendId, code: p.code, message: p.message })) } : {}),
        };
      },
    }),
    tool({
      name: "backend_status",
      title: "Backend status",
      description: "Shows every backend (or one id or kind): kind, URL (without credentials), latest health, circuit-breaker state, flow count and discovery problems. Probes nothing; see health_check.",
      shape: BackendStatusInputShape,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: async (args, context) => {
        const entries = requireBackends(args.backend);
        const flows = await registry.flows({ signal: context.signal });
        const problems = registry.discoveryProblems();
        const backends = await Promise.all(
          entries.map(async (entry) => {
            const id = entry.backend.id;
            const [health, circuit] = await Promise.all([registry.latestHealth(id), deps.circuits.get(id).catch(() => undefined)]);
            const problem = problems.find((p) => p.backendId === id);
            return {
              id,
              kind: entry.backend.kind,
              source: entry.source,
              ...(entry.config ? { base_url: displayUrl(entry.config.baseURL) } : {}),
              health: health ?? null,
              circuit: circuit ? { state: circuit.state, failures: circuit.failures, ...(circuit.nextProbeAt ? { next_probe_at: new Date(circuit.nextProbeAt).toISOString() } : {}) } : { state: "closed", failures: 0 },
              flows: flows.filter((f) => f.backendId === id).length,
              ...(problem ? { discovery_problem: { code: problem.code, message: problem.message } } : {}),
            };
          }),
        );
        return { count: backends.length, backends };
      },
    }),
    tool({
      name: "health_check",
      title: "Health check",
      description: "Probes every backend (or one id or kind) now and reports each one's status and latency, plus the cache and session stores.",
      shape: HealthCheckInputShape,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
      run: async (args, context) => {
        const entries = requireBackends(args.backend);
        const results = (
          await Promise.all(entries.map((entry) => registry.checkHealth({ backendId: entry.backend.id, signal: context.signal, trace: context.trace })))
        ).flat();
        const storeOk = async (probe: () => Promise<unknown>) => {
          try {
            await probe();
            return { ok: true };
          } catch (error) {
            return { ok: false, message: redactor.redact((error as Error)?.message ?? "unavailable") };
          }
        };
        const [cache, sessions] = await Promise.all([storeOk(() => deps.cache.stats()), storeOk(() => deps.sessions.list("__afw_health_probe__", { limit: 1 }))]);
        const up = results.filter((h) => h.status !== "down").length;
        const status = results.length === 0 ? "no-backends" : up === results.length && results.every((h) => h.status === "healthy") ? "healthy" : up > 0 ? "degraded" : "down";
        return { status, checked_at: new Date().toISOString(), backends: results, stores: { cache, sessions } };
      },
    }),
    tool({
      name: "backend_performance_compare",
      title: "Compare backend performance",
      description:
        "Compares measured performance per backend and per flow from the shared performance store (recent window): request count, success rate, latency p50/p95, errors by code, and recommends the best backend.",
      shape: BackendPerformanceCompareInputShape,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: async (args) => {
        const targets = await deps.performance.targets();
        const kindOf = (backendId: string) => registry.get(backendId)?.backend.kind;
        const matches = (backendId: string) => args.backend === undefined || backendId === args.backend || kindOf(backendId) === args.backend;
        const backendTargets = targets.filter((t) => t.flowId === undefined && matches(t.backendId));
        const flowTargets = targets.filter((t) => t.flowId !== undefined && matches(t.backendId) && (args.flow_id === undefined || t.flowId === args.flow_id));
        const flowRows = await Promise.all(
          flowTargets.map(async (t) => ({ backendId: t.backendId, flowId: t.flowId!, stats: summarize(await deps.performance.window(t)) })),
        );
        const backendIds = [...new Set([...backendTargets.map((t) => t.backendId), ...flowRows.map((r) => r.backendId)])];
        const backends = await Promise.all(
          backendIds.map(async (backendId) => {
            const samples =
              args.flow_id === undefined
                ? await deps.performance.window({ backendId })
                : (await Promise.all(flowTargets.filter((t) => t.backendId === backendId).map((t) => deps.performance.window(t)))).flat();
            return {
              backend_id: backendId,
              ...(kindOf(backendId) ? { kind: kindOf(backendId) } : {}),
              ...summarize(samples),
              flows: flowRows.filter((r) => r.backendId === backendId).map((r) => ({ flow_id: r.flowId, ...r.stats })),
            };
          }),
        );
        backends.sort((a, b) => b.success_rate - a.success_rate || a.latency_p95_ms - b.latency_p95_ms || a.backend_id.localeCompare(b.backend_id));
        const eligible = backends.filter((b) => b.requests >= args.min_samples);
        const best = eligible[0];
        const runnerUp = eligible[1];
        const recommendation = best
          ? {
              backend_id: best.backend_id,
              reason: `highest success rate (${Math.round(best.success_rate * 100)}%) with p95 ${best.latency_p95_ms} ms over ${best.requests} requests${
                runnerUp ? `; next: ${runnerUp.backend_id} (${Math.round(runnerUp.success_rate * 100)}%, p95 ${runnerUp.latency_p95_ms} ms)` : ""
              }`,
            }
          : { backend_id: null, reason: `no backend has ${args.min_samples} or more recorded requests yet` };
        return { window: "last samples per target (performance store window)", backends, recommendation };
      },
    }),
    tool({
      name: "backend_connect",
      title: "Connect a backend",
      description:
        "Adds a Flowise or Langflow backend at run time. Only hosts allowed by the gateway configuration (backendConnect.allowedHosts) are accepted; denied by default. The API key is never echoed.",
      shape: BackendConnectInputShape,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
      run: async (args, context) => {
        const policy = config.backendConnect;
        if (policy.allowedHosts.length === 0) {
          throw new AfwError("FORBIDDEN", "backend_connect is disabled: no hosts are allowed by configuration (backendConnect.allowedHosts)");
        }
        redactor.addSecrets(args.apiKey);
        const url = new URL(args.baseURL);
        await checkBackendConnectUrl(url, policy.allowedHosts, deps.resolveHost);
        if (!policy.allowedKinds.includes(args.kind)) {
          throw new AfwError("FORBIDDEN", `backend kind '${args.kind}' is not in backendConnect.allowedKinds`, { details: { kind: args.kind } });
        }
        if (registry.get(args.id)) throw new AfwError("INVALID_INPUT", `a backend with id '${args.id}' already exists`, { details: { id: args.id } });
        const backendConfig = BackendConfigSchema.parse({
          id: args.id,
          kind: args.kind,
          baseURL: args.baseURL,
          ...(args.apiKey === undefined ? {} : { apiKey: args.apiKey }),
          ...(args.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: args.requestTimeoutMs }),
          ...(args.flows === undefined ? {} : { flows: args.flows }),
        });
        // The check above ran on the addresses the name has now; the backend applies the same rules
        // to the address of every connection it opens, so a name that rebinds later is refused.
        const backend = await deps.backendFactory(backendConfig, {
          connectPolicy: outboundConnectPolicy(url, { allowedHosts: policy.allowedHosts }),
          ...(deps.resolveHost ? { lookup: lookupFromResolver(deps.resolveHost) } : {}),
        });
        registry.add(backend, { config: backendConfig, source: "runtime" });
        const [health] = await registry.checkHealth({ backendId: backend.id, signal: context.signal, trace: context.trace });
        const flows = (await registry.flows({ refresh: true, signal: context.signal, trace: context.trace })).filter((f) => f.backendId === backend.id);
        return { connected: true, id: backend.id, kind: backend.kind, base_url: displayUrl(backendConfig.baseURL), health, flows: flows.length };
      },
    }),
    tool({
      name: "list_sessions",
      title: "List sessions",
      description:
        "Lists conversation sessions whose id matches a glob pattern (`*`, `?`) and, with `tag`, that carry that tag (e.g. `project:falcon`), newest first, with turn counts and tags.",
      shape: ListSessionsInputShape,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: async (args, context) => {
        const sessions = await deps.sessions.list(args.pattern, {
          limit: args.limit,
          ...(args.tag === undefined ? {} : { tag: args.tag }),
          ...(context.tenant === undefined ? {} : { tenant: context.tenant }),
        });
        return {
          count: sessions.length,
          sessions: sessions.map((s) => ({
            session_id: s.sessionId,
            turns: s.turns,
            ...(s.tags === undefined ? {} : { tags: s.tags }),
            created_at: new Date(s.createdAt).toISOString(),
            updated_at: new Date(s.updatedAt).toISOString(),
          })),
        };
      },
    }),
    tool({
      name: "search_history",
      title: "Search conversation history",
      description:
        "Finds past question/answer turns of every session of the caller's tenant by keywords (stemmed words, not meaning), tag, session, backend, flow and time range; newest and best-matching first, paged with `cursor`. Each hit has the session id, time, flow, backend, tags and redacted snippets of the question and answer.",
      shape: SearchHistoryInputShape,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: async (args, context) => {
        const search = deps.sessions.search?.bind(deps.sessions);
        if (!search) throw new AfwError("NOT_FOUND", "this session store keeps no searchable history");
        const page = await search(
          {
            limit: args.limit,
            ...(args.text === undefined ? {} : { text: args.text }),
            ...(args.tag === undefined ? {} : { tag: args.tag }),
            ...(args.session_id === undefined ? {} : { sessionId: args.session_id }),
            ...(args.backend === undefined ? {} : { backendId: args.backend }),
            ...(args.flow_id === undefined ? {} : { flowId: args.flow_id }),
            ...(args.from === undefined ? {} : { from: Date.parse(args.from) }),
            ...(args.to === undefined ? {} : { to: Date.parse(args.to) }),
            ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
          },
          context.tenant === undefined ? undefined : { tenant: context.tenant },
        );
        const snippet = (text: string) => redactor.redact(text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS)}…` : text);
        return {
          count: page.hits.length,
          hits: page.hits.map(({ sessionId, turn, matchedWords }) => ({
            session_id: sessionId,
            asked_at: new Date(turn.askedAt).toISOString(),
            ...(turn.flowId ? { flow_id: turn.flowId } : {}),
            ...(turn.backendId ? { backend_id: turn.backendId } : {}),
            ...(turn.tags === undefined || turn.tags.length === 0 ? {} : { tags: turn.tags }),
            question: snippet(turn.question),
            answer: snippet(turn.answer),
            ...(args.text === undefined ? {} : { matched_words: matchedWords }),
          })),
          ...(page.nextCursor === undefined ? {} : { next_cursor: page.nextCursor }),
        };
      },
    }),
    tool({
      name: "get_session",
      title: "Get a session",
      description: "Returns a conversation session with its turns (question, answer, flow, backend, intent), oldest first.",
      shape: GetSessionInputShape,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: async (args, context) => {
        const record = await deps.sessions.get(args.session_id, context.tenant === undefined ? undefined : { tenant: context.tenant });
        if (!record) throw new AfwError("NOT_FOUND", `no session '${args.session_id}'`, { details: { session_id: args.session_id } });
        const turns = args.turns === undefined ? record.turnsList : record.turnsList.slice(-args.turns);
        return {
          session_id: record.sessionId,
          turns: record.turns,
          ...(record.tags === undefined ? {} : { tags: record.tags }),
          created_at: new Date(record.createdAt).toISOString(),
          updated_at: new Date(record.updatedAt).toISOString(),
          history: turns.map((t) => ({
            question: t.question,
            answer: t.answer,
            ...(t.flowId ? { flow_id: t.flowId } : {}),
            ...(t.backendId ? { backend_id: t.backendId } : {}),
            ...(t.intent ? { intent: t.intent } : {}),
            ...(t.traceId ? { trace_id: t.traceId } : {}),
            ...(t.tags === undefined || t.tags.length === 0 ? {} : { tags: t.tags }),
            asked_at: new Date(t.askedAt).toISOString(),
            answered_at: new Date(t.answeredAt).toISOString(),
          })),
        };
      },
    }),
    tool({
      name: "clear_cache",
      title: "Clear cached answers",
      description: "Removes cached answers by flow id, session id, scope (`shared` or `session`) or all; give exactly one. Returns how many entries were removed.",
      shape: ClearCacheInputShape,
      refine: (schema) =>
        schema.refine(
          (args) => [args.flow_id, args.session_id, args.scope, args.all === true ? true : undefined].filter((v) => v !== undefined).length === 1,
          { message: "give exactly one of flow_id, session_id, scope or all: true" },
        ),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      run: async (args, context) => {
        const selector: CacheInvalidation = {
          ...(args.flow_id === undefined ? {} : { flowId: args.flow_id }),
          ...(args.session_id === undefined ? {} : { sessionId: args.session_id }),
          ...(args.scope === undefined ? {} : { scope: args.scope }),
          ...(args.all === true ? { all: true } : {}),
          ...(context.tenant === undefined ? {} : { tenant: context.tenant }),
        };
        const removed = await deps.cache.invalidate(selector);
        if (args.flow_id !== undefined) pipeline.invalidateFlow(args.flow_id, context.tenant);
        const { tenant: _tenant, ...traced } = selector;
        emitTrace(context.trace, "cache-invalidate", { selector: traced, removed });
        return { removed, selector: { ...args } };
      },
    }),
    tool({
      name: "search_tools",
      title: "Search tools",
      description:
        "Finds the tools that fit a task, described in plain language, among every indexed tool (downstream MCP servers and configured catalogs). Hybrid keyword + semantic search; each result has an affordance summary (use when, inputs, output).",
      shape: SearchToolsInputShape,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: async (args, context) => {
        const input = context.rawArguments["mode"] === undefined ? { ...args, mode: config.tools.defaultMode } : args;
        return deps.toolSearch.search(input, { trace: context.trace, signal: context.signal });
      },
    }),
    tool({
      name: "search_workflow_catalog",
      title: "Search the workflow catalog",
      description:
        "Searches remediation workflows / playbooks by a natural-language or structured query (e.g. `OOMKilled critical`), with exact label filters (label.severity, label.environment, …) and exclusions. Returns ranked workflows with confidence.",
      shape: SearchWorkflowCatalogInputShape,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: async (args, context) => {
        const found = await deps.workflowCatalog.search(args, { trace: context.trace, signal: context.signal });
        return { count: found.results.length, results: found.results, ...(found.degraded ? { degraded: true } : {}) };
      },
    }),
    tool({
      name: "get_playbook_details",
      title: "Get playbook details",
      description: "Returns a workflow / playbook with its steps, prerequisites, rollback steps and labels (newest version unless `version` is given).",
      shape: GetPlaybookDetailsInputShape,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: async (args) => {
        const workflow = await deps.workflowCatalog.get(args);
        if (!workflow) {
          throw new AfwError("NOT_FOUND", `no workflow '${args.workflow_id}'${args.version ? ` version ${args.version}` : ""}`, { details: { ...args } });
        }
        return workflow;
      },
    }),
    tool({
      name: "explain_routing",
      title: "Explain routing",
      description:
        "Shows how a question would be routed, without running anything: the intent classification with alternatives, every (backend, flow) candidate with its score breakdown (flow match, health, performance, capability), the choice and why.",
      shape: ExplainRoutingInputShape,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: async (args, context) => {
        const { classification, decision } = await pipeline.explain(
          { question: args.question, intent: args.intent, backend: args.backend, ...(args.flow_id === undefined ? {} : { flow_id: args.flow_id }) },
          { trace: context.trace, signal: context.signal },
        );
        return { classification, decision, trace_id: context.trace.traceId };
      },
    }),
  ];
}
