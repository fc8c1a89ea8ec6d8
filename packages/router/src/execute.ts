import {
  AfwError,
  BackendError,
  ERROR_CODES,
  emitTrace,
  type ErrorCode,
  type FlowBackendV1,
  type FlowExecutionRequest,
  type FlowExecutionResult,
  type FlowStreamChunk,
  type Intent,
  type RoutingCandidate,
  type RoutingDecision,
  type TraceContext,
} from "@afw/contracts";
import type { CircuitBreaker } from "./circuit-breaker.js";
import type { HealthCache } from "./health-cache.js";
import type { PerformanceTracker } from "./performance-tracker.js";

/** One try against one (backend, flow). */
export interface ExecutionAttempt {
  backendId: string;
  /** Gateway-wide flow id. */
  flowId: string;
  backendFlowId: string;
  /** 1-based number of this attempt within the whole execution. */
  attempt: number;
  outcome: "success" | "error" | "timeout" | "aborted" | "skipped";
  /** Error code (contracts code, or `CIRCUIT_OPEN` for a skipped candidate). */
  code?: string | undefined;
  /** Secret-free error message. */
  message?: string | undefined;
  statusCode?: number | undefined;
  latencyMs: number;
  /** True when the attempt ran as half of a hedge. */
  hedged?: boolean | undefined;
}

/** A successful execution. */
export interface ExecutionOutcome {
  result: FlowExecutionResult;
  /** The candidate that answered. */
  candidate: RoutingCandidate;
  /** Every attempt, in start order. */
  attempts: ExecutionAttempt[];
  /** True when the answer came from another candidate than the decision's first. */
  fallbackUsed: boolean;
  /**
   * With `fallbackUsed`: why the first choice did not answer — the error code of its last attempt
   * (`BACKEND_TIMEOUT`, `CIRCUIT_OPEN` when its open circuit skipped it, ...), or `hedge` when the
   * hedged partner answered first.
   */
  fallbackReason?: string;
  /** True when the first step was hedged. */
  hedged: boolean;
  durationMs: number;
  /** Streams only: how many times the answer restarted after a stream broke mid-way (see {@link StreamRestartChunk}). */
  restarts?: number;
}

/**
 * Yielded by {@link executeStream} when a stream broke after tokens had been yielded and the
 * answer starts again on `nextCandidate` (a retry of the same candidate, or a fallback). The
 * tokens yielded before it belong to an incomplete answer: discard them (or tell the user that
 * the answer restarts); the chunks after it are the new answer from its beginning.
 */
export interface StreamRestartChunk {
  type: "restart";
  /** Error code of the attempt that broke (e.g. `BACKEND_UNAVAILABLE`, `BACKEND_BAD_RESPONSE`). */
  reason: string;
  /** Secret-free message of that error. */
  message: string;
  /** The candidate whose stream broke. */
  from: { backendId: string; flowId: string };
  /** The candidate the answer restarts on (the same one when it is retried). */
  nextCandidate: RoutingCandidate;
  /** 1-based number of this restart within the execution. */
  restart: number;
  /** Tokens of the broken stream that were yielded before it broke. */
  tokensDiscarded: number;
}

/** What {@link executeStream} yields: the backend's chunks plus {@link StreamRestartChunk}s. */
export type ExecutionStreamChunk = FlowStreamChunk | StreamRestartChunk;

/** Retry settings. */
export interface RetryOptions {
  /** Retries of one candidate after a retryable error. @default 1 */
  retries?: number;
  /** First backoff delay before jitter. @default 250 */
  baseDelayMs?: number;
  /** Largest backoff delay. @default 2000 */
  maxDelayMs?: number;
}

/** Options of {@link executeWithFallback} and {@link executeStream}. */
export interface ExecuteOptions {
  /** The backends, by id (or a list). */
  backends: ReadonlyMap<string, FlowBackendV1> | readonly FlowBackendV1[];
  /** Timeout of one attempt; capped by the request's `timeoutMs` and the time left overall. @default 30000 */
  attemptTimeoutMs?: number;
  /** Timeout of the whole execution, retries and fallbacks included; capped by the request's `timeoutMs`. @default 45000 */
  overallTimeoutMs?: number;
  retry?: RetryOptions;
  /** Ranked candidates tried before falling back to "any healthy backend". @default 3 */
  maxCandidates?: number;
  /** Run the top two candidates (on different backends) in parallel. @default decision.strategy === "hedge" */
  hedge?: boolean;
  circuitBreaker?: CircuitBreaker | undefined;
  performance?: PerformanceTracker | undefined;
  /** Used to skip backends known to be down in the last fallback phase. */
  health?: HealthCache | undefined;
  trace?: TraceContext | undefined;
  /** Cancels everything (the caller went away). */
  signal?: AbortSignal | undefined;
  /** Random source of the backoff jitter (inject for tests). @default Math.random */
  random?: () => number;
  /** Intent recorded with performance samples. */
  intent?: Intent | undefined;
  /**
   * {@link executeStream} only: how many times a stream that broke after tokens were yielded may
   * restart (yielding a {@link StreamRestartChunk}, then retry/fallback as before the first
   * token). 0 restores the strict behaviour: a failure after the first token is thrown.
   * @default maxCandidates (3)
   */
  maxStreamRestarts?: number;
}

/** Smallest per-attempt budget while another candidate is waiting (unless less time is left). */
const MIN_ATTEMPT_MS = 1_000;
/** Share of the time left that one attempt may use while another candidate is waiting. */
const ATTEMPT_SHARE = 0.5;

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

/** The request without the flow id (the executor sets it per candidate). */
export type ExecutionRequest = Omit<FlowExecutionRequest, "flowId">;

const backendMap = (backends: ExecuteOptions["backends"]): ReadonlyMap<string, FlowBackendV1> =>
  backends instanceof Map ? backends : new Map((backends as readonly FlowBackendV1[]).map((b) => [b.id, b]));

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });

type FailureOutcome = "error" | "timeout" | "aborted";

class AttemptTimeout extends Error {}
class HedgeCancelled extends Error {}

/** Normalises anything an attempt threw into an AfwError plus an outcome. */
function normalizeError(error: unknown, candidate: RoutingCandidate, userSignal: AbortSignal | undefined, timeoutMs: number): { error: AfwError; outcome: FailureOutcome } {
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

const isRetryable = (error: AfwError) => (BackendError.isInstance(error) ? error.isRetryable : false);

/** State shared by the buffered and the streaming executor. */
class ExecutionRun {
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
    const exponential = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (retry - 1));
    return Math.round(exponential * (0.5 + this.random()));
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
    const timedOut = this.remaining() <= 0 ? " (overall timeout reached)" : "";
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

async function runAttempt(
  run: ExecutionRun,
  candidate: RoutingCandidate,
  attempt: number,
  hedged: boolean,
  cancel?: AbortSignal,
): Promise<{ ok: true; result: FlowExecutionResult } | { ok: false; error: AfwError; outcome: FailureOutcome }> {
  const backend = run.backends.get(candidate.backendId)!;
  const timeoutMs = run.attemptBudget();
  const controller = new AbortController();
  const onUserAbort = () => controller.abort(run.options.signal?.reason);
  run.options.signal?.addEventListener("abort", onUserAbort, { once: true });
  const onCancel = () => controller.abort(new HedgeCancelled());
  cancel?.addEventListener("abort", onCancel, { once: true });
  const timer = setTimeout(() => controller.abort(new AttemptTimeout()), timeoutMs);
  const started = performance.now();
  emitTrace(run.options.trace, "backend-call-start", {
    backendId: candidate.backendId,
    flowId: candidate.flowId,
    attempt,
    streaming: false,
    ...(hedged ? { hedged: true } : {}),
  });
  const aborted = new Promise<never>((_, reject) => {
    if (controller.signal.aborted) reject(controller.signal.reason);
    controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
  });
  aborted.catch(() => {});
  try {
    const result = await Promise.race([
      backend.execute({ ...run.request, flowId: candidate.backendFlowId, timeoutMs: Math.ceil(timeoutMs) }, controller.signal),
      aborted,
    ]);
    const latencyMs = performance.now() - started;
    run.attempts.push({ backendId: candidate.backendId, flowId: candidate.flowId, backendFlowId: candidate.backendFlowId, attempt, outcome: "success", latencyMs, hedged: hedged || undefined });
    emitTrace(run.options.trace, "backend-call-end", { backendId: candidate.backendId, flowId: candidate.flowId, attempt, latencyMs, outcome: "success" });
    await run.recordOutcome(candidate, true, latencyMs);
    return { ok: true, result: { ...result, latencyMs: result.latencyMs ?? latencyMs } };
  } catch (thrown) {
    const latencyMs = performance.now() - started;
    const reason = controller.signal.aborted ? controller.signal.reason : thrown;
    const { error, outcome } = normalizeError(reason instanceof AttemptTimeout || reason instanceof HedgeCancelled ? reason : thrown, candidate, run.options.signal, timeoutMs);
    const statusCode = BackendError.isInstance(error) ? error.statusCode : undefined;
    run.attempts.push({
      backendId: candidate.backendId,
      flowId: candidate.flowId,
      backendFlowId: candidate.backendFlowId,
      attempt,
      outcome,
      code: error.code,
      message: error.message,
      statusCode,
      latencyMs,
      hedged: hedged || undefined,
    });
    emitTrace(run.options.trace, "backend-call-end", {
      backendId: candidate.backendId,
      flowId: candidate.flowId,
      attempt,
      latencyMs,
      outcome,
      errorCode: error.code,
      ...(statusCode === undefined ? {} : { statusCode }),
    });
    if (outcome !== "aborted") await run.recordOutcome(candidate, false, latencyMs, error);
    return { ok: false, error, outcome };
  } finally {
    clearTimeout(timer);
    run.options.signal?.removeEventListener("abort", onUserAbort);
    cancel?.removeEventListener("abort", onCancel);
    // The attempt settled: the backend call has returned (or was aborted through the controller
    // already), so nothing is left to cancel and the controller is dropped as it is.
  }
}

/** Runs one candidate with its retries. */
async function runCandidate(run: ExecutionRun, candidate: RoutingCandidate, hedged: boolean, cancel?: AbortSignal): Promise<FlowExecutionResult | AfwError> {
  let lastError: AfwError | undefined;
  for (let retry = 0; retry <= run.retries; retry++) {
    if (run.options.signal?.aborted || cancel?.aborted) break;
    if (run.remaining() <= 0) break;
    const attempt = run.attempts.length + 1;
    if (!(await run.admitted(candidate, attempt))) return new AfwError("BACKEND_UNAVAILABLE", "circuit open");
    const outcome = await runAttempt(run, candidate, attempt, hedged, cancel);
    if (outcome.ok) return outcome.result;
    lastError = outcome.error;
    if (outcome.outcome === "aborted" || !isRetryable(outcome.error) || retry === run.retries) break;
    // A timeout is not retried while another candidate is waiting: it goes first.
    if (outcome.outcome === "timeout" && run.peek().candidate) break;
    const delayMs = run.backoff(retry + 1);
    if (delayMs >= run.remaining()) break;
    emitTrace(run.options.trace, "retry-scheduled", {
      backendId: candidate.backendId,
      flowId: candidate.flowId,
      attempt: run.attempts.length + 1,
      delayMs,
      errorCode: outcome.error.code,
    });
    const signals = [run.options.signal, cancel].filter((s): s is AbortSignal => s !== undefined);
    try {
      await sleep(delayMs, signals.length ? AbortSignal.any(signals) : new AbortController().signal);
    } catch {
      break;
    }
  }
  return lastError ?? new AfwError("BACKEND_TIMEOUT", "no time left for an attempt");
}

/**
 * Executes a routing decision: the chosen candidate with a per-attempt timeout, one retry on a
 * retryable `BackendError` (jittered exponential backoff), then the next-ranked candidates
 * (preferring a backend that has not failed), then any healthy backend. Non-retryable errors
 * (auth, flow not found) skip the retry but still fall back. With `hedge` the top two candidates
 * on different backends run in parallel; the first success wins and the other is cancelled.
 * Every call is recorded in the performance tracker and the circuit breaker, and traced.
 *
 * @throws AfwError `NO_BACKENDS_AVAILABLE` when there is nothing to try, `ALL_BACKENDS_FAILED`
 * (with `details.attempts`) when every attempt failed, `ABORTED` when `signal` aborted.
 * @example
 * ```ts
 * const decision = await router.route({ question });
 * const { result, attempts } = await executeWithFallback(decision, { question }, { backends });
 * ```
 */
export async function executeWithFallback(decision: RoutingDecision, request: ExecutionRequest, options: ExecuteOptions): Promise<ExecutionOutcome> {
  const run = new ExecutionRun(decision, request, options);
  const firstKey = decision.chosen?.flowId;
  run.skipExcludedFirst();
  const done = (result: FlowExecutionResult, candidate: RoutingCandidate, hedged: boolean): ExecutionOutcome => ({
    result,
    candidate,
    attempts: run.attempts,
    fallbackUsed: candidate.flowId !== firstKey,
    ...(candidate.flowId === firstKey ? {} : { fallbackReason: run.fallbackReason(hedged) }),
    hedged,
    durationMs: performance.now() - run.started,
  });
  const hedge = options.hedge ?? decision.strategy === "hedge";
  let hedgedRun = false;
  let candidate = run.next();
  if (candidate && hedge) {
    const partner = run.hedgePartner(candidate);
    if (partner) {
      hedgedRun = true;
      run.tried.add(candidate.flowId);
      run.tried.add(partner.flowId);
      emitTrace(options.trace, "hedge-started", { flowIds: [candidate.flowId, partner.flowId] });
      const cancelFirst = new AbortController();
      const cancelSecond = new AbortController();
      const pair = [candidate, partner] as const;
      const racers = [runCandidate(run, pair[0], true, cancelFirst.signal), runCandidate(run, pair[1], true, cancelSecond.signal)];
      const winner = await new Promise<{ index: number; result: FlowExecutionResult } | undefined>((resolve) => {
        let failed = 0;
        racers.forEach((racer, index) => {
          racer.then((value) => {
            if (!AfwError.isInstance(value)) {
              (index === 0 ? cancelSecond : cancelFirst).abort();
              resolve({ index, result: value });
            } else if (++failed === racers.length) resolve(undefined);
          });
        });
      });
      await Promise.allSettled(racers);
      if (winner) return done(winner.result, pair[winner.index]!, true);
      for (const c of pair) run.failedBackends.add(c.backendId);
      run.lastFailed = { candidate: pair[0], code: run.attempts.at(-1)?.code ?? "ALL_BACKENDS_FAILED" };
      candidate = run.next();
    }
  }
  while (candidate) {
    if (options.signal?.aborted || run.remaining() <= 0) break;
    if (run.lastFailed) run.fallbackTo(candidate);
    run.tried.add(candidate.flowId);
    const outcome = await runCandidate(run, candidate, false);
    if (!AfwError.isInstance(outcome)) return done(outcome, candidate, hedgedRun);
    if (outcome.code === "ABORTED") break;
    run.failedBackends.add(candidate.backendId);
    run.lastFailed = { candidate, code: outcome.code };
    candidate = run.next();
  }
  throw run.failure();
}

/**
 * Streaming variant of {@link executeWithFallback}: yields the chunks of `backend.stream` (or one
 * `end` chunk from `execute` for backends without streaming). Falls back exactly like the
 * buffered executor; chunks before an attempt's first token are held back so an attempt that
 * fails early leaves no trace in the output. When a stream breaks after tokens were yielded
 * (connection cut, stream ended without its `end` chunk, attempt timeout), the answer restarts:
 * a {@link StreamRestartChunk} is yielded (discard the tokens received so far), then the retry
 * and fallback continue as before the first token — within the overall deadline and at most
 * `maxStreamRestarts` times (each restart is traced as `stream-restarted`). No hedging.
 *
 * @throws AfwError like {@link executeWithFallback}; with `maxStreamRestarts: 0` (or once the
 * restarts are used up), a failure after the first token throws the attempt's error.
 * @example
 * ```ts
 * let answer = "";
 * for await (const chunk of executeStream(decision, { question }, { backends })) {
 *   if (chunk.type === "restart") answer = ""; // the previous tokens were an incomplete answer
 *   if (chunk.type === "token") answer += chunk.text;
 * }
 * ```
 */
export async function* executeStream(decision: RoutingDecision, request: ExecutionRequest, options: ExecuteOptions): AsyncGenerator<ExecutionStreamChunk, ExecutionOutcome | undefined> {
  const run = new ExecutionRun(decision, request, options);
  const maxRestarts = Math.max(0, options.maxStreamRestarts ?? Math.max(1, options.maxCandidates ?? 3));
  let restarts = 0;
  /** A stream that broke after yielding tokens; announced when the next attempt starts. */
  let pendingRestart: { error: AfwError; from: RoutingCandidate; tokens: number } | undefined;
  run.skipExcludedFirst();
  let candidate = run.next();
  while (candidate) {
    if (options.signal?.aborted || run.remaining() <= 0) break;
    if (run.lastFailed) run.fallbackTo(candidate);
    run.tried.add(candidate.flowId);
    let lastError: AfwError | undefined;
    for (let retry = 0; retry <= run.retries; retry++) {
      if (options.signal?.aborted || run.remaining() <= 0) break;
      const attempt = run.attempts.length + 1;
      if (!(await run.admitted(candidate, attempt))) {
        lastError = new AfwError("BACKEND_UNAVAILABLE", "circuit open");
        break;
      }
      if (pendingRestart) {
        restarts++;
        const { error, from, tokens } = pendingRestart;
        pendingRestart = undefined;
        emitTrace(options.trace, "stream-restarted", {
          fromBackendId: from.backendId,
          fromFlowId: from.flowId,
          toBackendId: candidate.backendId,
          toFlowId: candidate.flowId,
          reason: error.code,
          restart: restarts,
          tokensDiscarded: tokens,
        });
        yield {
          type: "restart",
          reason: error.code,
          message: error.message,
          from: { backendId: from.backendId, flowId: from.flowId },
          nextCandidate: candidate,
          restart: restarts,
          tokensDiscarded: tokens,
        };
      }
      const backend = run.backends.get(candidate.backendId)!;
      const timeoutMs = run.attemptBudget();
      const controller = new AbortController();
      const onUserAbort = () => controller.abort(options.signal?.reason);
      options.signal?.addEventListener("abort", onUserAbort, { once: true });
      let firstTokenTimer: NodeJS.Timeout | undefined = setTimeout(() => controller.abort(new AttemptTimeout()), timeoutMs);
      const overallTimer = setTimeout(() => controller.abort(new AttemptTimeout()), Math.max(1, run.remaining()));
      const aborted = new Promise<never>((_, reject) => {
        controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
      });
      aborted.catch(() => {});
      const started = performance.now();
      emitTrace(options.trace, "backend-call-start", { backendId: candidate.backendId, flowId: candidate.flowId, attempt, streaming: true });
      const flowRequest: FlowExecutionRequest = { ...request, flowId: candidate.backendFlowId, timeoutMs: Math.ceil(run.remaining()) };
      const source: AsyncIterable<FlowStreamChunk> = backend.stream
        ? backend.stream(flowRequest, controller.signal)
        : (async function* () {
            yield { type: "end" as const, result: await backend.execute(flowRequest, controller.signal) };
          })();
      const iterator = source[Symbol.asyncIterator]();
      const held: FlowStreamChunk[] = [];
      let emitted = false;
      let tokens = 0;
      let finished = false;
      try {
        for (;;) {
          const next = await Promise.race([iterator.next(), aborted]);
          if (next.done) throw new BackendError("BACKEND_BAD_RESPONSE", `${candidate.backendId} ended the stream without an end chunk`, { backendId: candidate.backendId, isRetryable: true });
          const chunk = next.value;
          if (!emitted && chunk.type !== "token" && chunk.type !== "end") {
            held.push(chunk);
            continue;
          }
          if (!emitted) {
            emitted = true;
            clearTimeout(firstTokenTimer);
            firstTokenTimer = undefined;
            for (const h of held) yield h;
            held.length = 0;
          }
          if (chunk.type === "token") tokens++;
          yield chunk;
          if (chunk.type === "end") {
            finished = true;
            const latencyMs = performance.now() - started;
            run.attempts.push({ backendId: candidate.backendId, flowId: candidate.flowId, backendFlowId: candidate.backendFlowId, attempt, outcome: "success", latencyMs });
            emitTrace(options.trace, "backend-call-end", { backendId: candidate.backendId, flowId: candidate.flowId, attempt, latencyMs, outcome: "success" });
            await run.recordOutcome(candidate, true, latencyMs);
            return {
              result: chunk.result,
              candidate,
              attempts: run.attempts,
              fallbackUsed: candidate.flowId !== decision.chosen?.flowId,
              ...(candidate.flowId === decision.chosen?.flowId ? {} : { fallbackReason: run.fallbackReason(false) }),
              hedged: false,
              durationMs: performance.now() - run.started,
              restarts,
            };
          }
        }
      } catch (thrown) {
        const latencyMs = performance.now() - started;
        const reason = controller.signal.aborted ? controller.signal.reason : thrown;
        const { error, outcome } = normalizeError(reason instanceof AttemptTimeout ? reason : thrown, candidate, options.signal, timeoutMs);
        run.attempts.push({ backendId: candidate.backendId, flowId: candidate.flowId, backendFlowId: candidate.backendFlowId, attempt, outcome, code: error.code, message: error.message, latencyMs });
        emitTrace(options.trace, "backend-call-end", { backendId: candidate.backendId, flowId: candidate.flowId, attempt, latencyMs, outcome, errorCode: error.code });
        if (outcome !== "aborted") await run.recordOutcome(candidate, false, latencyMs, error);
        if (outcome === "aborted") throw error;
        if (emitted) {
          // Tokens of this attempt reached the caller: restart (announced when the next attempt
          // starts) or, with no restart left, fail with the attempt's error.
          if (restarts >= maxRestarts) throw error;
          pendingRestart = { error, from: candidate, tokens };
        }
        lastError = error;
        if (!isRetryable(error) || retry === run.retries) break;
        if (outcome === "timeout" && run.peek().candidate) break;
        const delayMs = run.backoff(retry + 1);
        if (delayMs >= run.remaining()) break;
        emitTrace(options.trace, "retry-scheduled", { backendId: candidate.backendId, flowId: candidate.flowId, attempt: attempt + 1, delayMs, errorCode: error.code });
        try {
          await sleep(delayMs, options.signal ?? new AbortController().signal);
        } catch {
          break;
        }
      } finally {
        clearTimeout(firstTokenTimer);
        clearTimeout(overallTimer);
        options.signal?.removeEventListener("abort", onUserAbort);
        if (!finished) {
          controller.abort(new HedgeCancelled());
          void Promise.resolve(iterator.return?.()).catch(() => {});
        }
      }
    }
    run.failedBackends.add(candidate.backendId);
    run.lastFailed = { candidate, code: lastError?.code ?? "BACKEND_UNAVAILABLE" };
    candidate = run.next();
  }
  throw run.failure();
}
