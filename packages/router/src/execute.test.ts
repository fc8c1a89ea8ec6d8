import { describe, expect, it } from "vitest";
import { AfwError, BackendError, type FlowStreamChunk, type RoutingCandidate, type RoutingDecision } from "@afw/contracts";
import { createCircuitBreaker } from "./circuit-breaker.js";
import { executeStream } from "./execute-stream.js";
import { executeWithFallback, type ExecuteOptions, type ExecutionStreamChunk, type StreamRestartChunk } from "./execute.js";
import { createPerformanceTracker } from "./performance-tracker.js";
import { collectingTrace, createFakeBackend, result, wait, type FakeBackend } from "../test/fake-backend.js";

const candidate = (backendId: string, flow: string, rank: number, score = 1 - rank / 10): RoutingCandidate => ({
  backendId,
  backendKind: "flowise",
  flowId: `${backendId}:${flow}`,
  backendFlowId: flow,
  flowName: flow,
  score,
  breakdown: { flow_match: 1, health: 1, performance: 0.5, capability: 1 },
  rank,
});

const decisionOf = (candidates: RoutingCandidate[], strategy: RoutingDecision["strategy"] = "direct"): RoutingDecision => ({
  intent: "conversation",
  confidence: 0.9,
  confidenceLevel: "high",
  method: "explicit",
  alternatives: [],
  weights: { flow_match: 0.4, health: 0.3, performance: 0.2, capability: 0.1 },
  candidates,
  chosen: candidates[0] ? { backendId: candidates[0].backendId, flowId: candidates[0].flowId, backendFlowId: candidates[0].backendFlowId } : null,
  strategy,
  reason: "test",
});

const failing = (code: ConstructorParameters<typeof BackendError>[0], statusCode?: number) => () => {
  throw new BackendError(code, `${code} from fake`, { statusCode });
};

const opts = (backends: FakeBackend[], extra: Partial<ExecuteOptions> = {}): ExecuteOptions => ({
  backends,
  retry: { baseDelayMs: 1, maxDelayMs: 2 },
  random: () => 0.5,
  ...extra,
});

describe("executeWithFallback", () => {
  it("returns the first candidate's answer when it succeeds", async () => {
    const a = createFakeBackend({ id: "a" });
    const out = await executeWithFallback(decisionOf([candidate("a", "x", 1)]), { question: "hi" }, opts([a]));
    expect(out.result.text).toBe("answer from a");
    expect(out.fallbackUsed).toBe(false);
    expect(out.attempts).toHaveLength(1);
    expect(a.calls[0]).toMatchObject({ flowId: "x", question: "hi" });
  });

  it("retries once on a retryable error, with a jittered backoff, then succeeds", async () => {
    const trace = collectingTrace();
    const a = createFakeBackend({ id: "a", execute: (_r, _s, call) => (call === 1 ? failing("BACKEND_UNAVAILABLE", 503)() : "second try") });
    const out = await executeWithFallback(decisionOf([candidate("a", "x", 1)]), { question: "q" }, opts([a], { trace, retry: { baseDelayMs: 10, maxDelayMs: 100 }, random: () => 0.25 }));
    expect(out.result.text).toBe("second try");
    expect(out.attempts.map((x) => x.outcome)).toEqual(["error", "success"]);
    const retry = trace.ofType("retry-scheduled")[0]!;
    expect(retry).toMatchObject({ backendId: "a", errorCode: "BACKEND_UNAVAILABLE", attempt: 2 });
    expect(retry.delayMs).toBe(9); // computeBackoffDelay: 10 * (0.8 + 0.2 * 0.25) = 8.5, rounded
  });

  it("primary fails -> secondary answers, preferring another backend", async () => {
    const trace = collectingTrace();
    const a = createFakeBackend({ id: "a", execute: failing("BACKEND_UNAVAILABLE", 502) });
    const b = createFakeBackend({ id: "b" });
    const decision = decisionOf([candidate("a", "x", 1), candidate("a", "y", 2), candidate("b", "z", 3)]);
    const out = await executeWithFallback(decision, { question: "q" }, opts([a, b], { trace }));
    expect(out.result.text).toBe("answer from b");
    expect(out.fallbackUsed).toBe(true);
    expect(out.candidate.flowId).toBe("b:z");
    expect(a.calls.map((c) => c.flowId)).toEqual(["x", "x"]); // one retry, then skip a:y for another backend
    expect(trace.ofType("fallback-triggered")[0]).toMatchObject({ fromBackendId: "a", toBackendId: "b", reason: "BACKEND_UNAVAILABLE" });
  });

  it("does not retry non-retryable errors (auth, flow not found) but still falls back", async () => {
    const a = createFakeBackend({ id: "a", execute: failing("BACKEND_AUTH_FAILED", 401) });
    const b = createFakeBackend({ id: "b", execute: failing("FLOW_NOT_FOUND", 404) });
    const c = createFakeBackend({ id: "c" });
    const out = await executeWithFallback(decisionOf([candidate("a", "x", 1), candidate("b", "y", 2), candidate("c", "z", 3)]), { question: "q" }, opts([a, b, c]));
    expect(out.result.backendId).toBe("c");
    expect(a.calls).toHaveLength(1);
    expect(b.calls).toHaveLength(1);
  });

  it("throws ALL_BACKENDS_FAILED listing every attempt when all fail", async () => {
    const a = createFakeBackend({ id: "a", execute: failing("BACKEND_UNAVAILABLE", 500) });
    const b = createFakeBackend({ id: "b", execute: failing("BACKEND_AUTH_FAILED", 401) });
    const error = await executeWithFallback(decisionOf([candidate("a", "x", 1), candidate("b", "y", 2)]), { question: "q" }, opts([a, b])).catch((e: unknown) => e);
    expect(AfwError.isInstance(error)).toBe(true);
    const e = error as AfwError;
    expect(e.code).toBe("ALL_BACKENDS_FAILED");
    const attempts = e.details?.attempts as { backendId: string; code: string; latencyMs: number; backendFlowId: string; message: string }[];
    expect(attempts.map((x) => [x.backendId, x.backendFlowId, x.code])).toEqual([
      ["a", "x", "BACKEND_UNAVAILABLE"],
      ["a", "x", "BACKEND_UNAVAILABLE"],
      ["b", "y", "BACKEND_AUTH_FAILED"],
    ]);
    expect(attempts.every((x) => typeof x.latencyMs === "number" && x.message.length > 0)).toBe(true);
  });

  it("throws NO_BACKENDS_AVAILABLE when there is nothing to try", async () => {
    await expect(executeWithFallback(decisionOf([]), { question: "q" }, opts([]))).rejects.toMatchObject({ code: "NO_BACKENDS_AVAILABLE" });
  });

  it("times out a hanging attempt, aborts its signal and falls back", async () => {
    const trace = collectingTrace();
    const a = createFakeBackend({ id: "a", execute: (_r, signal) => new Promise<string>((_, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted")))) });
    const b = createFakeBackend({ id: "b" });
    const out = await executeWithFallback(decisionOf([candidate("a", "x", 1), candidate("b", "y", 2)]), { question: "q" }, opts([a, b], { attemptTimeoutMs: 30, retry: { retries: 0 }, trace }));
    expect(out.result.backendId).toBe("b");
    expect(out.attempts[0]).toMatchObject({ backendId: "a", outcome: "timeout", code: "BACKEND_TIMEOUT" });
    expect(a.calls[0]!.signal?.aborted).toBe(true);
    expect(trace.ofType("backend-call-end")[0]).toMatchObject({ outcome: "timeout", errorCode: "BACKEND_TIMEOUT" });
  });

  it("respects the user's timeout as the overall limit, even when the backend ignores its signal", async () => {
    const a = createFakeBackend({ id: "a", execute: () => new Promise<string>(() => {}) });
    const started = performance.now();
    const error = await executeWithFallback(decisionOf([candidate("a", "x", 1)]), { question: "q", timeoutMs: 60 }, opts([a])).then(() => undefined, (e: unknown) => e as AfwError);
    expect(error?.code).toBe("ALL_BACKENDS_FAILED");
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("stops with ABORTED when the caller aborts", async () => {
    const controller = new AbortController();
    const a = createFakeBackend({ id: "a", execute: async (_r, signal) => {
      controller.abort();
      await wait(1_000, signal);
      return "late";
    } });
    const b = createFakeBackend({ id: "b" });
    const error = await executeWithFallback(decisionOf([candidate("a", "x", 1), candidate("b", "y", 2)]), { question: "q" }, opts([a, b], { signal: controller.signal })).then(() => undefined, (e: unknown) => e as AfwError);
    expect(error?.code).toBe("ABORTED");
    expect(b.calls).toHaveLength(0);
  });

  it("hedges: runs the top two backends in parallel, first success wins, the loser is cancelled", async () => {
    const trace = collectingTrace();
    const slow = createFakeBackend({ id: "slow", execute: async (_r, signal) => {
      await wait(5_000, signal);
      return "slow answer";
    } });
    const fast = createFakeBackend({ id: "fast", execute: async (_r, signal) => {
      await wait(5, signal);
      return "fast answer";
    } });
    const performance = createPerformanceTracker();
    const out = await executeWithFallback(decisionOf([candidate("slow", "x", 1), candidate("fast", "y", 2)], "hedge"), { question: "q" }, opts([slow, fast], { trace, performance }));
    expect(out.result.text).toBe("fast answer");
    expect(out.hedged).toBe(true);
    expect(slow.calls[0]!.signal?.aborted).toBe(true);
    expect(trace.ofType("hedge-started")[0]!.flowIds).toEqual(["slow:x", "fast:y"]);
    expect(out.attempts.find((x) => x.backendId === "slow")).toMatchObject({ outcome: "aborted", hedged: true });
    expect((await performance.store.window({ backendId: "fast" })).map((s) => s.success)).toEqual([true]);
  });

  it("hedging continues with the next candidates when both hedged attempts fail", async () => {
    const a = createFakeBackend({ id: "a", execute: failing("BACKEND_AUTH_FAILED", 401) });
    const b = createFakeBackend({ id: "b", execute: failing("BACKEND_AUTH_FAILED", 401) });
    const c = createFakeBackend({ id: "c" });
    const out = await executeWithFallback(decisionOf([candidate("a", "x", 1), candidate("b", "y", 2), candidate("c", "z", 3)], "hedge"), { question: "q" }, opts([a, b, c]));
    expect(out.result.backendId).toBe("c");
  });

  it("records every call in the performance store and the circuit breaker; an open circuit is skipped", async () => {
    let now = 0;
    const breaker = createCircuitBreaker({ failureThreshold: 2, cooldownMs: 1_000, now: () => now });
    const performance = createPerformanceTracker();
    const a = createFakeBackend({ id: "a", execute: failing("BACKEND_UNAVAILABLE", 503) });
    const b = createFakeBackend({ id: "b" });
    const decision = decisionOf([candidate("a", "x", 1), candidate("b", "y", 2)]);
    await executeWithFallback(decision, { question: "q" }, opts([a, b], { circuitBreaker: breaker, performance }));
    expect((await breaker.state("a")).state).toBe("open");
    const samples = await performance.store.window({ backendId: "a", flowId: "a:x" });
    expect(samples.map((s) => [s.success, s.errorCode])).toEqual([
      [false, "BACKEND_UNAVAILABLE"],
      [false, "BACKEND_UNAVAILABLE"],
    ]);
    const second = await executeWithFallback(decision, { question: "q" }, opts([a, b], { circuitBreaker: breaker, performance }));
    expect(a.calls).toHaveLength(2); // not called again
    expect(second.attempts[0]).toMatchObject({ backendId: "a", outcome: "skipped", code: "CIRCUIT_OPEN" });
    now = 1_000; // cooldown over: one probe passes, success closes
    const aHealed = createFakeBackend({ id: "a" });
    const third = await executeWithFallback(decision, { question: "q" }, opts([aHealed, b], { circuitBreaker: breaker, performance }));
    expect(third.result.backendId).toBe("a");
    expect((await breaker.state("a")).state).toBe("closed");
  });

  it("falls back to any healthy backend beyond maxCandidates", async () => {
    const a = createFakeBackend({ id: "a", execute: failing("BACKEND_AUTH_FAILED") });
    const c = createFakeBackend({ id: "c" });
    const decision = decisionOf([candidate("a", "x1", 1), candidate("a", "x2", 2), candidate("c", "z", 3, 0.1)]);
    const out = await executeWithFallback(decision, { question: "q" }, opts([a, c], { maxCandidates: 1 }));
    expect(out.result.backendId).toBe("c");
  });
});

async function collect(iterable: AsyncIterable<ExecutionStreamChunk>): Promise<ExecutionStreamChunk[]> {
  const out: ExecutionStreamChunk[] = [];
  for await (const c of iterable) out.push(c);
  return out;
}

describe("executeStream", () => {
  it("streams tokens and ends with the result", async () => {
    const a = createFakeBackend({
      id: "a",
      stream: async function* (request) {
        yield { type: "start" };
        yield { type: "token", text: "Hel" };
        yield { type: "token", text: "lo" };
        yield { type: "end", result: result("a", request.flowId, "Hello") };
      },
    });
    const chunks = await collect(executeStream(decisionOf([candidate("a", "x", 1)]), { question: "q" }, opts([a])));
    expect(chunks.map((c) => c.type)).toEqual(["start", "token", "token", "end"]);
  });

  it("falls back before the first token, discarding the failed attempt's held chunks", async () => {
    const trace = collectingTrace();
    const a = createFakeBackend({
      id: "a",
      stream: async function* () {
        yield { type: "start" };
        throw new BackendError("BACKEND_UNAVAILABLE", "down", { statusCode: 503 });
      },
    });
    const b = createFakeBackend({
      id: "b",
      stream: async function* (request) {
        yield { type: "token", text: "ok" };
        yield { type: "end", result: result("b", request.flowId, "ok") };
      },
    });
    const chunks = await collect(executeStream(decisionOf([candidate("a", "x", 1), candidate("b", "y", 2)]), { question: "q" }, opts([a, b], { trace })));
    expect(chunks.map((c) => c.type)).toEqual(["token", "end"]);
    expect(a.calls).toHaveLength(2); // retried once
    expect(trace.ofType("fallback-triggered")).toHaveLength(1);
  });

  it("with maxStreamRestarts 0, a failure after a token is thrown, never a silent switch", async () => {
    const a = createFakeBackend({
      id: "a",
      stream: async function* () {
        yield { type: "token", text: "partial" };
        throw new BackendError("BACKEND_UNAVAILABLE", "connection reset", { statusCode: 502 });
      },
    });
    const b = createFakeBackend({ id: "b" });
    const seen: ExecutionStreamChunk[] = [];
    const error = await (async () => {
      for await (const c of executeStream(decisionOf([candidate("a", "x", 1), candidate("b", "y", 2)]), { question: "q" }, opts([a, b], { maxStreamRestarts: 0 }))) seen.push(c);
    })().catch((e: unknown) => e as AfwError);
    expect(error).toMatchObject({ code: "BACKEND_UNAVAILABLE" });
    expect(seen.map((c) => c.type)).toEqual(["token"]);
    expect(b.calls).toHaveLength(0);
  });

  /** A stream of `words` that throws (connection reset) after `cutAfter` tokens on the calls listed in `cutCalls`. */
  const cutStream =
    (words: string[], cutAfter: number, cutCalls: (call: number) => boolean) =>
    async function* (request: { flowId: string }, _signal: AbortSignal | undefined, call: number): AsyncGenerator<FlowStreamChunk> {
      for (const [i, word] of words.entries()) {
        if (cutCalls(call) && i === cutAfter) throw new BackendError("BACKEND_UNAVAILABLE", "connection reset", { statusCode: 502 });
        yield { type: "token", text: word };
      }
      yield { type: "end", result: result("a", request.flowId, words.join("")) };
    };
  const textAfterLastRestart = (chunks: ExecutionStreamChunk[]) => {
    const last = chunks.map((c) => c.type).lastIndexOf("restart");
    return chunks
      .slice(last + 1)
      .map((c) => (c.type === "token" ? c.text : ""))
      .join("");
  };

  it("a stream cut after tokens restarts on the same candidate (retry) with a restart chunk, and the answer after it is complete", async () => {
    const trace = collectingTrace();
    const a = createFakeBackend({ id: "a", stream: cutStream(["one ", "two ", "three"], 2, (call) => call === 1) });
    const stream = executeStream(decisionOf([candidate("a", "x", 1)]), { question: "q" }, opts([a], { trace }));
    const chunks: ExecutionStreamChunk[] = [];
    let next = await stream.next();
    while (!next.done) {
      chunks.push(next.value);
      next = await stream.next();
    }
    expect(chunks.map((c) => c.type)).toEqual(["token", "token", "restart", "token", "token", "token", "end"]);
    const restart = chunks[2] as StreamRestartChunk;
    expect(restart).toMatchObject({ reason: "BACKEND_UNAVAILABLE", from: { backendId: "a", flowId: "a:x" }, restart: 1, tokensDiscarded: 2 });
    expect(restart.nextCandidate.flowId).toBe("a:x");
    expect(textAfterLastRestart(chunks)).toBe("one two three");
    expect(next.value).toMatchObject({ restarts: 1, fallbackUsed: false, result: { text: "one two three" } });
    expect(next.value!.attempts.map((x) => x.outcome)).toEqual(["error", "success"]);
    expect(trace.ofType("stream-restarted")).toEqual([
      expect.objectContaining({ fromBackendId: "a", fromFlowId: "a:x", toBackendId: "a", toFlowId: "a:x", reason: "BACKEND_UNAVAILABLE", restart: 1, tokensDiscarded: 2 }),
    ]);
  });

  it("restarts on the next candidate when the cut candidate has no retry left (fallback after the first token)", async () => {
    const trace = collectingTrace();
    const a = createFakeBackend({ id: "a", stream: cutStream(["a1 ", "a2 ", "a3"], 1, () => true) });
    const b = createFakeBackend({ id: "b", stream: cutStream(["b1 ", "b2"], 99, () => false) });
    const chunks = await collect(executeStream(decisionOf([candidate("a", "x", 1), candidate("b", "y", 2)]), { question: "q" }, opts([a, b], { trace, retry: { retries: 0 } })));
    const restarts = chunks.filter((c): c is StreamRestartChunk => c.type === "restart");
    expect(restarts).toHaveLength(1);
    expect(restarts[0]!.nextCandidate).toMatchObject({ backendId: "b", flowId: "b:y" });
    expect(textAfterLastRestart(chunks)).toBe("b1 b2");
    expect(trace.ofType("fallback-triggered")[0]).toMatchObject({ fromBackendId: "a", toBackendId: "b" });
  });

  it("stops restarting after maxStreamRestarts and throws the attempt's error", async () => {
    const a = createFakeBackend({ id: "a", stream: cutStream(["1", "2", "3"], 1, () => true) });
    const b = createFakeBackend({ id: "b", stream: cutStream(["1", "2", "3"], 1, () => true) });
    const c = createFakeBackend({ id: "c" });
    const seen: ExecutionStreamChunk[] = [];
    const error = await (async () => {
      const decision = decisionOf([candidate("a", "x", 1), candidate("b", "y", 2), candidate("c", "z", 3)]);
      for await (const chunk of executeStream(decision, { question: "q" }, opts([a, b, c], { retry: { retries: 0 }, maxStreamRestarts: 1 }))) seen.push(chunk);
    })().catch((e: unknown) => e as AfwError);
    expect(error).toMatchObject({ code: "BACKEND_UNAVAILABLE" });
    expect(seen.filter((chunk) => chunk.type === "restart")).toHaveLength(1);
    expect(c.calls).toHaveLength(0);
  });

  it("gives up with ALL_BACKENDS_FAILED when no candidate is left to restart on", async () => {
    const a = createFakeBackend({ id: "a", stream: cutStream(["1", "2", "3"], 1, () => true) });
    const error = await collect(executeStream(decisionOf([candidate("a", "x", 1)]), { question: "q" }, opts([a]))).catch((e: unknown) => e as AfwError);
    expect(error).toMatchObject({ code: "ALL_BACKENDS_FAILED" });
    expect(a.calls).toHaveLength(2); // the first try and its one retry, each cut
  });

  it("does not restart when the caller aborted", async () => {
    const controller = new AbortController();
    const a = createFakeBackend({
      id: "a",
      stream: async function* (_r, signal) {
        yield { type: "token", text: "1" };
        controller.abort();
        await wait(10_000, signal);
        yield { type: "token", text: "2" };
      },
    });
    const seen: ExecutionStreamChunk[] = [];
    const error = await (async () => {
      for await (const chunk of executeStream(decisionOf([candidate("a", "x", 1)]), { question: "q" }, opts([a], { signal: controller.signal }))) seen.push(chunk);
    })().catch((e: unknown) => e as AfwError);
    expect(error).toMatchObject({ code: "ABORTED" });
    expect(seen.map((c) => c.type)).toEqual(["token"]);
    expect(a.calls).toHaveLength(1);
  });

  it("uses execute() as one end chunk for backends without streaming, and times out the first token", async () => {
    const hang = createFakeBackend({
      id: "hang",
      stream: async function* (_r, signal) {
        await wait(10_000, signal);
        yield { type: "token", text: "never" };
      },
    });
    const plain = createFakeBackend({ id: "plain" });
    const chunks = await collect(executeStream(decisionOf([candidate("hang", "x", 1), candidate("plain", "y", 2)]), { question: "q" }, opts([hang, plain], { attemptTimeoutMs: 30, retry: { retries: 0 } })));
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ type: "end", result: { text: "answer from plain" } });
    expect(hang.calls[0]!.signal?.aborted).toBe(true);
  });

  it("cancels the backend stream when the consumer stops early", async () => {
    const a = createFakeBackend({
      id: "a",
      stream: async function* (_r, signal) {
        yield { type: "token", text: "1" };
        await wait(10_000, signal);
        yield { type: "token", text: "2" };
      },
    });
    for await (const c of executeStream(decisionOf([candidate("a", "x", 1)]), { question: "q" }, opts([a]))) {
      expect(c.type).toBe("token");
      break;
    }
    expect(a.calls[0]!.signal?.aborted).toBe(true);
  });
});
