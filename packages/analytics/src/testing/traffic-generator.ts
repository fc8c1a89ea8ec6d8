import {
  DEFAULT_SCORING_WEIGHTS,
  type ClassificationMethod,
  type ConfidenceLevel,
  type Intent,
  type IntentAlternative,
  type RoutingCandidate,
  type RoutingDecision,
  type ScoreBreakdown,
  type ScoringWeights,
} from "@afw/contracts";
import type { AuditEvent } from "../audit-event.js";

/** One call of a synthetic flow, passed to its {@link SyntheticFlow.behaviour}. */
export interface SyntheticCall {
  /** Gateway-wide flow id. */
  flowId: string;
  intent: Intent;
  /** How many calls this flow received before this one (0-based). */
  index: number;
  /** Attempt number within the query's candidate (1, or 2 for a retry). */
  attempt: number;
  /** Epoch milliseconds the call starts at. */
  at: number;
}

/** What one synthetic call does. */
export interface SyntheticOutcome {
  ok: boolean;
  latencyMs: number;
  /** Error code of a failed call. @default "BACKEND_UNAVAILABLE" (or "BACKEND_TIMEOUT" for a timeout) */
  errorCode?: string | undefined;
  /** How a failed call ended. @default "error" */
  outcome?: "error" | "timeout" | undefined;
}

/** A flow of the synthetic gateway. */
export interface SyntheticFlow {
  /** Gateway-wide flow id, `<backendId>:<backendFlowId>`. */
  flowId: string;
  name?: string | undefined;
  /** @default "flowise" */
  backendKind?: string | undefined;
  /** Intents it serves, best first (first: flow_match 1, others 0.7). */
  intents: Intent[];
  /** Catch-all flow (flow_match 0.3 for other intents). */
  generalPurpose?: boolean | undefined;
  /** Score components besides flow_match. @default { health: 1, performance: 0.5, capability: 0.5 } */
  health?: number | undefined;
  performance?: number | undefined;
  capability?: number | undefined;
  /** What each call does. @default success in 100 ms */
  behaviour?: ((call: SyntheticCall) => SyntheticOutcome) | undefined;
}

/** The text of a query, kept beside the audit log (trace events carry only its length). */
export interface QuestionText {
  traceId: string;
  question: string;
}

/** Options of {@link createTrafficGenerator}. */
export interface TrafficGeneratorOptions {
  flows: readonly SyntheticFlow[];
  /** Epoch milliseconds of the first query. @default 2025-01-01T00:00:00Z */
  start?: number | undefined;
  /** The clock moves this far after each query. @default 1000 */
  intervalMs?: number | undefined;
  /** Receives every event as it is generated (e.g. an audit log, a learned prior, a fan-out). */
  sink?: { emit(event: AuditEvent): void } | undefined;
  /** Learned adjustments added to each candidate's breakdown before ranking. */
  prior?: { adjust(intent: Intent, flowId: string): { flow_match: number; performance: number } } | undefined;
  /** @default DEFAULT_SCORING_WEIGHTS */
  weights?: ScoringWeights | undefined;
  /** Most candidates tried per query. @default 3 */
  maxCandidates?: number | undefined;
  /** Retry a failed call once on the same flow before falling back. @default false */
  retryOnce?: boolean | undefined;
  /** Prefix of trace and request ids. @default "syn-" */
  idPrefix?: string | undefined;
}

/** One synthetic query. */
export interface SyntheticQuery {
  intent: Intent;
  /** @default a template question of the intent */
  question?: string | undefined;
  /** Classification confidence. @default 0.9 */
  confidence?: number | undefined;
  method?: ClassificationMethod | undefined;
  alternatives?: IntentAlternative[] | undefined;
  sessionId?: string | undefined;
  /** Serve it from the cache (no classification, no backend call). */
  cacheHit?: boolean | "semantic" | undefined;
  /** Try exactly these flows in this order instead of ranking. */
  route?: readonly string[] | undefined;
  /**
   * Called once the query's ids are known, before its first event (e.g. for an A/B assignment);
   * may return a `route` that overrides the ranking (e.g. the variant arm's strategy).
   */
  beforeEvents?:
    | ((ids: { traceId: string; requestId: string; sessionId?: string | undefined; at: number }) => void | { route?: readonly string[] | undefined })
    | undefined;
  /** Start time. @default the generator's clock */
  at?: number | undefined;
}

/** What happened to one synthetic query. */
export interface SyntheticQueryResult {
  traceId: string;
  requestId: string;
  sessionId?: string | undefined;
  question: string;
  intent: Intent;
  confidence: number;
  /** Epoch milliseconds it started at. */
  at: number;
  /** Its events, in order. */
  events: AuditEvent[];
  ok: boolean;
  cacheHit: boolean;
  answeredFlowId?: string | undefined;
  fallbackUsed: boolean;
  /** Its backend calls, in order. */
  calls: Array<{ flowId: string; ok: boolean; latencyMs: number; errorCode?: string | undefined }>;
  durationMs: number;
  /** The routing decision (not for cache hits). */
  decision?: RoutingDecision | undefined;
}

/** Generates trace events the way the gateway emits them, for tests and demos. */
export interface TrafficGenerator {
  /** Runs one query and returns what happened; its events go to the sink. */
  query(input: SyntheticQuery): SyntheticQueryResult;
  /** Runs `count` queries, `make(i)` describing the i-th. */
  run(count: number, make: (index: number) => SyntheticQuery): SyntheticQueryResult[];
  /** The generator's clock (epoch ms). */
  now(): number;
  /** Moves the clock forward. */
  advance(ms: number): void;
  /** Every event generated so far, in order. */
  readonly events: readonly AuditEvent[];
  /** Every query result so far. */
  readonly results: readonly SyntheticQueryResult[];
  /** The question text of every query (the side channel of `pattern_analysis`). */
  questions(): QuestionText[];
  /** Calls made to a flow so far. */
  callCount(flowId: string): number;
}

const TEMPLATES: Record<Intent, readonly string[]> = {
  "technical-analysis": [
    "Why does my TypeScript build fail with TS2307?",
    "How do I fix a null pointer exception in this Java method?",
    "Debug this failing Jest test for the login API",
  ],
  "rag-retrieval": ["What does the handbook say about parental leave?", "Find the onboarding checklist in our docs", "Which policy covers travel expenses?"],
  "structural-thinking": ["How should I structure a monorepo for five services?", "Design the module boundaries of our billing system", "Plan the architecture of an event pipeline"],
  "creative-orientation": ["Write a short story about a lighthouse keeper", "Brainstorm names for a coffee brand", "Envision our product five years from now"],
  "data-processing": ["Convert this CSV to JSON and drop empty rows", "Write a SQL query that sums revenue per month", "Clean the duplicated customer records"],
  conversation: ["How are you today?", "Tell me a fun fact", "What's a good way to relax after work?"],
};

const levelOf = (confidence: number): ConfidenceLevel => (confidence >= 0.8 ? "high" : confidence >= 0.5 ? "medium" : confidence >= 0.3 ? "low" : "none");
const unit = (value: number) => Math.max(0, Math.min(1, value));

/**
 * Creates a synthetic gateway: it classifies nothing and calls nothing, but ranks the given
 * flows like the router (flow_match 1/0.7/0.3/0, weighted score, optional learned prior), runs
 * each flow's scripted `behaviour`, and emits exactly the trace events the gateway emits for the
 * same story — `query-received`, `cache-miss`/`cache-hit`, `intent-classified`,
 * `router-low-confidence`, `routing-decided` (full decision), `backend-call-start`/`-end`,
 * `retry-scheduled`, `fallback-triggered`, `query-answered`/`query-failed` — with timestamps from
 * its own clock. Deterministic.
 *
 * @example
 * ```ts
 * const traffic = createTrafficGenerator({
 *   flows: [
 *     { flowId: "flowise:fast", intents: ["technical-analysis"] },
 *     { flowId: "flowise:flaky", intents: ["technical-analysis"], behaviour: ({ index }) => ({ ok: index % 4 !== 0, latencyMs: 900 }) },
 *   ],
 *   sink: auditLog,
 * });
 * traffic.run(100, () => ({ intent: "technical-analysis" }));
 * ```
 */
export function createTrafficGenerator(options: TrafficGeneratorOptions): TrafficGenerator {
  const flows = options.flows.map((flow) => ({ ...flow, backendId: flow.flowId.includes(":") ? flow.flowId.slice(0, flow.flowId.indexOf(":")) : flow.flowId }));
  const weights = options.weights ?? { ...DEFAULT_SCORING_WEIGHTS };
  const maxCandidates = Math.max(1, options.maxCandidates ?? 3);
  const intervalMs = options.intervalMs ?? 1000;
  const prefix = options.idPrefix ?? "syn-";
  let clock = options.start ?? Date.UTC(2025, 0, 1);
  let counter = 0;
  const calls = new Map<string, number>();
  const events: AuditEvent[] = [];
  const results: SyntheticQueryResult[] = [];
  const lastAnswered = new Map<Intent, string>();

  const rank = (intent: Intent): RoutingCandidate[] => {
    const scored = flows.map((flow, index) => {
      const flowMatch = flow.intents[0] === intent ? 1 : flow.intents.includes(intent) ? 0.7 : flow.generalPurpose ? 0.3 : 0;
      let breakdown: ScoreBreakdown = {
        flow_match: flowMatch,
        health: flow.health ?? 1,
        performance: flow.performance ?? 0.5,
        capability: flow.capability ?? 0.5,
      };
      if (options.prior && flowMatch > 0) {
        const adjustment = options.prior.adjust(intent, flow.flowId);
        breakdown = { ...breakdown, flow_match: unit(breakdown.flow_match + adjustment.flow_match), performance: unit(breakdown.performance + adjustment.performance) };
      }
      const score =
        weights.flow_match * breakdown.flow_match + weights.health * breakdown.health + weights.performance * breakdown.performance + weights.capability * breakdown.capability;
      return { flow, index, breakdown, score: Math.round(score * 10_000) / 10_000 };
    });
    scored.sort((a, b) => b.score - a.score || a.index - b.index);
    return scored.map((entry, i) => ({
      backendId: entry.flow.backendId,
      backendKind: entry.flow.backendKind ?? "flowise",
      flowId: entry.flow.flowId,
      backendFlowId: entry.flow.flowId.slice(entry.flow.backendId.length + 1) || entry.flow.flowId,
      flowName: entry.flow.name ?? entry.flow.flowId,
      score: entry.score,
      breakdown: entry.breakdown,
      rank: i + 1,
    }));
  };

  const query = (input: SyntheticQuery): SyntheticQueryResult => {
    const n = ++counter;
    const traceId = `${prefix}t${n}`;
    const requestId = `${prefix}r${n}`;
    const start = input.at ?? clock;
    const templates = TEMPLATES[input.intent];
    const question = input.question ?? templates[n % templates.length]!;
    const confidence = input.confidence ?? 0.9;
    const own: AuditEvent[] = [];
    let time = start;
    const emit = (type: string, payload: Record<string, unknown>, at = time) => {
      const event = {
        ...payload,
        type,
        traceId,
        requestId,
        ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
        timestamp: new Date(at).toISOString(),
      } as unknown as AuditEvent;
      own.push(event);
      events.push(event);
      options.sink?.emit(event);
    };
    const override = input.beforeEvents?.({ traceId, requestId, sessionId: input.sessionId, at: start });
    const route = (override && override.route) ?? input.route;
    emit("query-received", { tool: "universal_query", questionLength: question.length });
    const result: SyntheticQueryResult = {
      traceId,
      requestId,
      ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
      question,
      intent: input.intent,
      confidence,
      at: start,
      events: own,
      ok: false,
      cacheHit: false,
      fallbackUsed: false,
      calls: [],
      durationMs: 0,
    };

    if (input.cacheHit) {
      const flowId = route?.[0] ?? lastAnswered.get(input.intent) ?? rank(input.intent)[0]?.flowId ?? "unknown:flow";
      const backendId = flowId.includes(":") ? flowId.slice(0, flowId.indexOf(":")) : flowId;
      const kind = input.cacheHit === "semantic" ? "semantic" : "exact";
      time += 1;
      emit("cache-hit", { scope: input.sessionId === undefined ? "shared" : "session", flowId, kind, ...(kind === "semantic" ? { similarity: 0.95 } : {}) });
      time += 1;
      emit("query-answered", { backendId, flowId, durationMs: time - start, attempts: 0, fallbackUsed: false, cacheHit: kind === "semantic" ? "semantic" : true });
      Object.assign(result, { ok: true, cacheHit: true, answeredFlowId: flowId, durationMs: time - start });
      results.push(result);
      if (input.at === undefined) clock += intervalMs;
      return result;
    }

    emit("cache-miss", { scope: input.sessionId === undefined ? "shared" : "session", reason: "absent" });
    time += 1;
    const method = input.method ?? "hybrid";
    const alternatives = input.alternatives ?? [];
    emit("intent-classified", { intent: input.intent, confidence, method, alternatives, durationMs: 1 });
    time += 1;
    const level = levelOf(confidence);
    let candidates = rank(input.intent);
    if (route) {
      const order = route;
      candidates = candidates
        .filter((c) => order.includes(c.flowId))
        .sort((a, b) => order.indexOf(a.flowId) - order.indexOf(b.flowId))
        .map((c, i) => ({ ...c, rank: i + 1 }));
    }
    const usable = (route ? candidates : candidates.filter((c) => c.breakdown.flow_match > 0)).slice(0, maxCandidates);
    const first = usable[0];
    const decision: RoutingDecision = {
      intent: input.intent,
      confidence,
      confidenceLevel: level,
      method,
      alternatives,
      weights: { ...weights },
      candidates,
      chosen: first ? { backendId: first.backendId, flowId: first.flowId, backendFlowId: first.backendFlowId } : null,
      strategy: route ? "override" : level === "low" || level === "none" ? "general-purpose" : "direct",
      reason: first ? `chose ${first.flowName} on ${first.backendId} (score ${first.score.toFixed(3)})` : "no candidate",
      decidedInMs: 1,
    };
    result.decision = decision;
    if (level === "low" || level === "none") {
      emit("router-low-confidence", { intent: input.intent, confidence, threshold: level === "low" ? 0.5 : 0.3, strategy: "general-purpose" });
    }
    emit("routing-decided", { decision });
    time += 1;

    let attempts = 0;
    let answered: RoutingCandidate | undefined;
    let lastFailed: { candidate: RoutingCandidate; code: string } | undefined;
    for (const candidate of usable) {
      if (lastFailed) {
        emit("fallback-triggered", {
          fromBackendId: lastFailed.candidate.backendId,
          fromFlowId: lastFailed.candidate.flowId,
          toBackendId: candidate.backendId,
          toFlowId: candidate.flowId,
          reason: lastFailed.code,
        });
        result.fallbackUsed = true;
      }
      const tries = options.retryOnce ? 2 : 1;
      const flow = flows.find((f) => f.flowId === candidate.flowId)!;
      let succeeded = false;
      for (let attempt = 1; attempt <= tries; attempt++) {
        attempts++;
        const index = calls.get(flow.flowId) ?? 0;
        calls.set(flow.flowId, index + 1);
        const outcome = (flow.behaviour ?? (() => ({ ok: true, latencyMs: 100 })))({ flowId: flow.flowId, intent: input.intent, index, attempt, at: time });
        emit("backend-call-start", { backendId: candidate.backendId, flowId: candidate.flowId, attempt: attempts, streaming: false });
        time += outcome.latencyMs;
        const ended = outcome.ok ? "success" : (outcome.outcome ?? "error");
        const errorCode = outcome.ok ? undefined : (outcome.errorCode ?? (ended === "timeout" ? "BACKEND_TIMEOUT" : "BACKEND_UNAVAILABLE"));
        emit("backend-call-end", {
          backendId: candidate.backendId,
          flowId: candidate.flowId,
          attempt: attempts,
          latencyMs: outcome.latencyMs,
          outcome: ended,
          ...(errorCode === undefined ? {} : { errorCode }),
        });
        result.calls.push({ flowId: candidate.flowId, ok: outcome.ok, latencyMs: outcome.latencyMs, ...(errorCode === undefined ? {} : { errorCode }) });
        if (outcome.ok) {
          succeeded = true;
          break;
        }
        lastFailed = { candidate, code: errorCode! };
        if (attempt < tries) emit("retry-scheduled", { backendId: candidate.backendId, flowId: candidate.flowId, attempt: attempts + 1, delayMs: 0, errorCode: errorCode! });
      }
      if (succeeded) {
        answered = candidate;
        break;
      }
    }
    time += 1;
    if (answered) {
      emit("query-answered", {
        backendId: answered.backendId,
        flowId: answered.flowId,
        durationMs: time - start,
        attempts,
        fallbackUsed: result.fallbackUsed,
        cacheHit: false,
      });
      lastAnswered.set(input.intent, answered.flowId);
      Object.assign(result, { ok: true, answeredFlowId: answered.flowId });
    } else {
      const code = attempts > 0 ? "ALL_BACKENDS_FAILED" : "NO_BACKENDS_AVAILABLE";
      emit("query-failed", { code, message: attempts > 0 ? "every candidate failed" : "no candidate", durationMs: time - start, attempts });
    }
    result.durationMs = time - start;
    results.push(result);
    if (input.at === undefined) clock += intervalMs;
    return result;
  };

  return {
    query,
    run(count, make) {
      const out: SyntheticQueryResult[] = [];
      for (let i = 0; i < count; i++) out.push(query(make(i)));
      return out;
    },
    now: () => clock,
    advance(ms) {
      clock += ms;
    },
    events,
    results,
    questions: () => results.map((r) => ({ traceId: r.traceId, question: r.question })),
    callCount: (flowId) => calls.get(flowId) ?? 0,
  };
}
