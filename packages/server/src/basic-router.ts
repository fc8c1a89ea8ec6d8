import {
  AfwError,
  BackendError,
  emitTrace,
  toAfwError,
  type CircuitState,
  type CircuitStateStore,
  type ConfidenceLevel,
  type FlowExecutionRequest,
  type FlowExecutionResult,
  type HealthStore,
  type Intent,
  type IntentClassification,
  type PerformanceStore,
  type RoutingCandidate,
  type RoutingDecision,
  type ScoreBreakdown,
  type ScoringWeights,
  type TraceContext,
  type UniversalFlow,
} from "@afw/contracts";
import type { BackendRegistry } from "./backend-registry.js";
import type { RoutingConfig } from "./config-schema.js";
import type { ExecuteOptions, ExecutionOutcome, ExecutionRequest, IntentClassifierPort, RouterPort, RoutingOutcome, RoutingRequest } from "./ports.js";

/** Default per-kind capability scores (0..1) used when a backend declares none. */
export const DEFAULT_CAPABILITIES: Readonly<Record<string, Partial<Record<Intent, number>>>> = {
  flowise: { conversation: 0.9, "rag-retrieval": 0.9, "technical-analysis": 0.7, "creative-orientation": 0.7, "structural-thinking": 0.6, "data-processing": 0.5 },
  langflow: { "data-processing": 0.9, "structural-thinking": 0.8, "technical-analysis": 0.8, "rag-retrieval": 0.7, "creative-orientation": 0.6, conversation: 0.6 },
};

/** Options of {@link createBasicRouter}. */
export interface BasicRouterOptions {
  registry: BackendRegistry;
  healthStore: HealthStore;
  performanceStore: PerformanceStore;
  circuitStore: CircuitStateStore;
  /** Routing settings (weights, thresholds, retries, circuit breaker). */
  routing: RoutingConfig;
  /** Classifies questions whose intent is `auto`. */
  classifier: IntentClassifierPort;
  /** Per-backend request timeouts (ms), by backend id. */
  requestTimeoutMs?: (backendId: string) => number | undefined;
  /** @default Date.now */
  now?: () => number;
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;

function confidenceLevel(confidence: number, thresholds: RoutingConfig["thresholds"]): ConfidenceLevel {
  if (confidence >= thresholds.high) return "high";
  if (confidence >= thresholds.medium) return "medium";
  if (confidence >= thresholds.low) return "low";
  return "none";
}

function flowMatch(flow: UniversalFlow, intent: Intent, question: string): number {
  if (flow.intents[0] === intent) return 1;
  if (flow.intents.includes(intent)) return 0.7;
  const lower = question.toLowerCase();
  if (flow.keywords.some((keyword) => keyword.length > 1 && lower.includes(keyword.toLowerCase()))) return 0.7;
  if (flow.generalPurpose || flow.intents.length === 0) return 0.3;
  return 0;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * The server's built-in router: scores every (backend, flow) as DESIGN.md describes
 * (`w_flow·flow_match + w_health·health + w_perf·performance + w_cap·capability`), and executes
 * the ranking with a per-attempt timeout, one retry on retryable errors, fallback to the next
 * candidates and a shared circuit breaker per backend. `@afw/router` is the full implementation
 * (semantic classification, hedging, recency decay); this one keeps the server usable on its own.
 *
 * @example
 * ```ts
 * const router = createBasicRouter({ registry, healthStore, performanceStore, circuitStore, routing: config.routing, classifier });
 * const { decision } = await router.decide({ question });
 * const outcome = await router.execute(decision, { question });
 * ```
 */
export function createBasicRouter(options: BasicRouterOptions): RouterPort {
  const now = options.now ?? Date.now;
  const { routing, registry } = options;
  const weights: ScoringWeights = { ...routing.weights };

  const performanceScore = async (backendId: string, flowId: string): Promise<number> => {
    let samples = await options.performanceStore.window({ backendId, flowId }).catch(() => []);
    if (samples.length === 0) samples = await options.performanceStore.window({ backendId }).catch(() => []);
    if (samples.length === 0) return 0.5;
    const successes = samples.filter((s) => s.success).length;
    const latencies = samples.filter((s) => s.success).map((s) => s.latencyMs).sort((a, b) => a - b);
    const p50 = percentile(latencies, 50);
    return (successes / samples.length) * (1 / (1 + p50 / 2_000));
  };

  const circuitOpen = (state: CircuitState | undefined, at: number) => state?.state === "open" && (state.nextProbeAt ?? 0) > at;

  const decide = async (request: RoutingRequest, decideOptions: { signal?: AbortSignal; trace?: TraceContext } = {}): Promise<RoutingOutcome> => {
    const started = performance.now();
    const requested = request.intent ?? "auto";
    let classification: IntentClassification;
    if (requested !== "auto") {
      classification = { intent: requested, confidence: 1, method: "explicit", alternatives: [] };
      emitTrace(decideOptions.trace, "intent-classified", { intent: requested, confidence: 1, method: "explicit", alternatives: [], durationMs: 0 });
    } else {
      classification = await options.classifier.classify(request.question, decideOptions);
    }
    const intent = classification.intent;
    const level = confidenceLevel(classification.confidence, routing.thresholds);
    const backendFilter = request.backend && request.backend !== "auto" ? request.backend : undefined;
    let flows = await registry.flows({ ...(decideOptions.signal ? { signal: decideOptions.signal } : {}), ...(decideOptions.trace ? { trace: decideOptions.trace } : {}) });
    if (backendFilter) flows = flows.filter((flow) => flow.backendId === backendFilter || flow.backendKind === backendFilter);
    if (request.flowId) flows = flows.filter((flow) => flow.id === request.flowId || flow.backendFlowId === request.flowId);

    const at = now();
    const backendIds = [...new Set(flows.map((flow) => flow.backendId))];
    const [healths, circuits] = await Promise.all([
      Promise.all(backendIds.map((id) => options.healthStore.get(id).catch(() => undefined))),
      Promise.all(backendIds.map((id) => options.circuitStore.get(id).catch(() => undefined))),
    ]);
    const healthById = new Map(backendIds.map((id, i) => [id, healths[i]]));
    const circuitById = new Map(backendIds.map((id, i) => [id, circuits[i]]));

    const scored = await Promise.all(
      flows.map(async (flow) => {
        const health = healthById.get(flow.backendId);
        const backend = registry.get(flow.backendId)?.backend;
        const breakdown: ScoreBreakdown = {
          flow_match: flowMatch(flow, intent, request.question),
          health: health === undefined ? 0.7 : health.status === "healthy" ? 1 : health.status === "slow" ? 0.5 : 0,
          performance: round(await performanceScore(flow.backendId, flow.id)),
          capability: backend?.capabilities?.[intent] ?? DEFAULT_CAPABILITIES[flow.backendKind]?.[intent] ?? 0.5,
        };
        const score = round(
          weights.flow_match * breakdown.flow_match + weights.health * breakdown.health + weights.performance * breakdown.performance + weights.capability * breakdown.capability,
        );
        const excluded = !backend ? "backend removed" : circuitOpen(circuitById.get(flow.backendId), at) ? "circuit open" : undefined;
        return { flow, score, breakdown, excluded };
      }),
    );

    let strategy: RoutingDecision["strategy"] = request.flowId ? "override" : "direct";
    const preferred = (entry: (typeof scored)[number]): number => {
      if (strategy === "default-flow") return entry.flow.id === routing.defaultFlow ? 1 : 0;
      if (strategy === "general-purpose") return entry.flow.generalPurpose ? 1 : 0;
      return 0;
    };
    if (!request.flowId && classification.method !== "explicit") {
      if (level === "none" && routing.defaultFlow && scored.some((s) => s.flow.id === routing.defaultFlow && !s.excluded)) strategy = "default-flow";
      else if ((level === "low" || level === "none") && scored.some((s) => s.flow.generalPurpose && !s.excluded)) strategy = "general-purpose";
    }
    scored.sort((a, b) => Number(!!a.excluded) - Number(!!b.excluded) || preferred(b) - preferred(a) || b.score - a.score || a.flow.id.localeCompare(b.flow.id));

    const candidates: RoutingCandidate[] = scored.map((entry, index) => ({
      backendId: entry.flow.backendId,
      backendKind: entry.flow.backendKind,
      flowId: entry.flow.id,
      backendFlowId: entry.flow.backendFlowId,
      flowName: entry.flow.name,
      score: entry.score,
      breakdown: entry.breakdown,
      rank: index + 1,
      ...(entry.excluded ? { excluded: entry.excluded } : {}),
    }));
    const first = candidates.find((candidate) => !candidate.excluded);
    const chosen = first ? { backendId: first.backendId, flowId: first.flowId, backendFlowId: first.backendFlowId } : null;
    let reason: string;
    if (!first) {
      reason =
        flows.length === 0
          ? backendFilter || request.flowId
            ? `no flow matches${backendFilter ? ` backend '${backendFilter}'` : ""}${request.flowId ? ` flow '${request.flowId}'` : ""}`
            : "no backend has any flow"
          : "every candidate is excluded (circuit open)";
    } else {
      const what = `${first.flowName} on ${first.backendId} (score ${first.score.toFixed(3)})`;
      reason =
        strategy === "override"
          ? `flow requested explicitly: ${what}`
          : strategy === "default-flow"
            ? `intent unclear (confidence ${classification.confidence.toFixed(2)}): default flow ${what}`
            : strategy === "general-purpose"
              ? `low confidence (${classification.confidence.toFixed(2)}) in ${intent}: general-purpose flow ${what}`
              : `${intent} (${level} confidence ${classification.confidence.toFixed(2)}): best score ${what}`;
    }
    const decision: RoutingDecision = {
      intent,
      confidence: classification.confidence,
      confidenceLevel: level,
      method: classification.method,
      alternatives: classification.alternatives,
      weights,
      candidates,
      chosen,
      strategy,
      reason,
      decidedInMs: round(performance.now() - started),
    };
    if ((strategy === "general-purpose" || strategy === "default-flow") && decideOptions.trace) {
      emitTrace(decideOptions.trace, "router-low-confidence", { intent, confidence: classification.confidence, threshold: routing.thresholds.low, strategy });
    }
    emitTrace(decideOptions.trace, "routing-decided", { decision });
    return { classification, decision };
  };

  const recordCircuit = async (backendId: string, success: boolean, trace: ExecuteOptions["trace"]) => {
    const at = now();
    const current = await options.circuitStore.get(backendId).catch(() => undefined);
    if (success) {
      if (current && (current.state !== "closed" || current.failures > 0)) {
        await options.circuitStore.set({ key: backendId, state: "closed", failures: 0, updatedAt: at }).catch(() => undefined);
        if (current.state !== "closed") emitTrace(trace, "circuit-closed", { key: backendId, backendId });
      }
      return;
    }
    const failures = (current?.failures ?? 0) + 1;
    const reopen = current?.state === "half-open" || current?.state === "open";
    if (reopen || failures >= routing.circuitBreaker.failureThreshold) {
      const cooldownMs = routing.circuitBreaker.cooldownMs;
      await options.circuitStore.set({ key: backendId, state: "open", failures, openedAt: at, nextProbeAt: at + cooldownMs, updatedAt: at }).catch(() => undefined);
      emitTrace(trace, "circuit-opened", { key: backendId, backendId, failures, cooldownMs });
    } else {
      await options.circuitStore.set({ key: backendId, state: "closed", failures, updatedAt: at }).catch(() => undefined);
    }
  };

  const runAttempt = async (
    candidate: RoutingCandidate,
    request: ExecutionRequest,
    signal: AbortSignal,
    executeOptions: ExecuteOptions,
    onFirstToken: () => void,
  ): Promise<FlowExecutionResult> => {
    const backend = registry.get(candidate.backendId)?.backend;
    if (!backend) throw new BackendError("BACKEND_UNAVAILABLE", `backend '${candidate.backendId}' is no longer registered`, { backendId: candidate.backendId, isRetryable: false });
    const flowRequest: FlowExecutionRequest = {
      flowId: candidate.backendFlowId,
      question: request.question,
      ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
      ...(request.history && request.history.length > 0 ? { history: request.history } : {}),
      ...(request.parameters && Object.keys(request.parameters).length > 0 ? { parameters: request.parameters } : {}),
      ...(request.requestId === undefined ? {} : { requestId: request.requestId }),
    };
    if (request.stream && backend.stream && executeOptions.onToken) {
      let result: FlowExecutionResult | undefined;
      for await (const chunk of backend.stream(flowRequest, signal)) {
        if (chunk.type === "token" && chunk.text) {
          onFirstToken();
          executeOptions.onToken(chunk.text);
        } else if (chunk.type === "end") {
          result = chunk.result;
        }
      }
      if (!result) throw new BackendError("BACKEND_BAD_RESPONSE", `stream of '${candidate.backendId}' ended without a result`, { backendId: candidate.backendId });
      return result;
    }
    return backend.execute(flowRequest, signal);
  };

  const execute = async (decision: RoutingDecision, request: ExecutionRequest, executeOptions: ExecuteOptions = {}): Promise<ExecutionOutcome> => {
    const trace = executeOptions.trace;
    const usable = decision.candidates.filter((candidate) => !candidate.excluded).slice(0, routing.maxCandidates);
    if (usable.length === 0) {
      throw new AfwError("NO_BACKENDS_AVAILABLE", `no backend can answer: ${decision.reason}`, { details: { attempts: 0, backendsTried: [] } });
    }
    const tried: string[] = [];
    let attempts = 0;
    let lastError: AfwError | undefined;
    let tokensSent = false;
    const outer = executeOptions.signal;

    for (let index = 0; index < usable.length; index++) {
      const candidate = usable[index]!;
      for (let retry = 0; retry <= routing.retries; retry++) {
        const remaining = executeOptions.deadline === undefined ? Number.POSITIVE_INFINITY : executeOptions.deadline - now();
        if (outer?.aborted) throw new AfwError("ABORTED", "the request was cancelled", { details: { attempts, backendsTried: tried } });
        if (remaining <= 0) {
          throw new AfwError("BACKEND_TIMEOUT", "the query timed out", { details: { attempts, backendsTried: tried, ...(lastError ? { lastError: lastError.toJSON() } : {}) } });
        }
        const circuit = await options.circuitStore.get(candidate.backendId).catch(() => undefined);
        if (circuit?.state === "open") {
          if ((circuit.nextProbeAt ?? 0) > now()) break; // opened meanwhile: skip this candidate
          await options.circuitStore.set({ ...circuit, state: "half-open", updatedAt: now() }).catch(() => undefined);
          emitTrace(trace, "circuit-half-opened", { key: candidate.backendId, backendId: candidate.backendId });
        }
        attempts++;
        if (!tried.includes(candidate.backendId)) tried.push(candidate.backendId);
        const attemptTimeout = Math.min(remaining, options.requestTimeoutMs?.(candidate.backendId) ?? Number.POSITIVE_INFINITY);
        const controller = new AbortController();
        const onOuterAbort = () => controller.abort(new AfwError("ABORTED", "the request was cancelled"));
        outer?.addEventListener("abort", onOuterAbort, { once: true });
        let timedOut = false;
        const timer = Number.isFinite(attemptTimeout)
          ? setTimeout(() => {
              timedOut = true;
              controller.abort(new BackendError("BACKEND_TIMEOUT", `${candidate.backendId} did not answer within ${Math.round(attemptTimeout)} ms`, { backendId: candidate.backendId }));
            }, attemptTimeout)
          : undefined;
        if (tokensSent) {
          executeOptions.onRestart?.();
          tokensSent = false;
        }
        const started = now();
        emitTrace(trace, "backend-call-start", { backendId: candidate.backendId, flowId: candidate.flowId, attempt: attempts, streaming: !!request.stream });
        try {
          const abortPromise = new Promise<never>((_, reject) => {
            controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
          });
          abortPromise.catch(() => undefined);
          const result = await Promise.race([runAttempt(candidate, request, controller.signal, executeOptions, () => (tokensSent = true)), abortPromise]);
          const latencyMs = Math.max(0, now() - started);
          emitTrace(trace, "backend-call-end", { backendId: candidate.backendId, flowId: candidate.flowId, attempt: attempts, latencyMs, outcome: "success" });
          executeOptions.onAttempt?.({ backendId: candidate.backendId, flowId: candidate.flowId, latencyMs, success: true, timestamp: now() });
          await recordCircuit(candidate.backendId, true, trace);
          return { result, candidate, attempts, fallbackUsed: index > 0, backendsTried: tried };
        } catch (error) {
          const latencyMs = Math.max(0, now() - started);
          let afw = toAfwError(error, "BACKEND_UNAVAILABLE");
          if (timedOut && afw.code !== "BACKEND_TIMEOUT") afw = new BackendError("BACKEND_TIMEOUT", `${candidate.backendId} did not answer in time`, { backendId: candidate.backendId, cause: error });
          const cancelled = outer?.aborted === true;
          const outcome = cancelled ? "aborted" : afw.code === "BACKEND_TIMEOUT" ? "timeout" : "error";
          emitTrace(trace, "backend-call-end", {
            backendId: candidate.backendId,
            flowId: candidate.flowId,
            attempt: attempts,
            latencyMs,
            outcome,
            errorCode: afw.code,
            ...(BackendError.isInstance(afw) && afw.statusCode !== undefined ? { statusCode: afw.statusCode } : {}),
          });
          if (cancelled) throw new AfwError("ABORTED", "the request was cancelled", { details: { attempts, backendsTried: tried } });
          executeOptions.onAttempt?.({ backendId: candidate.backendId, flowId: candidate.flowId, latencyMs, success: false, timestamp: now(), errorCode: afw.code });
          await recordCircuit(candidate.backendId, false, trace);
          lastError = afw;
          const retryable = BackendError.isInstance(afw) ? afw.isRetryable : afw.code === "BACKEND_TIMEOUT" || afw.code === "BACKEND_UNAVAILABLE";
          if (retryable && retry < routing.retries && (executeOptions.deadline === undefined || executeOptions.deadline - now() > routing.retryDelayMs)) {
            emitTrace(trace, "retry-scheduled", { backendId: candidate.backendId, flowId: candidate.flowId, attempt: attempts + 1, delayMs: routing.retryDelayMs, errorCode: afw.code });
            await abortableDelay(routing.retryDelayMs, outer ?? new AbortController().signal);
            continue;
          }
          break;
        } finally {
          if (timer) clearTimeout(timer);
          outer?.removeEventListener("abort", onOuterAbort);
        }
      }
      const next = usable[index + 1];
      if (next) {
        emitTrace(trace, "fallback-triggered", {
          fromBackendId: candidate.backendId,
          fromFlowId: candidate.flowId,
          toBackendId: next.backendId,
          toFlowId: next.flowId,
          reason: lastError?.code ?? "CIRCUIT_OPEN",
        });
      }
    }
    const deadlinePassed = executeOptions.deadline !== undefined && executeOptions.deadline - now() <= 0;
    throw new AfwError(
      deadlinePassed ? "BACKEND_TIMEOUT" : "ALL_BACKENDS_FAILED",
      deadlinePassed ? "the query timed out" : `all ${tried.length} backend(s) tried failed${lastError ? `; last error: ${lastError.code}` : ""}`,
      { details: { attempts, backendsTried: tried, ...(lastError ? { lastError: lastError.toJSON() } : {}) } },
    );
  };

  return { decide, execute };
}
