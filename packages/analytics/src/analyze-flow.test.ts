import { describe, expect, it } from "vitest";
import { analyzeFlow, type FlowRecommendation } from "./analyze-flow.js";
import { runScenario } from "../test/scenario.js";

const kinds = (recommendations: FlowRecommendation[]) => recommendations.map((r) => `${r.severity}:${r.kind}:${r.intent ?? "-"}`);

describe("analyzeFlow on the synthetic scenario", () => {
  it("reports the slow, flaky flow with exact numbers and concrete recommendations", async () => {
    const scenario = await runScenario();
    const events = await scenario.auditLog.query({ limit: 100_000 });
    const analysis = analyzeFlow({ events, feedback: scenario.feedback, flowId: "flowise:flaky", range: "1h", now: scenario.end });

    expect(analysis.usage).toMatchObject({ queries: 40, answered: 30, attempts: 40, failures: 10, successRate: 0.75 });
    expect(analysis.usage.latency).toMatchObject({ p50Ms: 6000, p95Ms: 11000 });
    // successful calls: index % 4 != 3 -> latencies 2000..11000 without those of failing calls
    expect(analysis.successLatency.count).toBe(30);
    expect(analysis.fallback.asSource).toEqual({ queries: 10, share: 0.25, topTargets: [{ flowId: "flowise:fast", count: 10 }], reasons: { BACKEND_TIMEOUT: 10 } });
    expect(analysis.fallback.asTarget).toEqual({ queries: 0, share: 0, topSources: [] });
    expect(analysis.feedback).toEqual({ count: 4, mean: -0.625, negative: 3, positive: 0 });
    expect(analysis.intents).toHaveLength(1);
    expect(analysis.intents[0]).toMatchObject({
      intent: "technical-analysis",
      queries: 40,
      attempts: 40,
      completedAttempts: 40,
      failures: 10,
      failureRate: 0.25,
      errors: { BACKEND_TIMEOUT: 10 },
      candidateDecisions: 40,
      matchingDecisions: 40,
      chosen: 40,
      bestRank: 1,
      fallbacksFrom: 10,
    });
    expect(kinds(analysis.recommendations)).toEqual([
      "critical:failing:technical-analysis",
      "warning:slow:technical-analysis",
      "warning:fallback-source:technical-analysis",
      "warning:negative-feedback:technical-analysis",
    ]);
    const messages = analysis.recommendations.map((r) => r.message);
    expect(messages[0]).toBe("fails 25% for intent technical-analysis (10 of 40 attempts, mostly BACKEND_TIMEOUT): demote it for technical-analysis");
    expect(messages[1]).toMatch(/^slow \(p95 11000 ms vs \d+ ms for other flows\): raise its timeout or prefer a faster flow for intent technical-analysis$/);
    expect(messages[2]).toBe(
      "falls back to another flow in 25% of its queries (10, mostly BACKEND_TIMEOUT, usually to flowise:fast): check its backend, or rank flowise:fast first",
    );
    expect(messages[3]).toBe("rated poorly (mean -0.625 over 4 ratings): review its answers for intent technical-analysis");
  });

  it("recommends raising the timeout of a slow flow that is often the fallback target", async () => {
    const scenario = await runScenario();
    const events = await scenario.auditLog.query({ limit: 100_000 });
    const analysis = analyzeFlow({ events, flowId: "langflow:backup", range: "1h", now: scenario.end });
    expect(analysis.usage.latency).toMatchObject({ count: 10, p50Ms: 8000, p95Ms: 9000 });
    expect(analysis.fallback.asTarget).toEqual({ queries: 10, share: 1, topSources: [{ flowId: "langflow:primary", count: 10 }] });
    expect(kinds(analysis.recommendations)).toEqual(["warning:slow-fallback-target:data-processing"]);
    expect(analysis.recommendations[0]!.message).toMatch(
      /^slow \(p95 9000 ms vs \d+ ms for other flows\) and often the fallback target \(100% of its queries\): raise its timeout or demote it for intent data-processing$/,
    );
  });

  it("notices a flow that matches but is never chosen, and one that is fine", async () => {
    const scenario = await runScenario();
    const events = await scenario.auditLog.query({ limit: 100_000 });
    const shadow = analyzeFlow({ events, flowId: "flowise:shadow", range: "1h", now: scenario.end });
    expect(shadow.usage.queries).toBe(0);
    expect(shadow.intents[0]).toMatchObject({ intent: "rag-retrieval", candidateDecisions: 20, matchingDecisions: 20, chosen: 0, bestRank: 2 });
    expect(kinds(shadow.recommendations)).toEqual(["info:unused:-", "info:never-chosen:rag-retrieval"]);
    expect(shadow.recommendations[1]!.message).toBe(
      "never chosen for intent rag-retrieval despite matching (a matching candidate in 20 decisions, best rank 2): check its health and performance scores, or remove rag-retrieval from its intents",
    );

    const docs = analyzeFlow({ events, feedback: scenario.feedback, flowId: "flowise:docs", range: "1h", now: scenario.end });
    expect(docs.recommendations).toEqual([]);
    expect(docs.feedback).toEqual({ count: 2, mean: 1, negative: 0, positive: 2 });

    const primary = analyzeFlow({ events, flowId: "langflow:primary", range: "1h", now: scenario.end });
    expect(kinds(primary.recommendations)).toEqual(["critical:failing:data-processing", "critical:fallback-source:data-processing"]);
  });
});
