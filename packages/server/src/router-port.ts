import {
  AfwError,
  type BackendHealth,
  type Embedder,
  type FlowExecutionRequest,
  type FlowExecutionResult,
  type Intent,
  type IntentClassification,
  type RoutingCandidate,
  type RoutingDecision,
  type RoutingVariantSelector,
  type ScoreAdjuster,
  type TraceContext,
  type TraceSink,
} from "@afw/contracts";
import { createCachingEmbedder, createHashingEmbedder, createStaticEmbedder, createUseEmbedder } from "@afw/embeddings";
import {
  createIntentClassifier,
  DEFAULT_INTENT_PATTERNS,
  executeStream,
  executeWithFallback,
  mergeIntentPatterns,
  Router,
  type BackendFlowSource,
  type ExecutionAttempt,
  type ExecutionOutcome as RouterExecutionOutcome,
  type IntentClassifier,
  type IntentPatternRules,
} from "@afw/router";
import type { BackendRegistry } from "./backend-registry.js";
import type { GatewayConfig } from "./config-schema.js";
import type { GatewayStores } from "./gateway-types.js";
import { newTraceContext } from "./trace-context.js";

/** What the router needs to decide where a question goes: `intent` and `backend` (a kind or an id) default to `auto`; an explicit `backend` or
 * `flowId` (gateway-wide `backendId:flowId` or a platform id) is binding unless `allowFallback`. */
export interface RoutingRequest {
  question: string;
  intent?: Intent | "auto";
  backend?: string;
  flowId?: string;
  allowFallback?: boolean;
}

/** What to run once a decision is made (the executor sets the flow id and the time budget); `stream` asks for tokens through
 * {@link ExecuteOptions.onToken}. */
export type ExecutionRequest = Omit<FlowExecutionRequest, "flowId" | "timeoutMs"> & { stream?: boolean };

/** Options of one execution: `deadline` (epoch ms) bounds every attempt; `onToken` receives streamed tokens in order, `onRestart` is called when
 * another attempt starts over after some tokens were sent. */
export interface ExecuteOptions {
  signal?: AbortSignal;
  deadline?: number;
  trace?: TraceContext;
  onToken?: (text: string) => void;
  onRestart?: () => void;
}

/** A successful execution: the answering candidate, the attempts made (the successful one included), why the first candidate did not answer
 * when `fallbackUsed` (its error code, or `hedge`), and the backend ids tried in order (a first choice skipped for its open circuit included). */
export interface ExecutionOutcome {
  result: FlowExecutionResult;
  candidate: RoutingCandidate;
  attempts: number;
  fallbackUsed: boolean;
  fallbackReason?: string;
  backendsTried: string[];
}

/** Ranks candidates and executes with retry, fallback and circuit breaking, through `@afw/router`. */
export interface RouterPort {
  /** Classifies the question (unless the intent is explicit) and scores every (backend, flow) candidate; executes nothing. */
  decide(request: RoutingRequest, options?: { signal?: AbortSignal; trace?: TraceContext }): Promise<{ classification: IntentClassification; decision: RoutingDecision }>;
  execute(decision: RoutingDecision, request: ExecutionRequest, options?: ExecuteOptions): Promise<ExecutionOutcome>;
  /** Probes backends now (every one, or `backendId`) with the router's health cache, which shares the snapshots through the health store. */
  checkHealth(backendId?: string, trace?: TraceContext): Promise<BackendHealth[]>;
  /** The latest fresh health snapshot of a backend in the shared health store, if any. */
  latestHealth(backendId: string): Promise<BackendHealth | undefined>;
  /** Loads models and warms caches so the first query is fast. */
  warmUp(): Promise<void>;
  /** Rebuilds the classifier with `config.routing.intentPatterns` and the router on the next decision; learned and measured state stays
   * (it lives in the shared stores and the prior). */
  reload(config: GatewayConfig): void;
  /** Releases resources (not the backends: the registry owns them). */
  close(): Promise<void>;
}

/** Base delay of the retry backoff, and how long a health snapshot stays valid. */
const RETRY_DELAY_MS = 50;
const HEALTH_TTL_MS = 90_000;

/** Options of {@link createRouterPort}. */
export interface RouterPortOptions {
  config: GatewayConfig;
  /** The live backends; the router is rebuilt when backends are added or removed. */
  registry: BackendRegistry;
  stores: GatewayStores;
  /** Sink of background events (health probes, discovery). */
  sink?: TraceSink;
  /** @default Date.now */
  now?: () => number;
  /** The learning loop: a score adjuster (the learned routing prior) and a variant selector (A/B experiments), handed to every router built. */
  learning?: {
    scoreAdjuster?: ScoreAdjuster | undefined;
    /** Bound of the adjuster's delta per component. @default the router's (0.25) */
    maxScoreAdjustment?: number | undefined;
    variantSelector?: RoutingVariantSelector | undefined;
  };
}

/** The router's pattern configuration: built-in patterns plus `routing.intentPatterns`. */
export function routerIntentPatterns(patterns: GatewayConfig["routing"]["intentPatterns"]) {
  const intents: Record<string, Partial<IntentPatternRules>> = {};
  for (const [intent, entry] of Object.entries(patterns)) {
    if (!entry) continue;
    intents[intent] = Array.isArray(entry) ? { regex: entry.map((pattern) => ({ pattern, weight: 3, flags: "iu" })) } : entry;
  }
  return mergeIntentPatterns(DEFAULT_INTENT_PATTERNS, { intents });
}

function summarizeAttempts(attempts: readonly ExecutionAttempt[]) {
  const ran = attempts.filter((a) => a.outcome !== "skipped");
  // A first choice skipped for its open circuit is listed too: the answer is a fallback from it.
  const backendsTried = [...new Set(attempts.map((a) => a.backendId))];
  const lastFailure = [...ran].reverse().find((a) => a.outcome !== "success");
  return {
    attempts: ran.length,
    backendsTried,
    ...(lastFailure ? { lastError: { code: lastFailure.code ?? lastFailure.outcome.toUpperCase(), message: lastFailure.message ?? lastFailure.outcome } } : {}),
  };
}

/** Wires `@afw/router` into the server's {@link RouterPort}: its hybrid intent classifier, scoring with shared health/performance/circuit
 * stores, and `executeWithFallback` / `executeStream` (retry with backoff, fallback, circuit breaking, hedging). */
export function createRouterPort(options: RouterPortOptions): RouterPort {
  const { config, registry, stores } = options;
  const routing = config.routing;
  /** Retry of one candidate, for the router's own executions and for `execute` below. */
  const retry = { retries: routing.retries, baseDelayMs: RETRY_DELAY_MS };
  // One embedder for every classifier built (a reload must not load the model again).
  let embedder: Embedder | undefined;
  let sentenceEncoder: ReturnType<typeof createUseEmbedder> | undefined;
  const sentenceEmbedder = (): Embedder => createCachingEmbedder((sentenceEncoder = createUseEmbedder({ thread: "worker" })));
  const classifierEmbedder = (): Embedder =>
    (embedder ??=
      routing.classifierEmbedder === "static" || routing.classifierEmbedder === "cascade"
        ? createStaticEmbedder()
        : routing.classifierEmbedder === "hashing"
          ? createCachingEmbedder(createHashingEmbedder())
          : sentenceEmbedder());
  // The cascade's second model: the USE lite model on the process's embedding worker (closed with the port).
  let cascadeEmbedder: Embedder | undefined;
  const buildClassifier = (patterns: GatewayConfig["routing"]["intentPatterns"]): IntentClassifier =>
    createIntentClassifier({
      embedder: classifierEmbedder(),
      patterns: routerIntentPatterns(patterns),
      ...(routing.classifierEmbedder === "cascade" ? { cascade: { ...routing.cascade, embedder: (cascadeEmbedder ??= sentenceEmbedder()) } } : {}),
    });
  let classifier = buildClassifier(routing.intentPatterns);
  let classifierRevision = 0;
  const learning = options.learning ?? {};
  const background = options.sink ? newTraceContext(options.sink, { requestId: "router" }) : undefined;
  let built: { revision: number; classifierRevision: number; router: Router } | undefined;
  // The router reads the registry's flow lists: each backend is discovered once, by the registry.
  const flowSource: BackendFlowSource = {
    get: (backend, trace) => registry.backendFlows(backend.id, trace ? { trace } : {}),
    peek: (backend) => registry.peekFlows(backend.id),
    refresh: (backend, trace) => registry.backendFlows(backend.id, { refresh: true, ...(trace ? { trace } : {}) }),
  };
  const router = (): Router => {
    if (built?.revision !== registry.revision || built.classifierRevision !== classifierRevision) {
      built = {
        revision: registry.revision,
        classifierRevision,
        router: new Router({
          backends: registry.list(),
          classifier,
          weights: { ...routing.weights },
          stores: { performance: stores.performance, health: stores.health, circuits: stores.circuits },
          healthTtlMs: HEALTH_TTL_MS,
          healthProbeTimeoutMs: routing.health.timeoutMs,
          flowSource,
          circuitBreaker: { ...routing.circuitBreaker },
          execution: { retry },
          hedging: { enabled: routing.hedge },
          ...(routing.defaultFlow ? { defaultFlowId: routing.defaultFlow } : {}),
          ...(options.now ? { now: options.now } : {}),
          ...(background ? { trace: background } : {}),
          ...(learning.scoreAdjuster ? { scoreAdjuster: learning.scoreAdjuster } : {}),
          ...(learning.maxScoreAdjustment === undefined ? {} : { maxScoreAdjustment: learning.maxScoreAdjustment }),
          ...(learning.variantSelector ? { variantSelector: learning.variantSelector } : {}),
        }),
      };
    }
    return built.router;
  };
  const attemptTimeoutMs = Math.max(...config.backends.map((b) => b.requestTimeoutMs), 30_000);
  const toOutcome = (outcome: RouterExecutionOutcome): ExecutionOutcome => {
    const summary = summarizeAttempts(outcome.attempts);
    return {
      result: outcome.result,
      candidate: outcome.candidate,
      attempts: summary.attempts,
      fallbackUsed: outcome.fallbackUsed,
      ...(outcome.fallbackReason === undefined ? {} : { fallbackReason: outcome.fallbackReason }),
      backendsTried: summary.backendsTried,
    };
  };
  return {
    async warmUp() {
      await Promise.all([classifier.warmUp(), router().warmUp(background)]);
    },
    checkHealth(backendId, trace) {
      const current = router();
      const targets = registry.list().filter((backend) => backendId === undefined || backend.id === backendId);
      return Promise.all(targets.map((backend) => current.health.refresh(backend, trace ?? background)));
    },
    latestHealth: (backendId) => stores.health.get(backendId).catch(() => undefined),
    async decide(request, decideOptions = {}) {
      const explanation = await router().explain(request.question, {
        intent: request.intent ?? "auto",
        backend: request.backend ?? "auto",
        ...(request.flowId === undefined ? {} : { flowId: request.flowId }),
        ...(request.allowFallback ? { allowFallback: true } : {}),
        ...(decideOptions.trace ? { trace: decideOptions.trace } : {}),
        ...(decideOptions.signal ? { signal: decideOptions.signal } : {}),
      });
      return { classification: explanation.classification, decision: explanation.decision };
    },
    async execute(decision, request, executeOptions = {}) {
      const current = router();
      const remaining = executeOptions.deadline === undefined ? undefined : Math.max(1, executeOptions.deadline - Date.now());
      // The backends of this call stay open until it settles, even when a reload replaces one.
      const lease = registry.lease();
      const options = {
        backends: lease.backends,
        circuitBreaker: current.circuits,
        performance: current.performance,
        health: current.health,
        attemptTimeoutMs,
        ...(remaining === undefined ? {} : { overallTimeoutMs: remaining }),
        retry,
        intent: decision.intent,
        ...(executeOptions.trace ? { trace: executeOptions.trace } : {}),
        ...(executeOptions.signal ? { signal: executeOptions.signal } : {}),
      };
      const { stream: _stream, ...flowRequest } = { ...request, ...(remaining === undefined ? {} : { timeoutMs: remaining }) };
      try {
        if (request.stream && executeOptions.onToken) {
          // @afw/router restarts a stream that breaks after its first token (retry, then fallback, within the deadline,
          // at most maxCandidates times): forward tokens and announce each restart.
          const stream = executeStream(decision, flowRequest, { ...options, hedge: false });
          for (;;) {
            const next = await stream.next();
            if (next.done) {
              if (!next.value) throw new AfwError("ALL_BACKENDS_FAILED", "the stream ended without an answer");
              return toOutcome(next.value);
            }
            const chunk = next.value;
            if (chunk.type === "token" && chunk.text) executeOptions.onToken(chunk.text);
            else if (chunk.type === "restart") executeOptions.onRestart?.();
          }
        }
        return toOutcome(await executeWithFallback(decision, flowRequest, options));
      } catch (error) {
        if (AfwError.isInstance(error) && Array.isArray(error.details?.["attempts"])) {
          throw new AfwError(error.code, error.message, {
            cause: error,
            details: { ...error.details, ...summarizeAttempts(error.details["attempts"] as ExecutionAttempt[]) },
          });
        }
        throw error;
      } finally {
        lease.release();
      }
    },
    reload(next) {
      classifier = buildClassifier(next.routing.intentPatterns);
      classifierRevision++;
    },
    async close() {
      // Backends belong to the registry; the embedding worker thread is the router's.
      await sentenceEncoder?.close();
    },
  };
}
