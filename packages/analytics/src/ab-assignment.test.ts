import { describe, expect, it } from "vitest";
import { createAbAssignment, createMemoryAuditLog, type AuditEvent } from "./index.js";
import { analyticsDashboard } from "./dashboard.js";
import { analyzeFlow } from "./analyze-flow.js";
import { createTrafficGenerator } from "./test.js";

describe("A/B assignment", () => {
  it("holds the configured share over 10,000 ids, deterministically", () => {
    for (const share of [0.05, 0.2, 0.5]) {
      const ab = createAbAssignment({ experiments: [{ id: `exp-${share}`, share, unit: "request", variant: { strategy: "hedge" } }], seed: "s1" });
      let variant = 0;
      for (let i = 0; i < 10_000; i++) if (ab.assign({ requestId: `req-${i}` })!.arm === "variant") variant++;
      // binomial standard deviation at n = 10,000 is at most 50; allow 4 of them
      expect(Math.abs(variant / 10_000 - share)).toBeLessThanOrEqual(0.02);
      const again = createAbAssignment({ experiments: [{ id: `exp-${share}`, share, unit: "request", variant: {} }], seed: "s1" });
      expect(again.assign({ requestId: "req-42" })!.arm).toBe(ab.assign({ requestId: "req-42" })!.arm);
    }
  });

  it("is sticky per session, independent between experiments and seeds, and filtered by intent", () => {
    const ab = createAbAssignment({
      experiments: [
        { id: "tech", intent: "technical-analysis", share: 0.5, variant: { weights: { performance: 0.4 } } },
        { id: "all", share: 0.5, variant: { strategy: "hedge" } },
      ],
      seed: 7,
    });
    const a = ab.assign({ requestId: "r1", sessionId: "s-9", intent: "technical-analysis" })!;
    for (let i = 2; i < 50; i++) expect(ab.assign({ requestId: `r${i}`, sessionId: "s-9", intent: "technical-analysis" })!.arm).toBe(a.arm);
    expect(a.experimentId).toBe("tech");
    expect(ab.assign({ requestId: "r1", intent: "rag-retrieval" })!.experimentId).toBe("all");
    if (a.arm === "variant") expect(a.variant).toEqual({ weights: { performance: 0.4 } });
    else expect(a.variant).toBeUndefined();

    // the same units land in unrelated buckets in two experiments
    let agree = 0;
    for (let i = 0; i < 4000; i++) {
      const unit = `s:${i}`;
      if (ab.bucketOf("tech", unit) < 0.5 === ab.bucketOf("all", unit) < 0.5) agree++;
    }
    expect(agree / 4000).toBeGreaterThan(0.45);
    expect(agree / 4000).toBeLessThan(0.55);
    const reseeded = createAbAssignment({ experiments: [{ id: "tech", share: 0.5, variant: {} }], seed: 8 });
    let same = 0;
    for (let i = 0; i < 4000; i++) if (reseeded.bucketOf("tech", `s:${i}`) < 0.5 === ab.bucketOf("tech", `s:${i}`) < 0.5) same++;
    expect(same / 4000).toBeLessThan(0.55);
  });

  it("rejects invalid experiments and skips disabled ones", () => {
    expect(() => createAbAssignment({ experiments: [{ id: "x", share: 1.5, variant: {} }] })).toThrow(/share/);
    expect(() => createAbAssignment({ experiments: [{ id: "x", share: 0.1, variant: {} }, { id: "x", share: 0.2, variant: {} }] })).toThrow(/duplicate/);
    expect(() => createAbAssignment({ experiments: [{ id: "x", share: 0.1, variant: { weights: { speed: 1 } } as never }] })).toThrow();
    const ab = createAbAssignment({ experiments: [{ id: "off", share: 1, enabled: false, variant: {} }] });
    expect(ab.assign({ requestId: "r" })).toBeUndefined();
  });

  it("rejects a strategy the router does not know", () => {
    expect(() => createAbAssignment({ experiments: [{ id: "x", share: 0.1, variant: { strategy: "prefer-fast" as never } }] })).toThrow(/variant\.strategy/);
    expect(() => createAbAssignment({ experiments: [{ id: "x", share: 0.1, variant: { strategy: "override" as never } }] })).toThrow(/variant\.strategy/);
  });

  it("serves the router as a variant selector: sticky per session, per trace for request experiments, recorded", () => {
    const events: AuditEvent[] = [];
    const ab = createAbAssignment({
      experiments: [
        { id: "hedge-tech", intent: "technical-analysis", share: 0.5, variant: { strategy: "hedge", label: "hedged", weights: { health: 0.5 } } },
        { id: "per-request", intent: "conversation", share: 0.5, unit: "request", variant: {} },
      ],
      seed: "selector",
      recorder: { emit: (event) => events.push(event) },
    });
    const select = ab.variantSelector;
    expect(select({ intent: "rag-retrieval", traceId: "t0", requestId: "1" })).toBeUndefined();
    expect(select({ intent: "technical-analysis" })).toBeUndefined();
    const arms = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const arm = select({ intent: "technical-analysis", traceId: `t${i}`, requestId: "1", sessionId: `s${i % 4}` })!;
      expect(arm.experimentId).toBe("hedge-tech");
      if (arm.arm === "variant") expect(arm).toEqual({ experimentId: "hedge-tech", arm: "variant", label: "hedged", strategy: "hedge", weights: { health: 0.5 } });
      else expect(arm).toEqual({ experimentId: "hedge-tech", arm: "control" });
      arms.add(`s${i % 4}:${arm.arm}`);
    }
    expect(arms.size).toBe(4); // one arm per session
    expect(events).toHaveLength(40);
    expect(events[0]).toMatchObject({ type: "ab-assigned", traceId: "t0", requestId: "1", sessionId: "s0", experimentId: "hedge-tech", unit: "session" });
    // MCP request ids repeat per connection: request experiments are keyed by the trace id.
    let variant = 0;
    for (let i = 0; i < 2000; i++) if (select({ intent: "conversation", traceId: `trace-${i}`, requestId: "1" })!.arm === "variant") variant++;
    expect(Math.abs(variant / 2000 - 0.5)).toBeLessThan(0.05);
  });

  it("records assignments so the analyses compare the arms", async () => {
    let clock = Date.UTC(2025, 2, 1);
    const auditLog = createMemoryAuditLog({ capacity: 100_000, now: () => clock });
    const ab = createAbAssignment({
      experiments: [{ id: "prefer-fast", intent: "technical-analysis", share: 0.3, unit: "request", variant: { label: "prefer-fast", weights: { performance: 0.6 } } }],
      seed: "ab-test",
      recorder: auditLog,
      now: () => clock,
    });
    const traffic = createTrafficGenerator({
      flows: [
        { flowId: "flowise:slow", intents: ["technical-analysis"], performance: 0.9, behaviour: ({ index }) => ({ ok: index % 10 !== 0, latencyMs: 1500 }) },
        { flowId: "flowise:fast", intents: ["technical-analysis"], behaviour: () => ({ ok: true, latencyMs: 100 }) },
      ],
      start: clock,
      sink: auditLog,
    });
    const arms = new Map<string, "control" | "variant">();
    const results = traffic.run(1000, () => ({
      intent: "technical-analysis",
      beforeEvents: ({ traceId, requestId, at }) => {
        clock = at;
        const decision = ab.assign({ traceId, requestId, intent: "technical-analysis" })!;
        arms.set(traceId, decision.arm);
        // the router applies the variant's weights: here, the fast flow first
        return decision.variant?.label === "prefer-fast" ? { route: ["flowise:fast", "flowise:slow"] } : undefined;
      },
    }));
    clock = traffic.now();
    const recorded = (await auditLog.query({ types: ["ab-assigned"], limit: 10_000 })) as Array<Extract<AuditEvent, { type: "ab-assigned" }>>;
    expect(recorded).toHaveLength(1000);
    const variantIds = [...arms.entries()].filter(([, arm]) => arm === "variant").map(([id]) => id);
    expect(recorded.filter((e) => e.arm === "variant").map((e) => e.traceId).sort()).toEqual([...variantIds].sort());
    expect(Math.abs(variantIds.length / 1000 - 0.3)).toBeLessThan(0.05);

    const report = analyticsDashboard({ events: await auditLog.query({ limit: 100_000 }), range: "24h", now: clock });
    expect(report.experiments).toHaveLength(1);
    const comparison = report.experiments[0]!;
    const control = results.filter((r) => arms.get(r.traceId) === "control");
    const controlFallbacks = control.filter((r) => r.fallbackUsed).length;
    expect(comparison).toMatchObject({
      experimentId: "prefer-fast",
      variant: { queries: variantIds.length, answered: variantIds.length, failed: 0, successRate: 1, fallbackRate: 0 },
      control: { queries: control.length, answered: control.length, successRate: 1 },
      variantShare: Math.round((variantIds.length / 1000) * 10_000) / 10_000,
    });
    expect(controlFallbacks).toBeGreaterThan(0);
    expect(comparison.control.fallbackRate).toBeCloseTo(controlFallbacks / control.length, 4);
    expect(comparison.variant.latency.p50Ms).toBeLessThan(200);
    expect(comparison.control.latency.p50Ms).toBeGreaterThan(1500);
    expect(comparison.difference.p50Ms).toBe(comparison.variant.latency.p50Ms! - comparison.control.latency.p50Ms!);

    // analyze_flow reports the experiment among the queries that touched the flow
    const slow = analyzeFlow({ events: await auditLog.query({ limit: 100_000 }), flowId: "flowise:slow", range: "24h", now: clock });
    expect(slow.experiments[0]!.control.queries).toBe(control.length);
  });
});
