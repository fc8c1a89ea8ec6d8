/** The page's pure view-model functions (assets/format.js), run in Node without a browser. */
import { describe, expect, it } from "vitest";
import {
  analyticsKpis,
  attemptText,
  eventDetails,
  formatMs,
  formatPercent,
  hedgeBadge,
  historyParams,
  overviewItems,
  queryFacts,
  questionText,
  semanticCacheItems,
  sparkline,
  upsertRow,
} from "../assets/format.js";

describe("formatting", () => {
  it("formats latencies and ratios, with a dash for missing values", () => {
    expect([formatMs(812.4), formatMs(1600), formatMs(12_400), formatMs(undefined)]).toEqual(["812 ms", "1.6 s", "12 s", "—"]);
    expect([formatPercent(0.348), formatPercent(1), formatPercent(0), formatPercent(Number.NaN)]).toEqual(["34.8%", "100%", "0%", "—"]);
  });

  it("tells what is known of a question", () => {
    expect(questionText({ question: "<b>hi</b>" })).toBe("<b>hi</b>");
    expect(questionText({ questionRedacted: true, questionLength: 12 })).toBe("[redacted] (12 characters)");
    expect(questionText({ questionLength: 7 })).toBe("(question not recorded, 7 characters)");
  });
});

describe("feed rows", () => {
  const row = (traceId: string, startedAt: string, outcome = "pending") => ({ traceId, startedAt: Date.parse(startedAt), outcome });

  it("keeps rows newest first, replaces a row by trace id and caps the list", () => {
    let rows = upsertRow([], row("a", "2026-01-01T10:00:00Z"));
    rows = upsertRow(rows, row("b", "2026-01-01T10:05:00Z"));
    rows = upsertRow(rows, row("a", "2026-01-01T10:00:00Z", "answered"));
    expect(rows.map((r: any) => `${r.traceId}:${r.outcome}`)).toEqual(["b:pending", "a:answered"]);
    expect(upsertRow(rows, row("c", "2026-01-01T09:00:00Z"), 2).map((r: any) => r.traceId)).toEqual(["b", "a"]);
    expect(upsertRow(rows, { nope: true })).toBe(rows);
  });

  it("lists the facts of a query and its attempts", () => {
    const summary = { traceId: "t", intent: "conversation", confidence: 0.74, method: "hybrid", chosenBackendId: "lf", chosenFlowId: "lf:arch", errorCode: "ALL_BACKENDS_FAILED", errorMessage: "no luck" };
    expect(queryFacts(summary)).toEqual([
      ["Trace id", "t"],
      ["Intent", "conversation (74.0%, hybrid)"],
      ["First choice", "lf / arch"],
      ["Error", "ALL_BACKENDS_FAILED: no luck"],
    ]);
    expect(attemptText({ backendId: "lf", flowId: "lf:arch", attempt: 1, outcome: "error", errorCode: "BACKEND_UNAVAILABLE", statusCode: 503, latencyMs: 45, hedged: true })).toBe(
      "lf / arch (attempt 1): error BACKEND_UNAVAILABLE HTTP 503, 45 ms (hedged)",
    );
    expect(eventDetails({ type: "routing-decided", traceId: "t", decision: { intent: "conversation", confidence: 0.5, strategy: "direct", candidates: [{}], chosen: { flowId: "lf:arch" } } })).toBe(
      "intent=conversation  confidence=50.0%  strategy=direct  candidates=1  chosen=lf:arch",
    );
  });
});

describe("hedge badge", () => {
  const attempt = (backendId: string, flowId: string, outcome: string, hedged?: boolean) => ({ backendId, flowId, attempt: 1, outcome, ...(hedged ? { hedged } : {}) });

  it("says whether the parallel partner's answer was kept", () => {
    const attempts = [attempt("lf", "lf:arch", "aborted"), attempt("fw", "fw:code", "success", true)];
    expect(hedgeBadge({ attempts, answeredBackendId: "fw", answeredFlowId: "fw:code" })).toBe("hedge won");
    expect(hedgeBadge({ attempts: [attempt("lf", "lf:arch", "success"), attempt("fw", "fw:code", "aborted", true)], answeredBackendId: "lf", answeredFlowId: "lf:arch" })).toBe("hedged");
    expect(hedgeBadge({ attempts: [attempt("lf", "lf:arch", "error"), attempt("fw", "fw:code", "success")], answeredBackendId: "fw", answeredFlowId: "fw:code" })).toBeUndefined();
    expect(hedgeBadge({})).toBeUndefined();
  });
});

describe("sparkline geometry", () => {
  it("splits lines at gaps, draws lone points as dots and describes the series", () => {
    const chart = sparkline([0.5, 1, undefined, 0.25, undefined], { label: "fw success rate", format: formatPercent, min: 0, max: 1, width: 100, height: 20 });
    expect(chart.lines).toEqual(["3,10 26.5,3"]);
    expect(chart.dots).toEqual([[73.5, 13.5]]);
    expect(chart.description).toBe("fw success rate: latest 25.0%, lowest 25.0%, highest 100%");
    expect(sparkline([], { label: "empty", format: formatPercent }).description).toBe("empty: no data in the last hour");
  });
});

describe("panel view models", () => {
  it("shows the semantic cache's hit rate and guard rejections, nothing without stats", () => {
    expect(semanticCacheItems({ enabled: true, lookups: 240, hits: 62, guardRejections: 7, threshold: 0.92 })).toEqual([
      ["Status", "on", "enabled"],
      ["Hit rate", "25.8%", "hit-rate"],
      ["Hits / lookups", "62 / 240", "hits"],
      ["Guard rejections", "7", "guard-rejections"],
      ["Threshold", "0.92", "threshold"],
    ]);
    expect(semanticCacheItems({ enabled: false, lookups: 0, hits: 0, guardRejections: 0, threshold: 0.9 })?.[1]).toEqual(["Hit rate", "—", "hit-rate"]);
    expect(semanticCacheItems(undefined)).toBeUndefined();
  });

  it("builds the history query from the form: empty fields dropped, local times as ISO", () => {
    const params = historyParams({ q: "  falcon runbook ", tag: "", session: " ", from: "2026-03-01T09:30", cursor: undefined });
    expect(params).toEqual({ q: "falcon runbook", from: new Date("2026-03-01T09:30").toISOString() });
  });

  it("builds the overview and analytics figures", () => {
    expect(overviewItems({ totals: { backends: 2, healthyBackends: 1, cacheHitRate: 0.5 } }, 3)).toEqual([
      ["Healthy backends", "1 of 2"],
      ["Cache hit rate", "50.0%"],
      ["Queries in feed", "3"],
    ]);
    const kpis = analyticsKpis({ totals: { queries: 9, successRate: 1, feedback: { count: 2, mean: 0.5 } }, queryLatency: { p50Ms: 480, p95Ms: 1600 } });
    expect(Object.fromEntries(kpis.map(([, value, key]) => [key, value]))).toMatchObject({ queries: "9", success: "100%", latency: "480 ms / 1.6 s", feedback: "+0.50 (2)" });
  });
});

