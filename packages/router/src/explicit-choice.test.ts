/**
 * Explicit choices are binding, fallbacks say so, and a hung first choice leaves the fallback a
 * turn inside the caller's deadline (issue 16, items 3 and 4).
 */
import { describe, expect, it } from "vitest";
import { AfwError, BackendError } from "@afw/contracts";
import { attemptBudgetMs } from "./execution-run.js";
import { createRouter } from "./router.js";
import type { RouterOptions } from "./router-options.js";
import { createFakeBackend, fixedClassifier, wait, type FakeBehavior } from "../test/fake-backend.js";

const hang: FakeBehavior = async (_request, signal) => {
  await wait(600_000, signal);
  return "never";
};

function setup(options: { flowise?: FakeBehavior; langflow?: FakeBehavior; router?: Partial<RouterOptions> } = {}) {
  const flowise = createFakeBackend({
    id: "flowise",
    kind: "flowise",
    flows: [
      { id: "chat", name: "Support chat", intents: ["conversation"] },
      { id: "docs", name: "Docs QA", intents: ["conversation"] },
    ],
    ...(options.flowise ? { execute: options.flowise } : {}),
  });
  const langflow = createFakeBackend({ id: "langflow", kind: "langflow", flows: [{ id: "talk", name: "Talk", intents: ["conversation"] }], ...(options.langflow ? { execute: options.langflow } : {}) });
  const router = createRouter({
    backends: [flowise, langflow],
    classifier: fixedClassifier("conversation", 0.95),
    hedging: { enabled: false },
    circuitBreaker: { failureThreshold: 1, syncIntervalMs: 0 },
    execution: { retry: { baseDelayMs: 1, maxDelayMs: 2 } },
    ...options.router,
  });
  return { flowise, langflow, router };
}

describe("an explicit backend whose circuit is open", () => {
  it("is refused with CIRCUIT_OPEN, and nothing else answers in its place", async () => {
    const { router, flowise, langflow } = setup();
    await router.circuits.recordFailure("flowise");
    const decision = await router.route({ question: "hello", backend: "flowise" });
    expect(decision.binding).toBe(true);
    expect(decision.candidates.every((c) => c.backendId === "flowise")).toBe(true);
    const error = await router.execute({ question: "hello", backend: "flowise" }).then(() => expect.fail("expected a rejection"), (e: AfwError) => e);
    expect(error.code).toBe("CIRCUIT_OPEN");
    expect(error.message).toContain("allow_fallback");
    expect(flowise.calls).toHaveLength(0);
    expect(langflow.calls).toHaveLength(0);
  });

  it("with allowFallback is answered by another backend, reported as a fallback with its reason", async () => {
    const { router, flowise } = setup();
    await router.circuits.recordFailure("flowise");
    const out = await router.execute({ question: "hello", backend: "flowise", allowFallback: true });
    expect(out.decision.binding).toBeUndefined();
    expect(out.decision.chosen?.backendId).toBe("flowise");
    expect(out.candidate.backendId).toBe("langflow");
    expect(out.fallbackUsed).toBe(true);
    expect(out.fallbackReason).toBe("CIRCUIT_OPEN");
    expect(out.attempts.map((a) => [a.backendId, a.outcome])).toEqual([
      ["flowise", "skipped"],
      ["langflow", "success"],
    ]);
    expect(flowise.calls).toHaveLength(0);
  });

  it("is tried when only a (possibly stale) health snapshot says it is down", async () => {
    const { router, flowise } = setup();
    flowise.setHealth("down");
    await router.warmUp();
    const out = await router.execute({ question: "hello", backend: "flowise" });
    expect(out.candidate.backendId).toBe("flowise");
    expect(out.fallbackUsed).toBe(false);
  });
});

describe("an explicit flow that fails", () => {
  const gone = () => {
    throw new BackendError("FLOW_NOT_FOUND", "no such chatflow", { statusCode: 404, isRetryable: false });
  };

  it("is refused with the flow's own error, and no other flow answers", async () => {
    const { router, flowise, langflow } = setup({ flowise: (request) => (request.flowId === "chat" ? gone() : "docs answer") });
    const error = await router.execute({ question: "hello", flowId: "chat" }).then(() => expect.fail("expected a rejection"), (e: AfwError) => e);
    expect(error.code).toBe("FLOW_NOT_FOUND");
    expect(flowise.calls.map((c) => c.flowId)).toEqual(["chat"]);
    expect(langflow.calls).toHaveLength(0);
  });

  it("with allowFallback is answered by another flow, with fallbackUsed and the reason", async () => {
    const { router } = setup({ flowise: (request) => (request.flowId === "chat" ? gone() : "docs answer") });
    const out = await router.execute({ question: "hello", flowId: "chat", allowFallback: true });
    expect(out.candidate.flowId).not.toBe("flowise:chat");
    expect(out.fallbackUsed).toBe(true);
    expect(out.fallbackReason).toBe("FLOW_NOT_FOUND");
    expect(out.attempts[0]).toMatchObject({ flowId: "flowise:chat", outcome: "error", code: "FLOW_NOT_FOUND" });
  });
});

describe("a hung first choice", () => {
  it("with default execution settings leaves the fallback a turn inside a 2 s deadline, without retrying the timeout first", async () => {
    const { router, flowise } = setup({ flowise: hang, router: { execution: {} } });
    const out = await router.execute({ question: "hello", timeoutMs: 2_000 });
    expect(out.decision.chosen?.backendId).toBe("flowise");
    expect(out.candidate.backendId).toBe("langflow");
    expect(out.result.text).toBe("answer from langflow");
    expect(out.fallbackUsed).toBe(true);
    expect(out.fallbackReason).toBe("BACKEND_TIMEOUT");
    expect(flowise.calls).toHaveLength(1);
  });

  it("gets at most half of the default 30 s budget while another candidate waits, all of it when none does", () => {
    // Defaults: attemptTimeoutMs 30 s, a 30 s query timeout.
    expect(attemptBudgetMs(30_000, 30_000, true)).toBe(15_000);
    expect(attemptBudgetMs(30_000, 30_000, false)).toBe(30_000);
    // The second of three candidates, 15 s left: half again; the floor keeps short deadlines usable.
    expect(attemptBudgetMs(15_000, 30_000, true)).toBe(7_500);
    expect(attemptBudgetMs(1_500, 30_000, true)).toBe(1_000);
    expect(attemptBudgetMs(600, 30_000, true)).toBe(600);
    // A backend's own shorter timeout still wins.
    expect(attemptBudgetMs(30_000, 5_000, true)).toBe(5_000);
  });
});
