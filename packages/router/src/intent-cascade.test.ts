import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AfwError, INTENTS, type Embedder } from "@afw/contracts";
import { createIntentClassifier, type IntentClassifier } from "./intent-classifier.js";
import { combineCascade, parseCascadeSettings } from "./intent-cascade.js";
import { createRouter } from "./router.js";
import { collectingTrace, createFakeBackend } from "../test/fake-backend.js";

/**
 * Stands in for the second model's embedder (the id of the Universal Sentence Encoder lite, so the bundled model of that
 * embedder answers): zero vectors at once, or held until `release()`, or a failure.
 */
function fakeSecondEmbedder(behaviour: "zeros" | "held" | "fails" | "overloaded" | "never" = "zeros") {
  const held: (() => void)[] = [];
  const embedder: Embedder & { calls: number; release(): void } = {
    id: "use-lite-512",
    dimensions: 512,
    calls: 0,
    release: () => held.splice(0).forEach((go) => go()),
    embed: (texts) => {
      embedder.calls++;
      const vectors = texts.map(() => new Float32Array(512));
      if (behaviour === "fails") return Promise.reject(new Error("worker crashed"));
      if (behaviour === "overloaded") return Promise.reject(new AfwError("RATE_LIMITED", "queue full"));
      if (behaviour === "never") return new Promise<Float32Array[]>(() => {});
      if (behaviour === "held") return new Promise<Float32Array[]>((resolve) => held.push(() => resolve(vectors)));
      return Promise.resolve(vectors);
    },
  };
  return embedder;
}

// Written for these tests: a question the static model is sure of, one it is less sure of.
const CLEAR = "Why does my Docker build fail with permission denied on the mounted volume?";
const VAGUE = "hmm what about the thing from before";

describe("intent classifier cascade", () => {
  let single: IntentClassifier;
  beforeAll(async () => {
    single = createIntentClassifier();
    await single.warmUp();
  }, 60_000);

  it("keeps the first model's answer when it is sure enough, without asking the second model", async () => {
    const second = fakeSecondEmbedder();
    const classifier = createIntentClassifier({ cascade: { embedder: second, threshold: 0.5 } });
    const alone = await single.classify(CLEAR);
    expect(alone.confidence).toBeGreaterThanOrEqual(0.5);
    const c = await classifier.classify(CLEAR);
    expect(c).toMatchObject({ intent: alone.intent, confidence: alone.confidence, cascade: "confident" });
    expect(second.calls).toBe(0);
  });

  it("asks the second model below the threshold, and its calibrated probabilities answer", async () => {
    const second = fakeSecondEmbedder();
    const classifier = createIntentClassifier({ cascade: { embedder: second, threshold: 1 } });
    const c = await classifier.classify(VAGUE);
    expect(c.cascade).toBe("escalated");
    expect(second.calls).toBe(1);
    expect(["semantic", "hybrid"]).toContain(c.method);
    expect(Object.values(c.probabilities).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    expect(c.confidence).toBe(Math.max(...Object.values(c.probabilities)));
    // The second model's answer differs from the first one's (a zero embedding), so the probabilities are the second model's.
    expect(c.probabilities).not.toEqual((await single.classify(VAGUE)).probabilities);
  });

  it.each(["fails", "overloaded", "never"] as const)("keeps the first model's answer when the second model %s", async (behaviour) => {
    const classifier = createIntentClassifier({ cascade: { embedder: fakeSecondEmbedder(behaviour), threshold: 1, timeoutMs: 5 } });
    const alone = await single.classify(VAGUE);
    const c = await classifier.classify(VAGUE);
    expect(c).toMatchObject({ intent: alone.intent, confidence: alone.confidence, method: alone.method, cascade: "escalation-failed" });
  });

  it("keeps the first model's answer when the second model cannot be loaded in time", async () => {
    // No model ships for this embedder id: it would be trained at first use, on embeddings that never come.
    const stuck: Embedder = { id: "no-bundled-model-64", dimensions: 64, embed: () => new Promise<Float32Array[]>(() => {}) };
    const classifier = createIntentClassifier({ cascade: { embedder: stuck, threshold: 1, timeoutMs: 5 } });
    expect((await classifier.classify(VAGUE)).cascade).toBe("escalation-failed");
  });

  it("answers other questions while one waits for the second model (the wait does not block)", async () => {
    const second = fakeSecondEmbedder("held");
    const classifier = createIntentClassifier({ cascade: { embedder: second, threshold: 0.5 } });
    const waiting = classifier.classify(VAGUE, {}).then((c) => c);
    let settled = false;
    void waiting.then(() => (settled = true));
    // The vague question is unsure for the static model (checked), so it waits for the held second model.
    expect((await single.classify(VAGUE)).confidence).toBeLessThan(0.5);
    await vi.waitFor(() => expect(second.calls).toBe(1));
    const clear = await classifier.classify(CLEAR);
    expect(clear.cascade).toBe("confident");
    expect(settled).toBe(false);
    second.release();
    expect((await waiting).cascade).toBe("escalated");
  });

  it("keeps the first answer at once while 16 escalations are waiting (overload), without queueing more", async () => {
    const second = fakeSecondEmbedder("held");
    const classifier = createIntentClassifier({ cascade: { embedder: second, threshold: 1 } });
    const waiting = Array.from({ length: 16 }, () => classifier.classify(VAGUE));
    await vi.waitFor(() => expect(second.calls).toBe(16));
    expect((await classifier.classify(VAGUE)).cascade).toBe("escalation-failed");
    expect(second.calls).toBe(16);
    second.release();
    expect((await Promise.all(waiting)).map((c) => c.cascade)).toEqual(Array(16).fill("escalated"));
    // Answered embeddings free their places.
    const next = classifier.classify(VAGUE);
    await vi.waitFor(() => expect(second.calls).toBe(17));
    second.release();
    expect((await next).cascade).toBe("escalated");
  });

  it("rejects with ABORTED when the caller aborts while the second model runs", async () => {
    const classifier = createIntentClassifier({ cascade: { embedder: fakeSecondEmbedder("never"), threshold: 1 } });
    const controller = new AbortController();
    const pending = classifier.classify(VAGUE, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: "ABORTED" });
  });

  it("does not run for explicit intents or the patterns' fast path, and reports the stage on the trace", async () => {
    const second = fakeSecondEmbedder();
    const classifier = createIntentClassifier({ cascade: { embedder: second, threshold: 1 } });
    const explicit = await classifier.classify(VAGUE, { intent: "data-processing" });
    expect(explicit.cascade).toBeUndefined();
    const fast = await classifier.classify("NullPointerException at Checkout.java:12 - here's the stack trace, help me debug it");
    expect(fast).toMatchObject({ method: "pattern" });
    expect(fast.cascade).toBeUndefined();
    expect(second.calls).toBe(0);
    const trace = collectingTrace();
    await classifier.classify(VAGUE, { trace });
    expect(trace.ofType("intent-classified")[0]).toMatchObject({ cascade: "escalated" });
    // The router's decision carries the stage too.
    const backend = createFakeBackend({ id: "flowise", kind: "flowise", flows: [{ id: "chat", name: "Chat", intents: ["conversation"], generalPurpose: true }] });
    const router = createRouter({ backends: [backend], classifier: createIntentClassifier({ cascade: { embedder: fakeSecondEmbedder(), threshold: 1 } }) });
    expect((await router.route({ question: VAGUE })).cascade).toBe("escalated");
    expect((await router.route({ question: VAGUE, intent: "conversation" })).cascade).toBeUndefined();
  });

  it("validates its settings and averages the two models when asked", () => {
    expect(() => createIntentClassifier({ cascade: { threshold: 2 } })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => createIntentClassifier({ cascade: { timeoutMs: 0 } })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(parseCascadeSettings({})).toEqual({ threshold: 0.7, timeoutMs: 500, combine: "replace" });
    const first = Float64Array.from([0.5, 0.5, 0, 0, 0, 0]);
    const second = Float64Array.from([0, 1, 0, 0, 0, 0]);
    expect(Array.from(combineCascade(first, second, "average"))).toEqual([0.25, 0.75, 0, 0, 0, 0]);
    expect(combineCascade(first, second, "replace")).toBe(second);
    expect(INTENTS).toHaveLength(first.length);
  });
});

describe("intent classifier cascade with the real Universal Sentence Encoder worker", () => {
  let classifier: IntentClassifier;
  beforeAll(async () => {
    // No embedder given: the classifier starts the process's embedding worker and closes it with itself.
    classifier = createIntentClassifier({ cascade: { threshold: 1, timeoutMs: 30_000 } });
    await classifier.warmUp();
  }, 120_000);
  afterAll(() => classifier.close?.());

  it("escalates to the USE model on the worker thread; closing the classifier stops the worker and a waiting question keeps the first answer", async () => {
    const c = await classifier.classify("Could you help me think through what to do next with it?");
    expect(c).toMatchObject({ cascade: "escalated", method: "semantic" });
    const waiting = classifier.classify("And what would you say about the other one then?");
    await classifier.close!();
    expect((await waiting).cascade).toBe("escalation-failed");
  });
});
