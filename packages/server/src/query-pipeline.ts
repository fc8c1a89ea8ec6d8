import {
  AfwError,
  emitTrace,
  takeOldest,
  toAfwError,
  type CacheKeyInput,
  type CacheLookup,
  type ChatMessage,
  type ErrorCode,
  type FlowExecutionResult,
  type Intent,
  type IntentClassification,
  type ResponseCache,
  type SessionStore,
  type SessionTurn,
  type TraceContext,
  type UniversalFlow,
  type UniversalQueryError,
  type UniversalQueryInput,
  type UniversalQueryResult,
} from "@afw/contracts";
import { DEFAULT_CACHE_TTL_POLICY } from "@afw/cache";
import type { BackendRegistry } from "./backend-registry.js";
import type { GatewayConfig } from "./config-schema.js";
import type { RouterPort } from "./router-port.js";
import { elicitRoute, type RouteElicitation } from "./route-elicitation.js";
import { routingSetupHint } from "./setup-report.js";
import type { QuestionEmbedding } from "./semantic-options.js";

/** How long after the overall deadline the pipeline's own timeout aborts a query the router has not ended. */
const OVERALL_TIMEOUT_GRACE_MS = 250;
/** Options of {@link createQueryPipeline}. */
export interface QueryPipelineOptions {
  config: GatewayConfig;
  registry: BackendRegistry;
  router: RouterPort;
  cache: ResponseCache;
  sessions: SessionStore;
  /** Embeds questions for semantic cache hits (`cache.semantic`); absent: exact lookups only. */
  embedQuestion?: QuestionEmbedding | undefined;
  /** @default Date.now */
  now?: () => number;
}

/** Per-call options of {@link QueryPipeline.query}: `signal` cancels, `tenant` scopes cache entries and sessions, `onToken` receives streamed
 * tokens (`onRestart` when another candidate starts over), `tool` names the `query-received` event, `elicitation` asks the client when unsure. */
export interface QueryCallOptions {
  trace: TraceContext;
  signal?: AbortSignal;
  tenant?: string;
  onToken?: (text: string) => void;
  onRestart?: () => void;
  tool?: string;
  elicitation?: RouteElicitation;
}

/** Outcome of one query: the result, or the error body (never a thrown exception). */
export type QueryOutcome = { ok: true; result: UniversalQueryResult } | { ok: false; error: UniversalQueryError };

/** The query path of DESIGN.md; see {@link createQueryPipeline}. */
export interface QueryPipeline {
  /** Answers a validated `universal_query` input. Never rejects: failures come back as `{ ok: false }`. */
  query(input: UniversalQueryInput, options: QueryCallOptions): Promise<QueryOutcome>;
  /** Marks every cached answer given by `flowId` before now as stale, including answers cached under automatic
   * routing (whose cache key names the route asked for, not the flow that answered). */
  invalidateFlow(flowId: string, tenant?: string): void;
  /** The question (its first 500 characters) of a recent query by its trace id, for the operator dashboard: no trace event carries the question. */
  questionOf(traceId: string): string | undefined;
}

/** Flow invalidation marks kept (per tenant and flow), questions kept for {@link QueryPipeline.questionOf} and their length. */
const MAX_FLOW_EPOCHS = 10_000;
const QUESTION_MEMORY = 1_000;
const QUESTION_PREVIEW_LENGTH = 500;

/** The cache key target of a query: the flow asked for, or the automatic route it asked for. */
function cacheTarget(input: UniversalQueryInput): string {
  return input.flow_id ?? `auto:${input.backend}:${input.intent}`;
}

/** TTL of an answer: that of the flow's cache class, else of its intent's class (`@afw/cache`'s default policy), else the default. */
export function cacheTtlSeconds(config: GatewayConfig["cache"], flow: UniversalFlow | undefined, intent: Intent): number {
  const byClass = (cacheClass: string | undefined) => (cacheClass === undefined ? undefined : config.ttlByClass[cacheClass]);
  return byClass(flow?.cacheClass) ?? byClass(DEFAULT_CACHE_TTL_POLICY.intentClasses[intent]) ?? config.defaultTtlSeconds;
}

/** Appends an answered turn to its session and says in the answer's metadata whether it is kept: `session_saved` true when written or buffered for
 * replay (`session_buffered`), false (with a `session-save-failed` trace event) when the store could not keep it. */
async function saveTurn(
  sessions: SessionStore,
  sessionId: string,
  turn: SessionTurn,
  tenant: { tenant: string } | undefined,
  trace: TraceContext,
): Promise<{ session_saved: boolean; session_buffered?: true }> {
  try {
    const outcome = await sessions.append(sessionId, turn, tenant);
    if (outcome.saved) {
      emitTrace(trace, "session-appended", {
        ...(outcome.totalTurns === undefined ? {} : { totalTurns: outcome.totalTurns }),
        ...(outcome.buffered ? { buffered: true } : {}),
      });
      return outcome.buffered ? { session_saved: true, session_buffered: true } : { session_saved: true };
    }
    emitTrace(trace, "session-save-failed", { reason: "not-kept", message: "the session store could neither write nor buffer the turn" });
  } catch (error) {
    emitTrace(trace, "session-save-failed", { reason: "error", message: `the session store failed (${toAfwError(error).code})` });
  }
  return { session_saved: false };
}

/** The session's turns as messages; a turn the answering flow's platform memory holds names that flow. */
function historyOf(turns: readonly SessionTurn[]): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (const turn of turns) {
    const held = turn.remembered === true && turn.flowId !== undefined ? { rememberedBy: turn.flowId } : {};
    history.push({ role: "user", content: turn.question, ...held }, { role: "assistant", content: turn.answer, ...held });
  }
  return history;
}

/** The parameters that change an answer, as a cache key variant (undefined without any). */
function cacheVariant(parameters: UniversalQueryInput["parameters"]): string | undefined {
  const parts: string[] = [];
  if (parameters?.temperature !== undefined) parts.push(`temperature=${parameters.temperature}`);
  if (parameters?.max_tokens !== undefined) parts.push(`max_tokens=${parameters.max_tokens}`);
  return parts.length > 0 ? parts.join(";") : undefined;
}

const PARAMETER_NAMES: Record<string, string> = { maxTokens: "max_tokens" };

/** What the adapter reported it delivered, in `_mcp_metadata` terms. */
function deliveryMetadata(delivery: FlowExecutionResult["delivery"]): Partial<UniversalQueryResult["_mcp_metadata"]> {
  const name = (parameter: string) => PARAMETER_NAMES[parameter] ?? parameter;
  const parameters = delivery?.parameters;
  const context = delivery?.context;
  return {
    ...(parameters ? { parameters_applied: parameters.applied.map(name) } : {}),
    ...(parameters && parameters.ignored.length > 0 ? { parameters_ignored: parameters.ignored.map((entry) => ({ parameter: name(entry.parameter), reason: entry.reason })) } : {}),
    ...(parameters && parameters.unverified.length > 0 ? { parameters_unverified: parameters.unverified.map(name) } : {}),
    ...(context ? { session_context: { history_messages: context.historyMessages, platform_memory: context.platformMemory } } : {}),
  };
}

/** Whether a session's turn may be answered from (or written to) the cache: only when the flow is known to keep no memory of its own. */
function sessionCacheable(flow: UniversalFlow | undefined): boolean {
  return flow?.metadata["memory"] === false;
}

/** Creates the `universal_query` pipeline: validate (done by the caller), cache lookup, session context, classification, ranking, execution with retry/fallback under the overall
 * timeout, performance recording, cache write with the TTL of the answering flow's class, session append, and a result with `_mcp_metadata`. */
export function createQueryPipeline(options: QueryPipelineOptions): QueryPipeline {
  const now = options.now ?? Date.now;
  const { config, cache, sessions } = options;
  /** When a flow's answers were last invalidated, by `tenant \0 flow` (tenant "" = the operator: every tenant). */
  const flowEpochs = new Map<string, number>();
  const epochKey = (flowId: string, tenant: string | undefined) => `${tenant ?? ""}\u0000${flowId}`;
  const isStale = (flowId: string, tenant: string | undefined, createdAt: number) =>
    Math.max(flowEpochs.get(epochKey(flowId, undefined)) ?? -1, tenant === undefined ? -1 : (flowEpochs.get(epochKey(flowId, tenant)) ?? -1)) >= createdAt;
  const questions = new Map<string, string>();
  const rememberQuestion = (traceId: string, question: string) => {
    questions.delete(traceId);
    questions.set(traceId, question.slice(0, QUESTION_PREVIEW_LENGTH));
    if (questions.size > QUESTION_MEMORY) takeOldest(questions);
  };
  const query = async (input: UniversalQueryInput, call: QueryCallOptions): Promise<QueryOutcome> => {
    const started = now();
    const startedPrecise = performance.now();
    const { trace } = call;
    const elapsed = () => Math.max(0, Math.round((performance.now() - startedPrecise) * 1000) / 1000);
    let classification: IntentClassification | undefined;
    let attempts = 0;
    let backendsTried: string[] = [];
    rememberQuestion(trace.traceId, input.question);
    emitTrace(trace, "query-received", {
      tool: call.tool ?? "universal_query",
      questionLength: input.question.length,
      ...(input.intent !== "auto" ? { intentRequested: input.intent } : {}),
      ...(input.backend !== "auto" ? { backendRequested: input.backend } : {}),
    });
    const controller = new AbortController();
    const deadline = started + input.timeout * 1000;
    const onAbort = () => controller.abort(new AfwError("ABORTED", "the request was cancelled"));
    call.signal?.addEventListener("abort", onAbort, { once: true });
    // The router enforces `deadline` itself and ends with ALL_BACKENDS_FAILED ("overall timeout reached") listing every attempt; this timer is the safety net
    // for anything that ignores the deadline, so it fires a little later and the router's answer is the one the client sees.
    const timer = setTimeout(
      () => controller.abort(new AfwError("BACKEND_TIMEOUT", `the query did not finish within ${input.timeout} s`)),
      input.timeout * 1000 + OVERALL_TIMEOUT_GRACE_MS,
    );
    const tenantOption = call.tenant === undefined ? undefined : { tenant: call.tenant };
    const sessionsEnabled = config.sessions.enabled && input.session_id !== undefined;
    /** Saves the turn (with the other writes), then answers with the final execution time. */
    const finish = async (result: UniversalQueryResult, writes: Promise<unknown>[], remembered: boolean, tries: number): Promise<QueryOutcome> => {
      const meta = result._mcp_metadata;
      if (sessionsEnabled) {
        const turn = {
          question: input.question,
          answer: result.result,
          flowId: meta.flow_id,
          backendId: meta.backend_used,
          intent: meta.intent_classified,
          traceId: trace.traceId,
          ...(remembered ? { remembered: true } : {}),
          ...(input.tags === undefined || input.tags.length === 0 ? {} : { tags: [...new Set(input.tags)] }),
          askedAt: started,
          answeredAt: now(),
        };
        writes.push(saveTurn(sessions, input.session_id!, turn, tenantOption, trace).then((saved) => Object.assign(meta, saved)));
      }
      await Promise.all(writes);
      meta.execution_time_ms = elapsed();
      emitTrace(trace, "query-answered", {
        backendId: meta.backend_used,
        flowId: meta.flow_id,
        durationMs: meta.execution_time_ms,
        attempts: tries,
        fallbackUsed: meta.fallback_used,
        cacheHit: meta.cache_hit,
      });
      return { ok: true, result };
    };
    try {
      // 2. cache
      const variant = cacheVariant(input.parameters);
      let embedding: Float32Array | undefined;
      const cacheKey: CacheKeyInput = {
        scope: input.session_id === undefined ? "shared" : "session",
        flowId: cacheTarget(input),
        question: input.question,
        ...(input.session_id === undefined ? {} : { sessionId: input.session_id }),
        ...(call.tenant === undefined ? {} : { tenant: call.tenant }),
        ...(variant === undefined ? {} : { variant }),
      };
      if (config.cache.enabled) {
        if (variant === undefined && options.embedQuestion) embedding = await options.embedQuestion(input.question, controller.signal);
        let lookup = await cache.get(cacheKey, embedding ? { embedding } : undefined).catch((): CacheLookup => ({ hit: false, reason: "unavailable" }));
        let missReason: "absent" | "corrupt" | "unavailable" | "bypass" | "expired" | "session-memory" = lookup.hit ? "absent" : lookup.reason;
        if (lookup.hit && isStale(lookup.entry.result._mcp_metadata.flow_id, call.tenant, lookup.entry.createdAt)) {
          lookup = { hit: false, reason: "expired" };
          missReason = "expired";
        }
        if (lookup.hit && cacheKey.scope === "session") {
          const answeredBy = lookup.entry.result._mcp_metadata.flow_id;
          const flows = await options.registry.flows().catch(() => [] as UniversalFlow[]);
          if (!sessionCacheable(flows.find((f) => f.id === answeredBy))) {
            lookup = { hit: false, reason: "absent" };
            missReason = "session-memory";
          }
        }
        if (lookup.hit) {
          // The stored answer's session_context described the call that produced it; nothing was sent now.
          const { session_context: _sent, ...cachedMetadata } = lookup.entry.result._mcp_metadata;
          const cached = { ...lookup.entry.result, _mcp_metadata: cachedMetadata };
          emitTrace(trace, "cache-hit", {
            scope: cacheKey.scope,
            flowId: cached._mcp_metadata.flow_id,
            kind: lookup.kind,
            ...(lookup.kind === "semantic" ? { similarity: lookup.similarity } : {}),
          });
          const result: UniversalQueryResult = {
            ...cached,
            ...(input.session_id === undefined ? {} : { session_id: input.session_id }),
            _mcp_metadata: {
              ...cached._mcp_metadata,
              cache_hit: lookup.kind === "semantic" ? "semantic" : true,
              ...(lookup.kind === "semantic" ? { cache_similarity: lookup.similarity } : {}),
              execution_time_ms: elapsed(),
              attempt: 1,
              fallback_used: false,
              backends_tried: [],
              trace_id: trace.traceId,
            },
          };
          if (input.parameters?.stream) call.onToken?.(result.result);
          return await finish(result, [], false, 0);
        }
        emitTrace(trace, "cache-miss", { scope: cacheKey.scope, flowId: cacheKey.flowId, reason: missReason });
        if (lookup.reason === "unavailable") emitTrace(trace, "cache-unavailable", { operation: "get", message: "cache lookup failed; continuing without it" });
      } else {
        emitTrace(trace, "cache-miss", { scope: cacheKey.scope, reason: "bypass" });
      }
      // 3. session context
      let history: ChatMessage[] = [];
      if (sessionsEnabled && config.sessions.contextTurns > 0) {
        const turns = await sessions.recent(input.session_id!, config.sessions.contextTurns, tenantOption).catch(() => []);
        history = historyOf(turns);
        emitTrace(trace, "session-loaded", { turns: turns.length });
      }
      // 4. intent, 5. rank
      const routed = await options.router.decide(
        {
          question: input.question,
          intent: input.intent,
          backend: input.backend,
          ...(input.flow_id === undefined ? {} : { flowId: input.flow_id }),
          ...(input.allow_fallback ? { allowFallback: true } : {}),
        },
        { trace, signal: controller.signal },
      );
      classification = routed.classification;
      const explicit = input.backend !== "auto" || input.flow_id !== undefined;
      const elicited = await elicitRoute(routed.decision, { config: config.routing.elicitation, elicitation: call.elicitation, explicit, deadline, signal: controller.signal, trace });
      const decision = elicited.decision;
      // 6. execute
      const outcome = await options.router.execute(
        decision,
        {
          question: input.question,
          ...(input.session_id === undefined ? {} : { sessionId: input.session_id }),
          ...(history.length > 0 ? { history } : {}),
          ...(input.parameters?.temperature === undefined && input.parameters?.max_tokens === undefined
            ? {}
            : {
                parameters: {
                  ...(input.parameters.temperature === undefined ? {} : { temperature: input.parameters.temperature }),
                  ...(input.parameters.max_tokens === undefined ? {} : { maxTokens: input.parameters.max_tokens }),
                },
              }),
          stream: input.parameters?.stream === true && call.onToken !== undefined,
          requestId: trace.requestId,
        },
        {
          signal: controller.signal,
          deadline,
          trace,
          ...(call.onToken ? { onToken: call.onToken } : {}),
          ...(call.onRestart ? { onRestart: call.onRestart } : {}),
        },
      );
      // 7. record, cache, session, answer
      const { candidate, result: answer } = outcome;
      const flows = await options.registry.flows().catch(() => [] as UniversalFlow[]);
      const flow = flows.find((f) => f.id === candidate.flowId);
      const result: UniversalQueryResult = {
        result: answer.text,
        ...(input.session_id === undefined ? {} : { session_id: input.session_id }),
        ...(answer.sources.length > 0 ? { sources: answer.sources } : {}),
        _mcp_metadata: {
          backend_used: candidate.backendId,
          backend_kind: candidate.backendKind,
          flow_id: candidate.flowId,
          flow_name: candidate.flowName,
          routing_score: candidate.score,
          routing_breakdown: candidate.breakdown,
          routing_reason: decision.reason,
          ...(candidate.adjustment ? { routing_adjustment: candidate.adjustment } : {}),
          ...(decision.experiment ? { routing_experiment: decision.experiment } : {}),
          intent_classified: classification.intent,
          intent_confidence: classification.confidence,
          intent_method: classification.method,
          ...(classification.cascade ? { intent_cascade: classification.cascade } : {}),
          execution_time_ms: 0,
          fallback_used: outcome.fallbackUsed,
          ...(outcome.fallbackUsed && outcome.fallbackReason ? { fallback_reason: outcome.fallbackReason } : {}),
          attempt: outcome.attempts,
          backends_tried: outcome.backendsTried,
          cache_hit: false,
          ...deliveryMetadata(answer.delivery),
          ...(elicited.metadata ? { elicitation: elicited.metadata } : {}),
          trace_id: trace.traceId,
        },
      };
      const writes: Promise<unknown>[] = [];
      // An answer that replaced an explicit backend/flow choice is not cached under that choice's key.
      const replacedChoice = decision.strategy === "override" && outcome.fallbackUsed;
      const cacheableHere = cacheKey.scope === "shared" || sessionCacheable(flow);
      if (config.cache.enabled && !replacedChoice && cacheableHere && (flow?.cacheable ?? true) && answer.text.length > 0) {
        const ttlSeconds = cacheTtlSeconds(config.cache, flow, classification.intent);
        writes.push(
          cache.set(cacheKey, result, { ttlSeconds, ...(embedding ? { embedding } : {}) }).then(
            (stored) => {
              if (stored) emitTrace(trace, "cache-write", { scope: cacheKey.scope, flowId: candidate.flowId, ttlSeconds });
              else emitTrace(trace, "cache-unavailable", { operation: "set", message: "the cache did not store the answer" });
            },
            () => emitTrace(trace, "cache-unavailable", { operation: "set", message: "the cache write failed" }),
          ),
        );
      }
      return await finish(result, writes, answer.delivery?.context?.platformMemory === true, outcome.attempts);
    } catch (thrown) {
      const original = toAfwError(thrown);
      // A cancelled or timed-out query reports why it stopped, whatever the step that noticed.
      const error = controller.signal.aborted ? toAfwError(controller.signal.reason) : original;
      const details = original.details ?? {};
      if (typeof details["attempts"] === "number") attempts = details["attempts"];
      if (Array.isArray(details["backendsTried"])) backendsTried = details["backendsTried"] as string[];
      const last = details["lastError"] as { code?: string; message?: string } | undefined;
      // Nothing to route to: say what to configure (none configured, unreachable, or a refused key).
      const hint = error.code === "NO_BACKENDS_AVAILABLE" || error.code === "ALL_BACKENDS_FAILED" ? await routingSetupHint(options).catch(() => undefined) : undefined;
      const body: UniversalQueryError = {
        error: hint ? `${error.message}. ${hint}` : error.message,
        code: error.code as ErrorCode,
        attempts,
        backends_tried: backendsTried,
        ...(last?.code ? { last_error: `${last.code}: ${last.message ?? ""}`.trim() } : {}),
        _mcp_metadata: {
          trace_id: trace.traceId,
          execution_time_ms: elapsed(),
          ...(classification ? { intent_classified: classification.intent, intent_confidence: classification.confidence } : {}),
        },
      };
      emitTrace(trace, "query-failed", { code: error.code, message: error.message, durationMs: elapsed(), attempts });
      return { ok: false, error: body };
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener("abort", onAbort);
    }
  };
  return {
    query,
    questionOf: (traceId) => questions.get(traceId),
    invalidateFlow(flowId, tenant) {
      const key = epochKey(flowId, tenant);
      flowEpochs.delete(key);
      flowEpochs.set(key, now());
      // Bounded (flow ids come from clients): the oldest marks go first.
      if (flowEpochs.size > MAX_FLOW_EPOCHS) takeOldest(flowEpochs);
    },
  };
}
