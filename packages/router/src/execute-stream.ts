import { AfwError, BackendError, emitTrace, type FlowExecutionRequest, type FlowStreamChunk, type RoutingCandidate, type RoutingDecision } from "@afw/contracts";
import type { ExecuteOptions, ExecutionOutcome, ExecutionRequest, ExecutionStreamChunk } from "./execute.js";
import { AttemptTimeout, ExecutionRun, HedgeCancelled, isRetryable, normalizeError, sleep } from "./execution-run.js";

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
          // Tokens of this attempt reached the caller: restart (announced when the next attempt starts) or, with no
          // restart left, fail with the attempt's error.
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
