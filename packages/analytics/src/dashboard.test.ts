import { describe, expect, it } from "vitest";
import { percentile } from "@afw/contracts";
import { analyticsDashboard } from "./dashboard.js";
import { runScenario, T0 } from "../test/scenario.js";

describe("analyticsDashboard on the synthetic scenario", () => {
  it("reports exact totals, rates and latency", async () => {
    const scenario = await runScenario();
    const events = await scenario.auditLog.query({ limit: 100_000 });
    const report = analyticsDashboard({ events, feedback: scenario.feedback, range: "1h", now: scenario.end });

    expect(report.range.from).toBe(new Date(scenario.end - 3_600_000).toISOString());
    expect(report.totals).toEqual({
      queries: 91,
      answered: 85,
      failed: 6,
      pending: 0,
      successRate: 0.9341, // 85 / 91
      cacheHits: 5,
      cacheMisses: 86,
      cacheHitRate: 0.0549, // 5 / 91
      fallbackQueries: 20, // 10 flaky -> fast, 10 primary -> backup
      fallbackRate: 0.2198, // 20 / 91
      attempts: 100, // flaky 40 + fast 10 + docs 20 + primary 20 + backup 10
      attemptFailures: 20,
      lowConfidence: 6,
      feedback: { count: 6, mean: -0.0833, negative: 3, positive: 2 }, // (-1 - 0.5 - 1 + 0 + 1 + 1) / 6
    });
    const durations = scenario.results.map((r) => r.durationMs);
    expect(report.queryLatency).toMatchObject({ count: 91, p50Ms: percentile(durations, 50), p95Ms: percentile(durations, 95) });

    expect(report.topFlows.map((f) => [f.flowId, f.queries])).toEqual([
      ["flowise:flaky", 40],
      ["flowise:docs", 20],
      ["langflow:primary", 20],
      ["flowise:fast", 15],
      ["langflow:backup", 10],
    ]);
    const flaky = report.topFlows[0]!;
    expect(flaky).toMatchObject({
      backendId: "flowise",
      answered: 30,
      attempts: 40,
      failures: 10,
      successRate: 0.75,
      firstChoice: 40,
      fallbacksFrom: 10,
      fallbacksTo: 0,
      errors: { BACKEND_TIMEOUT: 10 },
    });
    // 40 latencies: 2000..11000 ms, each 4 times -> p50 = 20th = 6000, p95 = 38th = 11000
    expect(flaky.latency).toEqual({ count: 40, p50Ms: 6000, p95Ms: 11000, meanMs: 6500 });
    expect(flaky.feedback).toEqual({ count: 4, mean: -0.625, negative: 3, positive: 0 });
    const fast = report.topFlows.find((f) => f.flowId === "flowise:fast")!;
    expect(fast).toMatchObject({ queries: 15, answered: 10, cacheHits: 5, attempts: 10, failures: 0, fallbacksTo: 10, firstChoice: 0 });

    expect(report.intents).toEqual([
      { intent: "technical-analysis", queries: 40, share: 0.4651, answered: 40, failed: 0, successRate: 1, fallbackRate: 0.25, meanConfidence: 0.9, lowConfidence: 0 },
      { intent: "data-processing", queries: 20, share: 0.2326, answered: 20, failed: 0, successRate: 1, fallbackRate: 0.5, meanConfidence: 0.9, lowConfidence: 0 },
      { intent: "rag-retrieval", queries: 20, share: 0.2326, answered: 20, failed: 0, successRate: 1, fallbackRate: 0, meanConfidence: 0.9, lowConfidence: 0 },
      { intent: "conversation", queries: 6, share: 0.0698, answered: 0, failed: 6, successRate: 0, fallbackRate: 0, meanConfidence: 0.2, lowConfidence: 6 },
    ]);
    expect(report.unclassifiedQueries).toBe(5);
    expect(report.experiments).toEqual([]);
  });

  it("counts only queries that started in the range", async () => {
    const scenario = await runScenario();
    const events = await scenario.auditLog.query({ limit: 100_000 });
    // the first 40 queries start at T0 .. T0 + 39 s
    const report = analyticsDashboard({ events, range: { from: T0, to: T0 + 39_000 }, now: scenario.end });
    expect(report.totals.queries).toBe(40);
    expect(report.intents.map((i) => i.intent)).toEqual(["technical-analysis"]);
    const empty = analyticsDashboard({ events: [], range: "24h" });
    expect(empty.totals).toMatchObject({ queries: 0, successRate: null, cacheHitRate: null, fallbackRate: null });
    expect(empty.queryLatency).toEqual({ count: 0, p50Ms: null, p95Ms: null, meanMs: null });
  });
});
