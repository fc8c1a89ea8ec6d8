import { AfwError, BackendError, emitTrace, type FlowExecutionRequest, type FlowStreamChunk, type RoutingCandidate, type RoutingDecision } from "@afw/contracts";
import type { ExecuteOptions, ExecutionOutcome, ExecutionRequest, ExecutionStreamChunk } from "./execute.js";
import { setTimeout as sleep } from "node:timers/promises";
import { AttemptTimeout, ExecutionRun, HedgeCancelled, normalizeError } from "./execution-run.js";

/**
 * Streaming variant of {@link executeWithFallback}: yields the chunks of `backend.stream` (or one `end` chunk from `execute` for
 * backends without streaming).
 * @throws AfwError like {@link executeWithFallback}; with `maxStreamRestarts: 0` (or once the
 * restarts are used up), a failure after the first token throws the attempt's error.
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
      const started = run.began(candidate, attempt, true);
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
            await run.ended(candidate, attempt, started);
            return { ...run.succeeded(chunk.result, candidate, false), restarts };
          }
        }
      } catch (thrown) {
        const reason = controller.signal.aborted ? controller.signal.reason : thrown;
        const failure = normalizeError(reason instanceof AttemptTimeout ? reason : thrown, candidate, options.signal, timeoutMs);
        const { error, outcome } = failure;
        await run.ended(candidate, attempt, started, failure);
        if (outcome === "aborted") throw error;
        if (emitted) {
          // Tokens of this attempt reached the caller: restart (announced when the next attempt starts) or, with no
          // restart left, fail with the attempt's error.
          if (restarts >= maxRestarts) throw error;
          pendingRestart = { error, from: candidate, tokens };
        }
        lastError = error;
        const delayMs = run.retryDelay(candidate, retry, failure);
        if (delayMs === undefined) break;
        try {
          await sleep(delayMs, undefined, options.signal ? { signal: options.signal } : {});
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
