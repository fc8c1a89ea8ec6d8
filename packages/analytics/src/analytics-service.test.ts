import { describe, expect, it } from "vitest";
import { z } from "zod";
import { UniversalFlowSchema } from "@afw/contracts";
import { createHashingEmbedder } from "@afw/embeddings";
import { ANALYTICS_TOOLS, RecordFeedbackInputSchema, createAnalyticsService, createLearnedRoutingPrior } from "./index.js";
import { parseCsv } from "./test.js";
import { AnalyticsDashboardInputSchema, ExportMetricsInputSchema, SyncFlowRegistryInputSchema } from "./tool-schemas.js";
import { runScenario } from "../test/scenario.js";

describe("analytics service (the MCP tools)", () => {
  it("answers every tool from the audit log and the feedback store", async () => {
    const scenario = await runScenario();
    const prior = createLearnedRoutingPrior({ now: () => scenario.end });
    const questions = new Map(scenario.results.map((r) => [r.traceId, r.question]));
    const analytics = createAnalyticsService({
      auditLog: scenario.auditLog,
      feedbackStore: scenario.feedbackStore,
      prior,
      embedder: createHashingEmbedder(),
      questionOf: (traceId) => questions.get(traceId),
      now: () => scenario.end,
    });

    const dashboard = await analytics.analyticsDashboard({ range: "1h", top: 2 });
    expect(dashboard.totals.queries).toBe(91);
    expect(dashboard.topFlows.map((f) => f.flowId)).toEqual(["flowise:flaky", "flowise:docs"]);
    expect(dashboard.meta).toEqual({ eventsRead: scenario.traffic.events.length, truncated: false });

    const flow = await analytics.analyzeFlow({ flow_id: "flowise:flaky" });
    expect(flow.usage.attempts).toBe(40);
    expect(flow.recommendations.length).toBeGreaterThan(0);

    const csv = await analytics.exportMetrics({ format: "csv", group_by: "backend" });
    expect(parseCsv(csv.body).map((row) => row[0])).toEqual(["group", "flowise", "langflow"]);

    const patterns = await analytics.patternAnalysis({ similarity_threshold: 0.5 });
    expect(patterns.questionsAnalysed).toBe(91);
    expect(patterns.clusters.length).toBeGreaterThan(0);
    // conversation always fails (no flow serves it), data-processing falls back half the time
    expect(patterns.fallbackIntents.map((f) => [f.intent, f.fallbackRate, f.failureRate])).toEqual([
      ["conversation", 0, 1],
      ["data-processing", 0.5, 0],
      ["technical-analysis", 0.25, 0],
    ]);

    const answered = scenario.results.find((r) => r.answeredFlowId === "langflow:primary")!;
    const feedback = await analytics.recordFeedback({ session_id: answered.sessionId!, trace_id: answered.traceId, rating: 2 });
    expect(feedback).toMatchObject({ linked: true, stored: true, record: { flowId: "langflow:primary", score: -0.5 } });
    expect(prior.snapshot("data-processing")[0]).toMatchObject({ flowId: "langflow:primary", stats: { fn: 1 } });

    const window = await analytics.analyticsDashboard({ from: new Date(scenario.end - 10 * 60_000).toISOString(), to: new Date(scenario.end).toISOString() });
    expect(window.totals.queries).toBe(91);
  });

  it("reports truncation when a range holds more events than maxEvents", async () => {
    const scenario = await runScenario();
    const analytics = createAnalyticsService({ auditLog: scenario.auditLog, maxEvents: 100, now: () => scenario.end });
    const dashboard = await analytics.analyticsDashboard({ range: "1h" });
    expect(dashboard.meta).toEqual({ eventsRead: 100, truncated: true });
    // the newest events were kept: the last queries are complete
    expect(dashboard.totals.queries).toBeLessThan(91);
  });

  it("validates input and needs an embedder for pattern_analysis", async () => {
    const scenario = await runScenario();
    const analytics = createAnalyticsService({ auditLog: scenario.auditLog, now: () => scenario.end });
    await expect(analytics.analyticsDashboard({ range: "2d" as never })).rejects.toMatchObject({ code: "INVALID_INPUT" });
    await expect(analytics.analyzeFlow({ flow_id: "" })).rejects.toMatchObject({ code: "INVALID_INPUT" });
    await expect(analytics.exportMetrics({ format: "xml" as never })).rejects.toMatchObject({ code: "INVALID_INPUT" });
    await expect(analytics.analyticsDashboard({ from: "2025-02-01T00:00:00Z", to: "2025-01-01T00:00:00Z" })).rejects.toMatchObject({ code: "INVALID_INPUT" });
    await expect(analytics.patternAnalysis()).rejects.toMatchObject({ code: "CONFIG_INVALID" });
  });

  it("syncs the registry of one backend and invalidates the changed flows on apply", async () => {
    const scenario = await runScenario();
    const analytics = createAnalyticsService({ auditLog: scenario.auditLog, now: () => scenario.end });
    const discovered = [
      UniversalFlowSchema.parse({ id: "flowise:flaky", backendId: "flowise", backendKind: "flowise", backendFlowId: "flaky", name: "Flaky", intents: [], source: "discovered" }),
      UniversalFlowSchema.parse({ id: "langflow:new", backendId: "langflow", backendKind: "langflow", backendFlowId: "new", name: "New", intents: ["conversation"], source: "discovered" }),
    ];
    const configured = [{ backendId: "flowise", flows: [{ id: "old", intents: ["conversation" as const] }] }];
    const invalidated: string[] = [];
    const dry = await analytics.syncFlowRegistry({ backend: "flowise" }, { discovered, configured, invalidate: (flowId) => void invalidated.push(flowId) });
    expect(dry.changes.map((c) => `${c.action} ${c.flowId}`)).toEqual(["remove flowise:old", "add flowise:flaky"]);
    // usage from the audit log: flaky answered 30 technical-analysis questions
    expect(dry.changes[1]!.inferredIntents).toEqual([{ intent: "technical-analysis", source: "usage", evidence: 30 }]);
    expect(invalidated).toEqual([]);
    const applied = await analytics.syncFlowRegistry({ backend: "flowise", apply: true }, { discovered, configured, invalidate: (flowId) => void invalidated.push(flowId) });
    expect(applied.invalidated).toBe(2);
    expect(invalidated).toEqual(["flowise:old", "flowise:flaky"]);
    expect(applied.registry).toEqual([{ backendId: "flowise", flows: [applied.changes[1]!.entry] }]);
  });
});

describe("tool input schemas", () => {
  it("register as zod shapes with defaults", () => {
    for (const tool of Object.values(ANALYTICS_TOOLS)) {
      expect(tool.description.length).toBeGreaterThan(20);
      // what the MCP SDK publishes as the tool's input schema
      expect(z.toJSONSchema(z.object(tool.inputShape), { io: "input" })).toMatchObject({ type: "object" });
    }
    expect(Object.keys(ANALYTICS_TOOLS).sort()).toEqual(["analytics_dashboard", "analyze_flow", "export_metrics", "pattern_analysis", "record_feedback", "sync_flow_registry"]);
    expect(AnalyticsDashboardInputSchema.parse({})).toEqual({ range: "24h", top: 10 });
    expect(ExportMetricsInputSchema.parse({ range: "7d" })).toEqual({ range: "7d", format: "json", group_by: "flow" });
    expect(SyncFlowRegistryInputSchema.parse({})).toEqual({ apply: false });
    expect(AnalyticsDashboardInputSchema.safeParse({ from: "2025-01-01T00:00:00+02:00" }).success).toBe(true);
    expect(AnalyticsDashboardInputSchema.safeParse({ unknown: 1 }).success).toBe(false);
  });

  it("record_feedback needs a turn or a trace id and a rating on a scale", () => {
    expect(RecordFeedbackInputSchema.safeParse({ session_id: "s", rating: 1 }).success).toBe(false);
    expect(RecordFeedbackInputSchema.safeParse({ session_id: "s", turn: 0, rating: 1 }).success).toBe(false);
    expect(RecordFeedbackInputSchema.safeParse({ session_id: "s", turn: 1, rating: 6 }).success).toBe(false);
    expect(RecordFeedbackInputSchema.safeParse({ session_id: "s", trace_id: "t", rating: -1, comment: "meh" }).success).toBe(true);
    expect(z.toJSONSchema(z.object(ANALYTICS_TOOLS.record_feedback.inputShape))).toMatchObject({ required: ["session_id", "rating"] });
  });
});
