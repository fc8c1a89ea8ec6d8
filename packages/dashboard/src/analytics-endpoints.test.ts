import { describe, expect, it } from "vitest";
import { fetchJson, useDashboardServer } from "../test/harness.js";
import { renderIntentPatternsYaml } from "./index.js";

type Proposal = { kind: string; intent: string | null; keywords: string[]; support: number; reason: string };
import { createInMemoryDashboardSource, createSampleDashboardSource, sampleAnalyticsData } from "./testing.js";

const start = useDashboardServer();
const get = fetchJson;

const NOW = Date.parse("2026-03-01T12:00:00.000Z");

describe("analytics endpoints", () => {
  it("serves the summary of the requested range with the seeded numbers", async () => {
    const source = createSampleDashboardSource({ now: NOW });
    const server = await start({ source });
    const day = await get(server, "/api/analytics/summary?range=24h");
    expect(day.status).toBe(200);
    expect(day.headers.get("cache-control")).toBe("no-store");
    expect(day.body.configured).toBe(true);
    expect(day.body.rangeName).toBe("24h");
    const summary = day.body.summary;
    expect(summary.totals).toMatchObject({ queries: 412, answered: 399, failed: 13, cacheHits: 106, cacheMisses: 234 });
    expect(summary.totals.successRate).toBeCloseTo(399 / 412, 4);
    expect(summary.totals.cacheHitRate).toBeCloseTo(106 / 340, 4);
    expect(summary.range).toEqual({ from: "2026-02-28T12:00:00.000Z", to: "2026-03-01T12:00:00.000Z" });
    expect(summary.topFlows.map((flow: { flowId: string }) => flow.flowId)).toEqual([
      "flowise-local:code-helper",
      "flowise-local:docs-qa",
      "langflow-local:architect",
      "langflow-local:chat",
    ]);
    expect(summary.experiments[0]).toMatchObject({ experimentId: "hedge-structural", variantShare: 0.2346, control: { queries: 62 }, variant: { queries: 19 } });
    expect(summary.intents[0]).toMatchObject({ intent: "technical-analysis", queries: 158 });

    // the default range is 24h; `top` limits the flows and reaches the source
    const defaults = await get(server, "/api/analytics/summary?top=2");
    expect(defaults.body.rangeName).toBe("24h");
    expect(defaults.body.summary.topFlows).toHaveLength(2);
    const hour = await get(server, "/api/analytics/summary?range=1h");
    expect(hour.body.summary.totals.queries).toBe(21);
    const week = await get(server, "/api/analytics/summary?range=7d");
    expect(week.body.summary.totals.queries).toBe(2678);
    expect(source.analyticsCalls.filter((call) => call.method === "analyticsSummary").map((call) => call.options)).toEqual([
      { range: "24h", top: 10 },
      { range: "24h", top: 2 },
      { range: "1h", top: 10 },
      { range: "7d", top: 10 },
    ]);
  });

  it("rejects bad parameters with 400 INVALID_INPUT and never echoes them", async () => {
    const server = await start({ source: createSampleDashboardSource({ now: NOW }) });
    for (const path of [
      "/api/analytics/summary?range=2h",
      "/api/analytics/summary?range=%3Cscript%3E",
      "/api/analytics/summary?top=0",
      "/api/analytics/summary?top=51",
      "/api/analytics/summary?top=abc",
      "/api/analytics/summary?range=1h&range=7d",
      "/api/analytics/summary?extra=1",
      "/api/analytics/patterns?range=30d",
      "/api/analytics/learned?intent=not-an-intent",
      "/api/analytics/export?format=xml",
      "/api/analytics/export?groupBy=session",
      "/api/analytics/flows/langflow-local%3Aarchitect?range=1y",
      "/api/analytics/flows/bad%0Aflow",
      `/api/analytics/flows/${"x".repeat(201)}`,
    ]) {
      const { status, body, text } = await get(server, path);
      expect([path, status, body?.error?.code]).toEqual([path, 400, "INVALID_INPUT"]);
      expect(Array.isArray(body.error.issues)).toBe(true);
      expect(text).not.toMatch(/<script>|2h|30d|xml|1y|not-an-intent/);
    }
    const wrongMethod = await get(server, "/api/analytics/summary", { method: "POST" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.error.code).toBe("METHOD_NOT_ALLOWED");
    expect((await get(server, "/api/analytics/flows")).status).toBe(404);
    expect((await get(server, "/api/analytics/nothing")).status).toBe(404);
  });

  it("serves one flow's analysis with its recommendations, and 404 for an unknown flow", async () => {
    const source = createSampleDashboardSource({ now: NOW });
    const server = await start({ source });
    const { status, body } = await get(server, "/api/analytics/flows/langflow-local%3Aarchitect?range=7d");
    expect(status).toBe(200);
    expect(body.analysis.flowId).toBe("langflow-local:architect");
    expect(body.analysis.usage).toMatchObject({ queries: 74, failures: 21, fallbacksFrom: 22 });
    expect(body.analysis.fallback.asSource.share).toBe(0.2973);
    expect(body.analysis.recommendations).toEqual([expect.objectContaining({ kind: "fallback-source", severity: "warning", intent: "structural-thinking" })]);
    expect(source.analyticsCalls.at(-1)).toEqual({ method: "flowAnalysis", options: { flowId: "langflow-local:architect", range: "7d" } });
    const unknown = await get(server, "/api/analytics/flows/nobody%3Anothing");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("NOT_FOUND");
  });

  it("serves pattern analysis with the proposals as a YAML fragment for routing.intentPatterns", async () => {
    const server = await start({ source: createSampleDashboardSource({ now: NOW }) });
    const { status, body } = await get(server, "/api/analytics/patterns?range=24h");
    expect(status).toBe(200);
    expect(body.patterns.clusters.map((cluster: { id: string }) => cluster.id)).toEqual(["c1", "c2"]);
    expect(body.patterns.fallbackIntents[0]).toMatchObject({ intent: "structural-thinking", fallbackRate: 0.259 });
    expect(body.patterns.lowConfidence[0]).toMatchObject({ traceId: "sample-low-1", confidence: 0.31, question: "parquet to csv but keep the schema?" });
    expect(body.patterns.proposals).toHaveLength(2);
    const yaml: string = body.intentPatternsYaml;
    expect(yaml).toContain("reload with SIGHUP");
    expect(yaml.split("\n").filter((line) => !line.startsWith("#"))).toEqual([
      "routing:",
      "  intentPatterns:",
      "    data-processing: # 14 questions",
      "      keywords:",
      '        "parquet": 2',
      '        "csv": 2',
      "    structural-thinking: # 9 questions",
      "      keywords:",
      '        "boundaries": 2',
      "",
    ]);
  });

  it("hides questions of the pattern analysis in redacted mode, but keeps the keywords and the YAML", async () => {
    const server = await start({ source: createSampleDashboardSource({ now: NOW }), redact: true });
    const { body, text } = await get(server, "/api/analytics/patterns");
    expect(body.patterns.clusters[0].representative).toBe("[redacted]");
    expect(body.patterns.lowConfidence[0].question).toBe("[redacted]");
    expect(body.patterns.proposals[0].examples).toEqual(["[redacted]"]);
    expect(body.patterns.proposals[0].keywords).toEqual(["parquet", "csv"]);
    expect(text).not.toContain("convert this parquet file");
    expect(body.intentPatternsYaml).toContain('"parquet": 2');
  });

  it("serves the learned prior's adjustments, optionally of one intent", async () => {
    const source = createSampleDashboardSource({ now: NOW });
    const server = await start({ source });
    const all = await get(server, "/api/analytics/learned");
    expect(all.status).toBe(200);
    expect(all.body.learned.maxAdjustment).toBe(0.15);
    expect(all.body.learned.adjustments).toHaveLength(2);
    expect(all.body.learned.adjustments[0]).toMatchObject({ intent: "structural-thinking", flowId: "langflow-local:architect", flowMatch: -0.0912, performance: -0.1204, samples: 86.4 });
    const none = await get(server, "/api/analytics/learned?intent=conversation");
    expect(none.body.learned.adjustments).toEqual([]);
    expect(source.analyticsCalls.at(-1)).toEqual({ method: "learnedPrior", options: { intent: "conversation" } });
  });

  it("exports metrics as a JSON or CSV download", async () => {
    const server = await start({ source: createSampleDashboardSource({ now: NOW }) });
    const json = await get(server, "/api/analytics/export?range=24h&format=json&groupBy=flow");
    expect(json.status).toBe(200);
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
    expect(json.headers.get("content-disposition")).toBe('attachment; filename="afw-metrics-flow-24h.json"');
    expect(json.body.columns).toEqual(["group", "queries", "answered", "success_rate", "attempt_p95_ms"]);
    expect(json.body.rows[0]).toMatchObject({ group: "flowise-local:code-helper", queries: 171 });

    const csv = await get(server, "/api/analytics/export?format=csv&groupBy=backend");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toBe('attachment; filename="afw-metrics-backend-24h.csv"');
    expect(csv.headers.get("x-content-type-options")).toBe("nosniff");
    const lines = csv.text.split("\r\n");
    expect(lines[0]).toBe("group,queries,answered,success_rate,attempt_p95_ms");
    expect(lines[1]).toBe("flowise-local,289,286,,");
    expect(lines[2]).toBe("langflow-local,123,112,,");
  });

  it("answers configured: false (and 501 for the export) when the source has no analytics", async () => {
    const server = await start({ source: createSampleDashboardSource({ now: NOW, withoutAnalytics: true }) });
    for (const path of ["/api/analytics/summary", "/api/analytics/patterns", "/api/analytics/learned", "/api/analytics/flows/a%3Ab"]) {
      const { status, body } = await get(server, path);
      expect([path, status, body]).toEqual([path, 200, { configured: false }]);
    }
    const exported = await get(server, "/api/analytics/export?format=csv");
    expect(exported.status).toBe(501);
    expect(exported.body.error.code).toBe("NOT_CONFIGURED");
    const overview = await get(server, "/api/overview");
    expect(overview.body.sections).toMatchObject({ analytics: false, flowAnalysis: false, patterns: false, learnedPrior: false, metricsExport: false });
  });

  it("answers 500 without details when an analytics method throws", async () => {
    const errors: unknown[] = [];
    const source = createInMemoryDashboardSource({ analytics: sampleAnalyticsData(NOW) });
    source.analyticsSummary = async () => {
      throw new Error("audit log down: redis://user:secret@host");
    };
    const server = await start({ source, onError: (error) => errors.push(error) });
    const { status, text } = await get(server, "/api/analytics/summary");
    expect(status).toBe(500);
    expect(text).not.toContain("secret");
    expect(errors).toHaveLength(1);
  });
});

describe("renderIntentPatternsYaml", () => {
  const proposal = (overrides: Partial<Proposal>): Proposal => ({
    kind: "intent-pattern",
    intent: "data-processing",
    keywords: ["parquet"],
    support: 3,
    reason: "r",
    ...overrides,
  });

  it("merges the keywords of one intent and leaves out new-flow proposals, unknown intents and non-words", () => {
    const yaml = renderIntentPatternsYaml(
      [
        proposal({ keywords: ["parquet", "arrow"] }),
        proposal({ keywords: ["parquet", "feather"], support: 2 }),
        proposal({ kind: "new-flow", intent: "conversation", keywords: ["weather"] }),
        proposal({ intent: "made-up-intent", keywords: ["x1"] }),
        proposal({ intent: "rag-retrieval", keywords: ['"}\nrouting: evil', "a b", "<script>", "handbuch"] }),
      ],
      { label: "the last 1h" },
    );
    expect(yaml).toBe(
      [
        "# Intent patterns proposed by pattern_analysis over the last 1h.",
        "# Review them, merge them into the routing section of the gateway configuration",
        "# (next to any intentPatterns you already have), then reload with SIGHUP.",
        "routing:",
        "  intentPatterns:",
        "    data-processing: # 5 questions",
        "      keywords:",
        '        "parquet": 2',
        '        "arrow": 2',
        '        "feather": 2',
        "    rag-retrieval: # 3 questions",
        "      keywords:",
        '        "handbuch": 2',
        "",
      ].join("\n"),
    );
  });

  it("returns undefined when nothing can be proposed", () => {
    expect(renderIntentPatternsYaml([])).toBeUndefined();
    expect(renderIntentPatternsYaml([proposal({ kind: "new-flow" }), proposal({ intent: null })])).toBeUndefined();
  });
});
