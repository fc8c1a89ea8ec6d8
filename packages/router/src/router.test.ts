import { describe, expect, it } from "vitest";
import { AfwError, type Intent, type UniversalFlow } from "@afw/contracts";
import { createRouter } from "./router.js";
import type { RouterOptions } from "./router-options.js";
import type { BackendFlowSource } from "./flow-discovery-cache.js";
import { collectingTrace, createFakeBackend, fixedClassifier, toFlows, type FakeFlow } from "../test/fake-backend.js";

const flowiseFlows: FakeFlow[] = [
  { id: "chat", name: "Support chat", intents: ["conversation"] },
  { id: "docs", name: "Docs QA", intents: ["rag-retrieval", "conversation"] },
  { id: "general", name: "General assistant", generalPurpose: true },
];
const langflowFlows: FakeFlow[] = [
  { id: "rag", name: "Knowledge search", intents: ["rag-retrieval"] },
  { id: "coder", name: "Code reviewer", intents: ["technical-analysis"] },
];

function setup(intent: Intent, confidence: number, extra: Partial<RouterOptions> = {}) {
  const flowise = createFakeBackend({ id: "flowise", kind: "flowise", flows: flowiseFlows });
  const langflow = createFakeBackend({ id: "langflow", kind: "langflow", flows: langflowFlows });
  const router = createRouter({ backends: [flowise, langflow], classifier: fixedClassifier(intent, confidence), ...extra });
  return { flowise, langflow, router };
}

describe("Router.route", () => {
  it("ranks by the weighted score with a breakdown per candidate", async () => {
    const { router } = setup("rag-retrieval", 0.95);
    const d = await router.route({ question: "what does the handbook say about leave?" });
    expect(d.strategy).toBe("direct");
    expect(d.chosen).toEqual({ backendId: "langflow", flowId: "langflow:rag", backendFlowId: "rag" });
    const top = d.candidates[0]!;
    // flow_match 1, health 1 (healthy), performance 0.5 (no samples), capability 1 (langflow RAG)
    expect(top.breakdown).toEqual({ flow_match: 1, health: 1, performance: 0.5, capability: 1 });
    expect(top.score).toBeCloseTo(0.4 + 0.3 + 0.1 + 0.1, 6);
    const docs = d.candidates.find((c) => c.flowId === "flowise:docs")!;
    expect(docs.breakdown).toEqual({ flow_match: 1, health: 1, performance: 0.5, capability: 0.7 });
    const general = d.candidates.find((c) => c.flowId === "flowise:general")!;
    expect(general.breakdown.flow_match).toBe(0.3);
    expect(d.candidates.map((c) => c.rank)).toEqual(d.candidates.map((_, i) => i + 1));
    expect(d.candidates.map((c) => c.score)).toEqual([...d.candidates.map((c) => c.score)].sort((a, b) => b - a));
  });

  it("uses configurable weights", async () => {
    const { router } = setup("rag-retrieval", 0.95, { weights: { flow_match: 0, health: 0, performance: 0, capability: 1 } });
    const d = await router.route({ question: "q" });
    expect(d.weights.capability).toBe(1);
    expect(d.candidates[0]!.score).toBe(1);
  });

  it("breaks ties deterministically: score, then health, then backend id, then flow id", async () => {
    const a = createFakeBackend({ id: "b-two", kind: "custom", flows: [{ id: "z", intents: ["conversation"] }, { id: "a", intents: ["conversation"] }] });
    const b = createFakeBackend({ id: "a-one", kind: "custom", flows: [{ id: "m", intents: ["conversation"] }] });
    const router = createRouter({ backends: [a, b], classifier: fixedClassifier("conversation", 0.95) });
    const d = await router.route({ question: "q" });
    expect(d.candidates.map((c) => c.flowId)).toEqual(["a-one:m", "b-two:a", "b-two:z"]);
    const again = await router.route({ question: "q" });
    expect(again.candidates.map((c) => c.flowId)).toEqual(["a-one:m", "b-two:a", "b-two:z"]);
  });

  it("prefers a healthy backend over a slow one with the same flow match", async () => {
    const { router, langflow } = setup("technical-analysis", 0.95);
    langflow.setHealth("slow");
    await router.warmUp();
    const d = await router.route({ question: "q" });
    const coder = d.candidates.find((c) => c.flowId === "langflow:coder")!;
    expect(coder.breakdown.health).toBe(0.5);
  });

  it("honours the user override of backend (kind or id) and flow", async () => {
    const { router } = setup("rag-retrieval", 0.95);
    const byKind = await router.route({ question: "q", backend: "flowise" });
    expect(byKind.strategy).toBe("override");
    expect(byKind.chosen?.backendId).toBe("flowise");
    const byFlow = await router.route({ question: "q", flowId: "general" });
    expect(byFlow.chosen?.flowId).toBe("flowise:general");
    const byGatewayId = await router.route({ question: "q", flowId: "langflow:coder" });
    expect(byGatewayId.chosen?.flowId).toBe("langflow:coder");
    await expect(router.route({ question: "q", flowId: "nope" })).rejects.toMatchObject({ code: "FLOW_NOT_FOUND" });
    await expect(router.route({ question: "q", backend: "dify" })).rejects.toMatchObject({ code: "NO_BACKENDS_AVAILABLE" });
  });

  it("explicit intent wins over the classifier", async () => {
    const { router } = setup("conversation", 0.99);
    const d = await router.route({ question: "hello", intent: "technical-analysis" });
    expect(d.intent).toBe("technical-analysis");
    expect(d.method).toBe("explicit");
    expect(d.chosen?.flowId).toBe("langflow:coder");
  });

  it("low confidence hedges two backends and emits router-low-confidence", async () => {
    const { router } = setup("technical-analysis", 0.4);
    const trace = collectingTrace();
    const d = await router.route({ question: "hmm", trace });
    expect(d.confidenceLevel).toBe("low");
    expect(d.strategy).toBe("hedge");
    expect(trace.ofType("router-low-confidence")[0]).toMatchObject({ strategy: "hedge", threshold: 0.55 });
    expect(trace.ofType("routing-decided")[0]!.decision.strategy).toBe("hedge");
  });

  it("low confidence without hedging prefers general-purpose flows; none uses the default flow", async () => {
    const { router } = setup("technical-analysis", 0.4, { hedging: { enabled: false } });
    const low = await router.route({ question: "hmm" });
    expect(low.strategy).toBe("general-purpose");
    expect(low.chosen?.flowId).toBe("flowise:general");
    const none = setup("technical-analysis", 0.1, { defaultFlowId: "docs" });
    const d = await none.router.route({ question: "?" });
    expect(d.strategy).toBe("default-flow");
    expect(d.chosen?.flowId).toBe("flowise:docs");
  });

  it("excludes candidates whose circuit is open and keeps the best flow of every backend listed", async () => {
    // more flowise flows than a decision lists (10), so langflow's only place is as the best of its backend
    const many: FakeFlow[] = Array.from({ length: 10 }, (_, i) => ({ id: `rag${i}`, name: `RAG ${i}`, intents: ["rag-retrieval"] }));
    const flowise = createFakeBackend({ id: "flowise", kind: "flowise", flows: many });
    const langflow = createFakeBackend({ id: "langflow", kind: "langflow", flows: langflowFlows });
    const router = createRouter({ backends: [flowise, langflow], classifier: fixedClassifier("rag-retrieval", 0.95), circuitBreaker: { failureThreshold: 1, syncIntervalMs: 0 } });
    await router.circuits.recordFailure("langflow");
    const d = await router.route({ question: "q" });
    expect(d.chosen?.backendId).toBe("flowise");
    expect(d.candidates.some((c) => c.backendId === "langflow" && c.excluded === "circuit open")).toBe(true);
  });

  it("reports decidedInMs and never re-discovers or re-probes on warm routes", async () => {
    const { router, flowise } = setup("conversation", 0.95);
    await router.route({ question: "q" });
    for (let i = 0; i < 20; i++) await router.route({ question: "q" });
    expect(flowise.discoveries).toBe(1);
    expect(flowise.healthChecks).toBe(1);
    expect((await router.route({ question: "q" })).decidedInMs).toBeGreaterThanOrEqual(0);
  });
});

describe("Router.execute", () => {
  it("executes the chosen flow and falls back to another backend when it fails", async () => {
    const flowise = createFakeBackend({ id: "flowise", kind: "flowise", flows: flowiseFlows, execute: () => { throw new AfwError("BACKEND_AUTH_FAILED", "401"); } });
    const langflow = createFakeBackend({ id: "langflow", kind: "langflow", flows: langflowFlows });
    const router = createRouter({ backends: [flowise, langflow], classifier: fixedClassifier("conversation", 0.95) });
    const out = await router.execute({ question: "hello" });
    expect(out.decision.chosen?.backendId).toBe("flowise");
    expect(out.result.backendId).toBe("langflow");
    expect(out.fallbackUsed).toBe(true);
    expect(out.classification.intent).toBe("conversation");
  });

  it("throws NO_BACKENDS_AVAILABLE when no backend is configured or none has flows", async () => {
    const empty = createRouter({ backends: [], classifier: fixedClassifier("conversation", 0.9) });
    await expect(empty.execute({ question: "hi" })).rejects.toMatchObject({ code: "NO_BACKENDS_AVAILABLE" });
    const flowless = createRouter({ backends: [createFakeBackend({ id: "x", flows: [] })], classifier: fixedClassifier("conversation", 0.9) });
    await expect(flowless.execute({ question: "hi" })).rejects.toMatchObject({ code: "NO_BACKENDS_AVAILABLE" });
  });

  it("hedges on low confidence and returns the faster backend", async () => {
    const flowise = createFakeBackend({ id: "flowise", kind: "flowise", flows: flowiseFlows, execute: (_r, signal) => new Promise((resolve) => { const t = setTimeout(() => resolve("slow"), 2_000); signal?.addEventListener("abort", () => clearTimeout(t)); }) });
    const langflow = createFakeBackend({ id: "langflow", kind: "langflow", flows: langflowFlows });
    const router = createRouter({ backends: [flowise, langflow], classifier: fixedClassifier("conversation", 0.4) });
    const out = await router.execute({ question: "hmm" });
    expect(out.hedged).toBe(true);
    expect(out.result.backendId).toBe("langflow");
    expect(flowise.aborted).toBe(1);
  });

  it("streams through the router", async () => {
    const { router } = setup("conversation", 0.95);
    const chunks = [];
    for await (const c of router.executeStream({ question: "hi" })) chunks.push(c);
    expect(chunks).toEqual([expect.objectContaining({ type: "end" })]);
  });

  it("rejects a backend written against another spec version", () => {
    const bad = { ...createFakeBackend({ id: "x" }), specificationVersion: "v2" } as never;
    expect(() => createRouter({ backends: [bad], classifier: fixedClassifier("conversation", 0.9) })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});

describe("Router flow upkeep", () => {
  it("retries a backend whose first discovery failed, so its flows join later routes", async () => {
    let now = 0;
    const flaky = createFakeBackend({
      id: "langflow",
      kind: "langflow",
      discover: (call) => {
        if (call === 1) throw new Error("not up yet");
        return [];
      },
    });
    const ok = createFakeBackend({ id: "flowise", kind: "flowise", flows: flowiseFlows });
    const router = createRouter({ backends: [ok, flaky], classifier: fixedClassifier("conversation", 0.9), now: () => now });
    await router.route({ question: "q" });
    expect(flaky.discoveries).toBe(1);
    await router.route({ question: "q" });
    expect(flaky.discoveries).toBe(1); // throttled
    now = 5_000;
    await router.route({ question: "q" });
    expect(flaky.discoveries).toBe(2);
  });
});

describe("Router.explain", () => {
  it("returns the decision and the classification", async () => {
    const { router } = setup("rag-retrieval", 0.95);
    const e = await router.explain("what does the handbook say?");
    expect(e.classification.intent).toBe("rag-retrieval");
    expect(e.decision.candidates.find((c) => c.flowId === "flowise:docs")?.breakdown.flow_match).toBe(1);
  });

  it("traces a full execution: discovery and health on the first route, then decided, call start/end", async () => {
    const { router } = setup("conversation", 0.95);
    const trace = collectingTrace();
    await router.execute({ question: "hello", trace });
    expect(trace.events.map((e) => e.type)).toEqual([
      "flows-discovered",
      "flows-discovered",
      "health-checked",
      "health-checked",
      "routing-decided",
      "backend-call-start",
      "backend-call-end",
    ]);
    const second = collectingTrace();
    await router.execute({ question: "hello again", trace: second });
    expect(second.events.map((e) => e.type)).toEqual(["routing-decided", "backend-call-start", "backend-call-end"]);
  });
});

describe("score adjuster (learned prior hook)", () => {
  it("moves the choice within the bound and shows original, delta and reason in every adjusted candidate", async () => {
    const calls: string[] = [];
    const { router } = setup("rag-retrieval", 0.95, {
      scoreAdjuster: (intent, candidate) => {
        calls.push(`${intent}:${candidate.flowId}`);
        if (candidate.flowId === "langflow:rag") return { flow_match: -0.9, performance: -0.9, reason: "fails often" };
        if (candidate.flowId === "flowise:docs") return { flow_match: 0.5, performance: 0.2, reason: "answers well", source: "test" };
        return undefined;
      },
      maxScoreAdjustment: 0.2,
    });
    const d = await router.route({ question: "what does the handbook say about leave?" });
    expect(calls).toContain("rag-retrieval:langflow:rag");
    expect(calls).toHaveLength(5);
    // Without the adjuster langflow:rag wins (0.9 vs 0.87); -0.2 on both components costs it 0.12.
    expect(d.chosen?.flowId).toBe("flowise:docs");
    const rag = d.candidates.find((c) => c.flowId === "langflow:rag")!;
    expect(rag.breakdown).toEqual({ flow_match: 0.8, health: 1, performance: 0.3, capability: 1 });
    expect(rag.adjustment).toEqual({ source: "learned-prior", original: { flow_match: 1, performance: 0.5 }, delta: { flow_match: -0.2, performance: -0.2 }, reason: "fails often" });
    expect(rag.score).toBeCloseTo(0.8 * 0.4 + 0.3 + 0.3 * 0.2 + 0.1, 6);
    const docs = d.candidates.find((c) => c.flowId === "flowise:docs")!;
    // flow_match is clamped at 1 although the delta was +0.2.
    expect(docs.breakdown).toEqual({ flow_match: 1, health: 1, performance: 0.7, capability: 0.7 });
    expect(docs.adjustment).toMatchObject({ source: "test", delta: { flow_match: 0.2, performance: 0.2 }, original: { flow_match: 1, performance: 0.5 } });
    expect(d.candidates.find((c) => c.flowId === "flowise:general")!.adjustment).toBeUndefined();
  });

  it("ignores a throwing adjuster", async () => {
    const { router } = setup("rag-retrieval", 0.95, {
      scoreAdjuster: () => {
        throw new Error("boom");
      },
    });
    const d = await router.route({ question: "q" });
    expect(d.chosen?.flowId).toBe("langflow:rag");
    expect(d.candidates.every((c) => c.adjustment === undefined)).toBe(true);
  });
});

describe("variant selector (A/B routing)", () => {
  it("applies the variant arm's weights and strategy and records the arm", async () => {
    const seen: unknown[] = [];
    const { router } = setup("rag-retrieval", 0.95, {
      hedging: { enabled: false },
      variantSelector: (request) => {
        seen.push(request);
        return request.sessionId === "s-variant"
          ? { experimentId: "capability-only", arm: "variant", label: "cap", weights: { flow_match: 0, health: 0, performance: 0, capability: 1 }, strategy: "hedge" }
          : { experimentId: "capability-only", arm: "control" };
      },
    });
    const control = await router.route({ question: "q", trace: { traceId: "t1", requestId: "r1", sessionId: "s-control", sink: { emit: () => {} } } });
    expect(control.experiment).toEqual({ experimentId: "capability-only", arm: "control" });
    expect(control.weights).toEqual({ flow_match: 0.4, health: 0.3, performance: 0.2, capability: 0.1 });
    expect(control.strategy).toBe("direct");
    expect(seen[0]).toEqual({ intent: "rag-retrieval", traceId: "t1", requestId: "r1", sessionId: "s-control" });

    const variant = await router.route({ question: "q", trace: { traceId: "t2", requestId: "r2", sessionId: "s-variant", sink: { emit: () => {} } } });
    expect(variant.experiment).toEqual({ experimentId: "capability-only", arm: "variant", label: "cap" });
    expect(variant.weights).toEqual({ flow_match: 0, health: 0, performance: 0, capability: 1 });
    expect(variant.candidates[0]!.score).toBe(1);
    expect(variant.strategy).toBe("hedge");
    expect(variant.reason).toMatch(/\[A\/B capability-only: variant 'cap', weights, strategy hedge\]/);
  });

  it("does not assign requests that override the backend or flow, and ignores a throwing selector", async () => {
    let calls = 0;
    const { router } = setup("rag-retrieval", 0.95, {
      variantSelector: () => {
        calls++;
        throw new Error("boom");
      },
    });
    const overridden = await router.route({ question: "q", backend: "flowise" });
    expect(overridden.experiment).toBeUndefined();
    expect(calls).toBe(0);
    const normal = await router.route({ question: "q" });
    expect(calls).toBe(1);
    expect(normal.experiment).toBeUndefined();
    expect(normal.chosen?.flowId).toBe("langflow:rag");
  });

  it("keeps the decided strategy when the variant's is not possible", async () => {
    const { router } = setup("rag-retrieval", 0.95, { variantSelector: () => ({ experimentId: "x", arm: "variant", strategy: "default-flow" }) });
    const d = await router.route({ question: "q" });
    expect(d.strategy).toBe("direct");
    expect(d.reason).toMatch(/strategy default-flow \(not possible here\)/);
  });
});

describe("Router with a flowSource", () => {
  /** A source that hands out lists it was given, counting calls (the application's own discovery). */
  function listSource(lists: Map<string, UniversalFlow[]>) {
    const counts = { get: 0, peek: 0, refresh: 0 };
    const source: BackendFlowSource = {
      get: async (backend) => {
        counts.get++;
        return lists.get(backend.id)!;
      },
      peek: (backend) => {
        counts.peek++;
        return lists.get(backend.id);
      },
      refresh: async (backend) => {
        counts.refresh++;
        return lists.get(backend.id)!;
      },
    };
    return { source, counts };
  }

  it("routes on the source's lists and never discovers flows itself", async () => {
    const flowise = createFakeBackend({ id: "flowise", kind: "flowise", flows: flowiseFlows });
    const lists = new Map([["flowise", toFlows("flowise", "flowise", [{ id: "from-source", name: "Docs QA", intents: ["rag-retrieval"] }])]]);
    const { source, counts } = listSource(lists);
    const router = createRouter({ backends: [flowise], classifier: fixedClassifier("rag-retrieval", 0.95), flowSource: source });
    const decision = await router.route({ question: "what does the handbook say?" });
    expect(decision.chosen?.flowId).toBe("flowise:from-source");
    await router.route({ question: "again" });
    expect(flowise.discoveries).toBe(0);
    expect(counts.get).toBe(1);
    expect(counts.peek).toBeGreaterThanOrEqual(2);
  });

  it("rebuilds a backend's profiles when the source hands out a new list", async () => {
    const flowise = createFakeBackend({ id: "flowise", kind: "flowise" });
    const lists = new Map([["flowise", toFlows("flowise", "flowise", [{ id: "old", name: "Chat", intents: ["conversation"] }])]]);
    const { source } = listSource(lists);
    const router = createRouter({ backends: [flowise], classifier: fixedClassifier("conversation", 0.95), flowSource: source });
    expect((await router.route({ question: "hi" })).candidates.map((c) => c.flowId)).toEqual(["flowise:old"]);
    lists.set("flowise", toFlows("flowise", "flowise", [{ id: "new", name: "Chat", intents: ["conversation"] }, { id: "old", name: "Chat", intents: ["conversation"] }]));
    const after = await router.route({ question: "hi" });
    expect(after.candidates.map((c) => c.flowId).sort()).toEqual(["flowise:new", "flowise:old"]);
  });

  it("still discovers on its own without a flowSource (standalone use)", async () => {
    const { flowise, router } = setup("conversation", 0.95);
    await router.route({ question: "hi" });
    expect(flowise.discoveries).toBe(1);
  });
});
