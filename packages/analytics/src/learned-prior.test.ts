import { describe, expect, it } from "vitest";
import { fanOutTraceSink } from "@afw/contracts";
import { createLearnedRoutingPrior, createMemoryAuditLog, type LearnedPriorStore } from "./index.js";
import { createMemoryPriorStore } from "./prior-store.js";
import { analyticsDashboard } from "./dashboard.js";
import { type PriorEntry } from "./prior-store.js";
import { createTrafficGenerator, type SyntheticFlow } from "./test.js";

const MAX = 0.15;
const MINUTE = 60_000;

describe("learned routing prior", () => {
  it("moves traffic away from a slow, flaky flow in bounded steps and back when it recovers", async () => {
    let flakyBroken = true;
    const flows: SyntheticFlow[] = [
      {
        // ranked first on its static scores (performance 0.9 vs 0.5)
        flowId: "flowise:flaky",
        intents: ["technical-analysis"],
        performance: 0.9,
        behaviour: ({ index }) => (flakyBroken ? { ok: index % 5 >= 2, latencyMs: 2000 } : { ok: true, latencyMs: 150 }),
      },
      { flowId: "flowise:steady", intents: ["technical-analysis"], behaviour: () => ({ ok: true, latencyMs: 200 }) },
    ];
    let clock = Date.UTC(2025, 0, 1);
    const prior = createLearnedRoutingPrior({ maxAdjustment: MAX, halfLifeMs: 10 * MINUTE, minSamples: 20, now: () => clock });
    const auditLog = createMemoryAuditLog({ capacity: 50_000, now: () => clock });
    const traffic = createTrafficGenerator({ flows, start: clock, intervalMs: 1000, prior, sink: fanOutTraceSink(auditLog, prior) });

    const adjustments: Array<{ flow_match: number; performance: number }> = [];
    const firstChoices: string[] = [];
    const step = () => {
      const result = traffic.query({ intent: "technical-analysis" });
      clock = traffic.now();
      firstChoices.push(result.decision!.chosen!.flowId);
      adjustments.push(prior.adjust("technical-analysis", "flowise:flaky"));
    };

    // Phase 1: flaky fails 40% of its calls and is 10x slower.
    for (let i = 0; i < 400; i++) step();
    const broken = adjustments.slice();
    expect(broken.slice(0, 19).every((a) => a.flow_match === 0 && a.performance === 0)).toBe(true); // fewer than minSamples outcomes
    expect(Math.min(...broken.map((a) => a.flow_match))).toBeLessThan(-0.05);
    expect(Math.min(...broken.map((a) => a.performance))).toBeLessThan(-0.1);
    const movedAway = firstChoices.slice(300, 400).filter((id) => id === "flowise:flaky").length;
    expect(movedAway).toBeLessThan(15); // it used to be chosen for every query
    const atWorst = prior.adjust("technical-analysis", "flowise:flaky");
    expect(atWorst.reason).toMatch(/^learned prior for technical-analysis on flowise:flaky: success \d+\.\d% vs 100\.0% for its peers/);
    expect(prior.adjust("technical-analysis", "flowise:steady").performance).toBeGreaterThan(0);

    // Phase 2: it recovers (and is now the fastest). An hour passes first: old evidence fades.
    flakyBroken = false;
    traffic.advance(60 * MINUTE);
    clock = traffic.now();
    expect(prior.adjust("technical-analysis", "flowise:flaky")).toMatchObject({ flow_match: 0, performance: 0 });
    for (let i = 0; i < 300; i++) step();
    const recovered = adjustments.slice(400);
    expect(firstChoices.slice(600).filter((id) => id === "flowise:flaky").length).toBeGreaterThanOrEqual(95);
    const last = recovered[recovered.length - 1]!;
    expect(last.flow_match).toBeGreaterThanOrEqual(0);
    expect(last.performance).toBeGreaterThan(0);

    // Bounded: never beyond ±maxAdjustment, and small steps from one query to the next.
    for (const a of adjustments) {
      expect(Math.abs(a.flow_match)).toBeLessThanOrEqual(MAX);
      expect(Math.abs(a.performance)).toBeLessThanOrEqual(MAX);
    }
    let largestStep = 0;
    for (let i = 1; i < 400; i++) {
      largestStep = Math.max(largestStep, Math.abs(adjustments[i]!.flow_match - adjustments[i - 1]!.flow_match), Math.abs(adjustments[i]!.performance - adjustments[i - 1]!.performance));
    }
    expect(largestStep).toBeLessThanOrEqual(MAX / 5);

    // The audit log saw the same story: every flaky call of phase 1 that failed made a fallback.
    const report = analyticsDashboard({ events: await auditLog.query({ limit: 50_000 }), range: { from: Date.UTC(2025, 0, 1) }, now: clock });
    expect(report.totals.queries).toBe(700);
    const flakyPhase1Failures = traffic.results.slice(0, 400).flatMap((r) => r.calls).filter((c) => c.flowId === "flowise:flaky" && !c.ok).length;
    expect(report.totals.fallbackQueries).toBe(flakyPhase1Failures);
    expect(report.totals.failed).toBe(0);
  });

  it("never drifts beyond its bound however long a flow keeps failing, and forgets without traffic", () => {
    let clock = 0;
    const prior = createLearnedRoutingPrior({ maxAdjustment: 0.1, halfLifeMs: MINUTE, minSamples: 10, now: () => clock });
    for (let i = 0; i < 5000; i++) {
      clock += 100;
      prior.observe({ intent: "rag-retrieval", flowId: "f:bad", success: false, latencyMs: 5000 });
      prior.observe({ intent: "rag-retrieval", flowId: "f:good", success: true, latencyMs: 100 });
      const bad = prior.adjust("rag-retrieval", "f:bad");
      expect(bad.flow_match).toBeGreaterThanOrEqual(-0.1);
      expect(bad.performance).toBeGreaterThanOrEqual(-0.1);
    }
    const bad = prior.adjust("rag-retrieval", "f:bad");
    expect(bad.flow_match).toBeLessThan(-0.09);
    expect(bad.performance).toBeLessThan(-0.095);
    expect(prior.adjust("rag-retrieval", "f:good").flow_match).toBeGreaterThan(0.09);
    clock += 30 * MINUTE; // 30 half-lives without traffic
    expect(prior.adjust("rag-retrieval", "f:bad")).toMatchObject({ flow_match: 0, performance: 0 });
    expect(prior.adjust("rag-retrieval", "f:bad").samples).toBeLessThan(10);
  });

  it("learns from feedback and explains itself", () => {
    let clock = 0;
    const prior = createLearnedRoutingPrior({ minSamples: 5, now: () => clock });
    for (let i = 0; i < 6; i++) prior.observe({ intent: "conversation", flowId: "f:chat", feedback: -1, at: clock++ });
    const adjustment = prior.adjust("conversation", "f:chat");
    expect(adjustment.feedbackMean).toBe(-1);
    expect(adjustment.flow_match).toBeLessThan(0);
    expect(adjustment.performance).toBe(0);
    expect(adjustment.reason).toContain("mean feedback -1");
    expect(() => prior.observe({ intent: "conversation", flowId: "f:chat", feedback: 2 })).toThrow(/between -1 and 1/);
    expect(() => prior.observe({ intent: "nope" as never, flowId: "f:chat", success: true })).toThrow(/unknown intent/);
    expect(prior.snapshot("conversation").map((e) => e.flowId)).toEqual(["f:chat"]);
  });

  it("ignores cancelled hedge losers and calls of traces without an intent", () => {
    const prior = createLearnedRoutingPrior({ minSamples: 1, now: () => 1000 });
    const base = { traceId: "t1", requestId: "r1", timestamp: new Date(1000).toISOString() };
    prior.emit({ ...base, type: "backend-call-end", backendId: "f", flowId: "f:x", attempt: 1, latencyMs: 10, outcome: "success" });
    expect(prior.snapshot()).toEqual([]);
    prior.emit({ ...base, type: "intent-classified", intent: "data-processing", confidence: 0.9, method: "hybrid", alternatives: [], durationMs: 1 });
    prior.emit({ ...base, type: "backend-call-end", backendId: "f", flowId: "f:x", attempt: 1, latencyMs: 10, outcome: "aborted" });
    expect(prior.snapshot()).toEqual([]);
    prior.emit({ ...base, type: "backend-call-end", backendId: "f", flowId: "f:x", attempt: 2, latencyMs: 10, outcome: "error", errorCode: "BACKEND_UNAVAILABLE" });
    expect(prior.snapshot()).toHaveLength(1);
    expect(prior.snapshot()[0]!.stats).toMatchObject({ n: 1, s: 0, ln: 1 });
  });

  it("does not lose increments when a reload resolves after a flush (shared store)", async () => {
    const memory = createMemoryPriorStore();
    const gates: Array<{ reached: Promise<void>; release: () => void }> = [];
    let reached!: () => void;
    const nextGate = () => {
      let release!: () => void;
      const gate = { reached: new Promise<void>((resolve) => (reached = resolve)), release: () => release(), wait: new Promise<void>((resolve) => (release = resolve)) };
      gates.push(gate);
      return gate;
    };
    let gate = nextGate();
    const slow: LearnedPriorStore = {
      shared: true,
      add: (entries, halfLifeMs) => memory.add(entries, halfLifeMs),
      load: async (): Promise<PriorEntry[] | undefined> => {
        const current = gate;
        const snapshot = await memory.load();
        reached();
        await current.wait;
        return snapshot;
      },
      close: () => memory.close(),
    };
    const prior = createLearnedRoutingPrior({ store: slow, minSamples: 5, now: () => 0, flushIntervalMs: 60_000, refreshIntervalMs: 60_000 });
    // the initial reload holds an empty snapshot while outcomes arrive and a flush is requested
    await gate.reached;
    for (let i = 0; i < 30; i++) prior.observe({ intent: "conversation", flowId: "f:a", success: true, latencyMs: 10, at: 0 });
    const flushed = prior.flush();
    const first = gate;
    gate = nextGate();
    first.release();
    await flushed;
    await new Promise((resolve) => setImmediate(resolve)); // let the initial reload settle too
    expect(prior.adjust("conversation", "f:a").samples).toBe(30);
    expect((await memory.load())![0]!.stats.n).toBe(30);
    // a later reload sees the flushed increments once, not twice
    const refreshed = prior.refresh();
    await gate.reached;
    gate.release();
    await refreshed;
    expect(prior.adjust("conversation", "f:a").samples).toBe(30);
    expect(gates).toHaveLength(2);
    await prior.close();
  });
});

describe("learned prior as the router's score adjuster", () => {
  it("adjusts only flows it has seen, with the bounded deltas and reason of adjust()", () => {
    let clock = Date.UTC(2025, 0, 1);
    const prior = createLearnedRoutingPrior({ maxAdjustment: 0.1, halfLifeMs: 60 * MINUTE, minSamples: 5, now: () => clock });
    const breakdown = { flow_match: 1, health: 1, performance: 0.5, capability: 1 };
    expect(prior.scoreAdjuster("conversation", { backendId: "f", flowId: "f:a", breakdown })).toBeUndefined();
    for (let i = 0; i < 30; i++) {
      clock += 1000;
      prior.observe({ intent: "conversation", flowId: "f:a", success: i % 2 === 0, latencyMs: 900 });
      prior.observe({ intent: "conversation", flowId: "f:b", success: true, latencyMs: 100 });
    }
    const bad = prior.scoreAdjuster("conversation", { backendId: "f", flowId: "f:a", breakdown })!;
    const expected = prior.adjust("conversation", "f:a");
    expect(bad).toEqual({ flow_match: expected.flow_match, performance: expected.performance, reason: expected.reason, source: "learned-prior" });
    expect(bad.flow_match).toBeLessThan(0);
    expect(bad.flow_match).toBeGreaterThanOrEqual(-0.1);
    // Half the successes and 9x slower than its peer: both signals at -1, scaled by the confidence n / (n + minSamples).
    expect(bad.performance).toBeCloseTo(-0.1 * (30 / 35), 2);
    expect(bad.reason).toMatch(/success 50\.0% vs 100\.0% for its peers/);
    expect(prior.scoreAdjuster("conversation", { backendId: "f", flowId: "f:b", breakdown })!.performance).toBeGreaterThan(0);
    // Another intent has no evidence for the same flow.
    expect(prior.scoreAdjuster("rag-retrieval", { backendId: "f", flowId: "f:a", breakdown })).toBeUndefined();
  });

  it("compares a flow with the intent's other flows only (peer sums per intent)", () => {
    const clock = Date.UTC(2025, 0, 1);
    const prior = createLearnedRoutingPrior({ minSamples: 5, now: () => clock });
    for (let i = 0; i < 20; i++) {
      prior.observe({ intent: "conversation", flowId: "f:a", success: true, latencyMs: 100, at: clock });
      prior.observe({ intent: "conversation", flowId: "f:b", success: i % 4 !== 0, latencyMs: 100, at: clock });
      prior.observe({ intent: "rag-retrieval", flowId: "f:c", success: false, latencyMs: 100, at: clock });
    }
    expect(prior.adjust("conversation", "f:a")).toMatchObject({ successRate: 1, peerSuccessRate: 0.75, peerMeanLatencyMs: 100 });
    expect(prior.adjust("conversation", "f:b")).toMatchObject({ successRate: 0.75, peerSuccessRate: 1 });
    // f:c is alone in its intent: compared with the expected rate, no peer latency.
    expect(prior.adjust("rag-retrieval", "f:c")).toMatchObject({ successRate: 0, peerSuccessRate: 0.95, peerMeanLatencyMs: null });
  });
});

describe("learned prior event time", () => {
  it("dates traced outcomes by its own clock with eventTime 'clock' (live feed with an injected clock)", () => {
    const realTime = new Date(Date.UTC(2025, 0, 1)).toISOString();
    let clock = Date.UTC(2030, 0, 1);
    const halfLifeMs = 60 * MINUTE;
    const feed = (prior: ReturnType<typeof createLearnedRoutingPrior>) => {
      for (let i = 0; i < 4; i++) {
        const base = { traceId: `t${i}`, requestId: `r${i}`, timestamp: realTime };
        prior.emit({ ...base, type: "intent-classified", intent: "conversation", confidence: 1, method: "explicit", alternatives: [], durationMs: 0 } as never);
        prior.emit({ ...base, type: "backend-call-end", backendId: "f", flowId: "f:a", attempt: 1, outcome: "success", latencyMs: 10 } as never);
      }
    };
    const byClock = createLearnedRoutingPrior({ halfLifeMs, now: () => clock, eventTime: "clock" });
    const byTimestamp = createLearnedRoutingPrior({ halfLifeMs, now: () => clock });
    feed(byClock);
    feed(byTimestamp);
    expect(byClock.adjust("conversation", "f:a").samples).toBe(4);
    expect(byTimestamp.adjust("conversation", "f:a").samples).toBe(0); // five years old
    clock += halfLifeMs;
    expect(byClock.adjust("conversation", "f:a").samples).toBe(2);
  });
});

describe("learned prior from elicited answers", () => {
  it("takes an accepted choice as a labelled example: the chosen flow gains, the passed-over suggestion loses", () => {
    // A fixed clock: with the wall clock, a millisecond between the events and the reads decays
    // three weights of 1 below the 3 ratings feedback needs, and the mean is not reported.
    const at = Date.UTC(2030, 0, 1);
    const prior = createLearnedRoutingPrior({ now: () => at });
    const elicited = (i: number, action: string, chosenFlowId?: string) =>
      prior.emit({
        type: "route-elicited",
        traceId: `t${i}`,
        requestId: `r${i}`,
        timestamp: new Date(at).toISOString(),
        tier: "clarify",
        intent: "rag-retrieval",
        confidence: 0.6,
        action,
        choices: ["f:docs", "f:chat"],
        suggestedFlowId: "f:chat",
        ...(chosenFlowId ? { chosenFlowId } : {}),
        waitedMs: 5,
      } as never);
    for (let i = 0; i < 3; i++) elicited(i, "accept", "f:docs");
    elicited(3, "decline");
    elicited(4, "timeout");
    expect(prior.adjust("rag-retrieval", "f:docs").feedbackMean).toBe(1);
    expect(prior.adjust("rag-retrieval", "f:chat").feedbackMean).toBe(-1);
    expect(prior.adjust("rag-retrieval", "f:docs").flow_match).toBeGreaterThan(0);
  });
});
