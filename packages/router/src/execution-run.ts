import {
  AfwError,
  BackendError,
  ERROR_CODES,
  computeBackoffDelay,
  emitTrace,
  type ErrorCode,
  type FlowBackendV1,
  type FlowExecutionResult,
  type RoutingCandidate,
  type RoutingDecision,
} from "@afw/contracts";
import type { ExecuteOptions, ExecutionAttempt, ExecutionOutcome, ExecutionRequest } from "./execute.js";

// The state of one execution (candidates left, attempts made, deadline, breaker/health/performance bookkeeping), shared
// by the buffered executor (execute.ts) and the streaming one (execute-stream.ts).

/** Smallest per-attempt budget while another candidate is waiting (unless less time is left). */
const MIN_ATTEMPT_MS = 1_000;
/** Share of the time left that one attempt may use while another candidate is waiting. */
const ATTEMPT_SHARE = 0.5;

/**
 * Node's timers run on the event loop's millisecond clock, which can trail `performance.now()` by up to a millisecond:
 * an attempt timer set for the time left can fire just before the deadline as the high-resolution clock sees it.
 */
const DEADLINE_SLACK_MS = 2;

/**
 * The time one attempt may take: at most `attemptTimeoutMs` and the time left, and — while
 * another candidate is waiting — at most {@link ATTEMPT_SHARE} of the time left (but not less than
 * {@link MIN_ATTEMPT_MS}), so a hung first choice leaves the fallback a turn inside the deadline.
 */
export function attemptBudgetMs(remainingMs: number, attemptTimeoutMs: number, alternativeWaiting: boolean): number {
  const cap = Math.min(attemptTimeoutMs, remainingMs);
  if (!alternativeWaiting) return Math.max(1, cap);
  return Math.max(1, Math.min(cap, Math.max(MIN_ATTEMPT_MS, remainingMs * ATTEMPT_SHARE)));
}

export const backendMap = (backends: ExecuteOptions["backends"]): ReadonlyMap<string, FlowBackendV1> =>
  backends instanceof Map ? backends : new Map((backends as readonly FlowBackendV1[]).map((b) => [b.id, b]));

export type FailureOutcome = "error" | "timeout" | "aborted";

export class AttemptTimeout extends Error {}
export class HedgeCancelled extends Error {}

/** Normalises anything an attempt threw into an AfwError plus an outcome. */
export function normalizeError(error: unknown, candidate: RoutingCandidate, userSignal: AbortSignal | undefined, timeoutMs: number): { error: AfwError; outcome: FailureOutcome } {
  if (userSignal?.aborted) return { error: new AfwError("ABORTED", "the request was cancelled", { cause: error }), outcome: "aborted" };
  if (error instanceof HedgeCancelled) return { error: new AfwError("ABORTED", "cancelled: the other hedged attempt answered first"), outcome: "aborted" };
  if (error instanceof AttemptTimeout) {
    return {
      error: new BackendError("BACKEND_TIMEOUT", `${candidate.backendId} did not answer within ${timeoutMs} ms`, {
        backendId: candidate.backendId,
        flowId: candidate.backendFlowId,
        isRetryable: true,
      }),
      outcome: "timeout",
    };
  }
  if (AfwError.isInstance(error)) return { error, outcome: error.code === "BACKEND_TIMEOUT" ? "timeout" : "error" };
  return {
    error: new BackendError("BACKEND_UNAVAILABLE", `${candidate.backendId} failed unexpectedly`, {
      cause: error,
      backendId: candidate.backendId,
      flowId: candidate.backendFlowId,
      isRetryable: true,
    }),
    outcome: "error",
  };
}

export const isRetryable = (error: AfwError) => (BackendError.isInstance(error) ? error.isRetryable : false);

/** State shared by the buffered and the streaming executor. */
export class ExecutionRun {
  readonly backends: ReadonlyMap<string, FlowBackendV1>;
  readonly attempts: ExecutionAttempt[] = [];
  readonly started = performance.now();
  readonly deadline: number;
  readonly attemptTimeoutMs: number;
  readonly retries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly random: () => number;
  readonly tried = new Set<string>();
  readonly failedBackends = new Set<string>();
  readonly rankedUsable: RoutingCandidate[];
  rankedTaken = 0;
  lastFailed: { candidate: RoutingCandidate; code: string } | undefined;

  constructor(
    readonly decision: RoutingDecision,
    readonly request: ExecutionRequest,
    readonly options: ExecuteOptions,
  ) {
    this.backends = backendMap(options.backends);
    const userTimeout = request.timeoutMs;
    const overall = Math.min(options.overallTimeoutMs ?? 45_000, userTimeout ?? Infinity);
    this.deadline = this.started + overall;
    this.attemptTimeoutMs = Math.min(options.attemptTimeoutMs ?? 30_000, userTimeout ?? Infinity);
    this.retries = Math.max(0, options.retry?.retries ?? 1);
    this.baseDelayMs = options.retry?.baseDelayMs ?? 250;
    this.maxDelayMs = options.retry?.maxDelayMs ?? 2_000;
    this.random = options.random ?? Math.random;
    this.rankedUsable = decision.candidates.filter((c) => !c.excluded && this.backends.has(c.backendId));
  }

  remaining(): number {
    return this.deadline - performance.now();
  }

  /** Next candidate: ranked ones first (preferring a backend that has not failed), then any healthy backend. */
  next(): RoutingCandidate | undefined {
    const { candidate, ranked } = this.peek();
    if (ranked) this.rankedTaken++;
    return candidate;
  }

  /** The candidate {@link ExecutionRun.next} would return, without taking it. */
  peek(): { candidate: RoutingCandidate | undefined; ranked: boolean } {
    const maxRanked = Math.max(1, this.options.maxCandidates ?? 3);
    if (this.rankedTaken < maxRanked) {
      const untried = this.rankedUsable.filter((c) => !this.tried.has(c.flowId));
      const pick = untried.find((c) => !this.failedBackends.has(c.backendId)) ?? untried[0];
      if (pick) return { candidate: pick, ranked: true };
    }
    return { candidate: this.lastResort(), ranked: false };
  }

  /** Per-attempt budget now (see {@link attemptBudgetMs}); the running candidates must be in `tried`. */
  attemptBudget(): number {
    return attemptBudgetMs(this.remaining(), this.attemptTimeoutMs, this.peek().candidate !== undefined);
  }

  /** The decision's first choice when it cannot run (its circuit is open): recorded as a skipped attempt, so any answer is a fallback. */
  skipExcludedFirst(): void {
    const chosen = this.decision.chosen;
    const first = chosen && this.decision.candidates.find((c) => c.flowId === chosen.flowId);
    if (!first?.excluded) return;
    this.tried.add(first.flowId);
    const code = /circuit/.test(first.excluded) ? "CIRCUIT_OPEN" : "BACKEND_UNAVAILABLE";
    this.attempts.push({ backendId: first.backendId, flowId: first.flowId, backendFlowId: first.backendFlowId, attempt: 1, outcome: "skipped", code, message: first.excluded, latencyMs: 0 });
    this.lastFailed = { candidate: first, code };
  }

  /** Why the answer did not come from the first choice (see {@link ExecutionOutcome.fallbackReason}). */
  fallbackReason(hedged: boolean): string {
    const firstKey = this.decision.chosen?.flowId;
    const failed = this.attempts.filter((a) => a.flowId === firstKey && a.outcome !== "success").at(-1);
    if (hedged && (!failed || failed.outcome === "aborted")) return "hedge";
    return failed?.code ?? "NOT_TRIED";
  }

  /** Last phase: any healthy backend not tried yet, with its best-ranked flow. */
  private lastResort(): RoutingCandidate | undefined {
    const triedBackends = new Set([...this.tried].map((flowId) => this.decision.candidates.find((c) => c.flowId === flowId)?.backendId));
    for (const candidate of this.decision.candidates) {
      if (this.tried.has(candidate.flowId) || triedBackends.has(candidate.backendId)) continue;
      const backend = this.backends.get(candidate.backendId);
      if (!backend) continue;
      if (candidate.excluded && /circuit/.test(candidate.excluded)) continue;
      if (this.options.health?.peek(backend)?.status === "down") continue;
      return candidate;
    }
    return undefined;
  }

  /** A candidate on another backend than `first` for the hedge partner. */
  hedgePartner(first: RoutingCandidate): RoutingCandidate | undefined {
    return this.rankedUsable.find((c) => c.backendId !== first.backendId && !this.tried.has(c.flowId));
  }

  async admitted(candidate: RoutingCandidate, attempt: number): Promise<boolean> {
    const breaker = this.options.circuitBreaker;
    if (!breaker) return true;
    const trace = this.options.trace;
    const ok = (await breaker.acquire(candidate.backendId, trace)) && (await breaker.acquire(candidate.flowId, trace));
    if (!ok) {
      this.attempts.push({
        backendId: candidate.backendId,
        flowId: candidate.flowId,
        backendFlowId: candidate.backendFlowId,
        attempt,
        outcome: "skipped",
        code: "CIRCUIT_OPEN",
        message: "circuit open",
        latencyMs: 0,
      });
    }
    return ok;
  }

  /** Announces an attempt (`backend-call-start`); returns its start time for {@link ExecutionRun.ended}. */
  began(candidate: RoutingCandidate, attempt: number, streaming: boolean, hedged = false): number {
    emitTrace(this.options.trace, "backend-call-start", { backendId: candidate.backendId, flowId: candidate.flowId, attempt, streaming, ...(hedged ? { hedged: true } : {}) });
    return performance.now();
  }

  /** Records an attempt that ended (`failure` absent: it answered): the attempt list, `backend-call-end`, performance and circuits. */
  async ended(candidate: RoutingCandidate, attempt: number, startedAt: number, failure?: { error: AfwError; outcome: FailureOutcome }, hedged = false): Promise<void> {
    const latencyMs = performance.now() - startedAt;
    const { backendId, flowId, backendFlowId } = candidate;
    const outcome = failure?.outcome ?? "success";
    const statusCode = failure && BackendError.isInstance(failure.error) ? failure.error.statusCode : undefined;
    const error = failure ? { code: failure.error.code, message: failure.error.message, statusCode } : {};
    this.attempts.push({ backendId, flowId, backendFlowId, attempt, outcome, ...error, latencyMs, hedged: hedged || undefined });
    emitTrace(this.options.trace, "backend-call-end", {
      backendId,
      flowId,
      attempt,
      latencyMs,
      outcome,
      ...(failure ? { errorCode: failure.error.code } : {}),
      ...(statusCode === undefined ? {} : { statusCode }),
    });
    if (outcome !== "aborted") await this.recordOutcome(candidate, !failure, latencyMs, failure?.error);
  }

  /**
   * After a failed attempt of `candidate`: the backoff before its next try, or undefined when it is not retried (the error
   * is not retryable, no retry is left, a timeout while another candidate waits, or no time for the delay).
   */
  retryDelay(candidate: RoutingCandidate, retry: number, failure: { error: AfwError; outcome: FailureOutcome }): number | undefined {
    if (failure.outcome === "aborted" || !isRetryable(failure.error) || retry === this.retries) return undefined;
    // A timeout is not retried while another candidate is waiting: it goes first.
    if (failure.outcome === "timeout" && this.peek().candidate) return undefined;
    const delayMs = this.backoff(retry + 1);
    if (delayMs >= this.remaining()) return undefined;
    emitTrace(this.options.trace, "retry-scheduled", { backendId: candidate.backendId, flowId: candidate.flowId, attempt: this.attempts.length + 1, delayMs, errorCode: failure.error.code });
    return delayMs;
  }

  /** The outcome of a successful execution. */
  succeeded(result: FlowExecutionResult, candidate: RoutingCandidate, hedged: boolean): ExecutionOutcome {
    const first = candidate.flowId === this.decision.chosen?.flowId;
    return {
      result,
      candidate,
      attempts: this.attempts,
      fallbackUsed: !first,
      ...(first ? {} : { fallbackReason: this.fallbackReason(hedged) }),
      hedged,
      durationMs: performance.now() - this.started,
    };
  }

  async recordOutcome(candidate: RoutingCandidate, success: boolean, latencyMs: number, error?: AfwError): Promise<void> {
    const { performance: tracker, circuitBreaker: breaker, trace } = this.options;
    const work: Promise<unknown>[] = [];
    if (tracker) {
      work.push(
        tracker.record({
          backendId: candidate.backendId,
          flowId: candidate.flowId,
          latencyMs: Math.max(0, latencyMs),
          success,
          timestamp: Date.now(),
          ...(error ? { errorCode: error.code } : {}),
          ...(this.options.intent ? { intent: this.options.intent } : {}),
        }),
      );
    }
    if (breaker) {
      if (success) work.push(breaker.recordSuccess(candidate.backendId, trace), breaker.recordSuccess(candidate.flowId, trace));
      else {
        work.push(breaker.recordFailure(candidate.flowId, trace));
        if (error?.code !== "FLOW_NOT_FOUND") work.push(breaker.recordFailure(candidate.backendId, trace));
      }
    }
    await Promise.allSettled(work);
  }

  backoff(retry: number): number {
    return computeBackoffDelay(retry, { initialDelayMs: this.baseDelayMs, maxDelayMs: this.maxDelayMs }, this.random);
  }

  fallbackTo(to: RoutingCandidate) {
    if (!this.lastFailed) return;
    emitTrace(this.options.trace, "fallback-triggered", {
      fromBackendId: this.lastFailed.candidate.backendId,
      fromFlowId: this.lastFailed.candidate.flowId,
      toBackendId: to.backendId,
      toFlowId: to.flowId,
      reason: this.lastFailed.code,
    });
  }

  failure(): AfwError {
    if (this.options.signal?.aborted) return new AfwError("ABORTED", "the request was cancelled", { details: { attempts: this.attempts } });
    if (this.attempts.length === 0) {
      return new AfwError("NO_BACKENDS_AVAILABLE", "no backend/flow is available for this question", { details: { attempts: [] } });
    }
    const tried = this.attempts.filter((a) => a.outcome !== "skipped").length;
    const summary = this.attempts.map((a) => `${a.backendId}/${a.backendFlowId}: ${a.code ?? a.outcome}`).join("; ");
    const timedOut = this.remaining() <= DEADLINE_SLACK_MS ? " (overall timeout reached)" : "";
    if (this.decision.binding) {
      // The caller's explicit choice failed and nothing else may answer: say why, with its code.
      const last = this.attempts.filter((a) => a.outcome !== "skipped").at(-1) ?? this.attempts.at(-1)!;
      const code = last.outcome === "skipped" ? "CIRCUIT_OPEN" : last.outcome === "timeout" ? "BACKEND_TIMEOUT" : (ERROR_CODES as readonly string[]).includes(last.code ?? "") ? (last.code as ErrorCode) : "BACKEND_UNAVAILABLE";
      const why = code === "CIRCUIT_OPEN" ? "its circuit is open after repeated failures" : `it failed${timedOut}: ${summary}`;
      return new AfwError(code, `the requested backend/flow cannot answer: ${why}; pass allow_fallback: true to let another one answer`, {
        details: { attempts: this.attempts.map((a) => ({ ...a })) },
      });
    }
    return new AfwError("ALL_BACKENDS_FAILED", `all backends failed after ${tried} attempt(s)${timedOut}: ${summary}`, {
      details: { attempts: this.attempts.map((a) => ({ ...a })) },
    });
  }
}
