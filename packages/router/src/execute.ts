import {
  AfwError,
  emitTrace,
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
import { setTimeout as sleep } from "node:timers/promises";
import { AttemptTimeout, ExecutionRun, HedgeCancelled, normalizeError, type FailureOutcome } from "./execution-run.js";

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
   * With `fallbackUsed`: why the first choice did not answer — the error code of its last attempt (`BACKEND_TIMEOUT`,
   * `CIRCUIT_OPEN` when its open circuit skipped it, ...), or `hedge` when the hedged partner answered first.
   */
  fallbackReason?: string;
  /** True when the first step was hedged. */
  hedged: boolean;
  durationMs: number;
  /** Streams only: how many times the answer restarted after a stream broke mid-way (see {@link StreamRestartChunk}). */
  restarts?: number;
}

/**
 * Yielded by {@link executeStream} when a stream broke after tokens had been yielded and the answer starts again on
 * `nextCandidate` (a retry of the same candidate, or a fallback).
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
  /** First backoff delay (`computeBackoffDelay` of `@afw/contracts`: doubling, capped, up to a fifth less at random). @default 250 */
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
   * {@link executeStream} only: how many times a stream that broke after tokens were yielded may restart (yielding a {@link
   * StreamRestartChunk}, then retry/fallback as before the first token).
   * @default maxCandidates (3)
   */
  maxStreamRestarts?: number;
}

/** The request without the flow id (the executor sets it per candidate). */
export type ExecutionRequest = Omit<FlowExecutionRequest, "flowId">;


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
  const started = run.began(candidate, attempt, false, hedged);
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
    await run.ended(candidate, attempt, started, undefined, hedged);
    return { ok: true, result: { ...result, latencyMs: result.latencyMs ?? run.attempts.at(-1)!.latencyMs } };
  } catch (thrown) {
    const reason = controller.signal.aborted ? controller.signal.reason : thrown;
    const failure = normalizeError(reason instanceof AttemptTimeout || reason instanceof HedgeCancelled ? reason : thrown, candidate, run.options.signal, timeoutMs);
    await run.ended(candidate, attempt, started, failure, hedged);
    return { ok: false, ...failure };
  } finally {
    clearTimeout(timer);
    run.options.signal?.removeEventListener("abort", onUserAbort);
    cancel?.removeEventListener("abort", onCancel);
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
    const delayMs = run.retryDelay(candidate, retry, outcome);
    if (delayMs === undefined) break;
    const signals = [run.options.signal, cancel].filter((s): s is AbortSignal => s !== undefined);
    try {
      await sleep(delayMs, undefined, { signal: AbortSignal.any(signals) });
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
  run.skipExcludedFirst();
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
      if (winner) return run.succeeded(winner.result, pair[winner.index]!, true);
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
    if (!AfwError.isInstance(outcome)) return run.succeeded(outcome, candidate, hedgedRun);
    if (outcome.code === "ABORTED") break;
    run.failedBackends.add(candidate.backendId);
    run.lastFailed = { candidate, code: outcome.code };
    candidate = run.next();
  }
  throw run.failure();
}
