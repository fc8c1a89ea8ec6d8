import { describe, expect, it } from "vitest";
import type { PerformanceSample } from "@afw/contracts";
import { buildFlowProfile } from "./flow-profiles.js";
import { adjustBreakdown, capabilityScore, flowMatchScore, healthScore, summarizePerformance } from "./scoring.js";
import { toFlows } from "../test/fake-backend.js";

const profile = (flow: Parameters<typeof toFlows>[2][number]) => buildFlowProfile(toFlows("b", "flowise", [flow])[0]!);

describe("flowMatchScore", () => {
  it("is 1.0 when the flow's primary intent matches", () => {
    expect(flowMatchScore(profile({ id: "qa", intents: ["rag-retrieval", "conversation"] }), "rag-retrieval", new Set())).toBe(1);
  });
  it("is 0.7 when the intent is in the flow's list but not first", () => {
    expect(flowMatchScore(profile({ id: "qa", intents: ["rag-retrieval", "conversation"] }), "conversation", new Set())).toBe(0.7);
  });
  it("is 0.7 on keyword overlap with the question", () => {
    const p = profile({ id: "hr", intents: ["rag-retrieval"], keywords: ["vacation", "payroll"] });
    expect(flowMatchScore(p, "conversation", new Set(["my", "vacation"]))).toBe(0.7);
    expect(flowMatchScore(p, "conversation", new Set(["my", "holiday"]))).toBe(0);
  });
  it("is 0.3 for a general-purpose flow and 0 otherwise", () => {
    expect(flowMatchScore(profile({ id: "any", generalPurpose: true, intents: ["conversation"] }), "data-processing", new Set())).toBe(0.3);
    expect(flowMatchScore(profile({ id: "coder", intents: ["technical-analysis"] }), "data-processing", new Set())).toBe(0);
  });
});

describe("healthScore", () => {
  it("maps healthy/slow/down to 1/0.5/0 and unknown to the configured score", () => {
    expect(healthScore({ status: "healthy" })).toBe(1);
    expect(healthScore({ status: "slow" })).toBe(0.5);
    expect(healthScore({ status: "down" })).toBe(0);
    expect(healthScore(undefined)).toBe(0.5);
  });
});

describe("capabilityScore", () => {
  it("uses the default table: Langflow 1.0 RAG / 0.7 conversation, Flowise the reverse", () => {
    expect(capabilityScore("rag-retrieval", "langflow")).toBe(1);
    expect(capabilityScore("conversation", "langflow")).toBe(0.7);
    expect(capabilityScore("conversation", "flowise")).toBe(1);
    expect(capabilityScore("rag-retrieval", "flowise")).toBe(0.7);
  });
  it("falls back to the default for unknown kinds/intents; backend and flow overrides win in that order", () => {
    expect(capabilityScore("data-processing", "custom")).toBe(0.5);
    expect(capabilityScore("rag-retrieval", "flowise", { "rag-retrieval": 0.9 })).toBe(0.9);
  });
});

describe("summarizePerformance", () => {
  const now = 1_000_000_000;
  const samples = (n: number, latencyMs: number, success: boolean, ageMs = 0): PerformanceSample[] =>
    Array.from({ length: n }, () => ({ backendId: "b", latencyMs, success, timestamp: now - ageMs }));

  it("is neutral without samples", () => {
    expect(summarizePerformance([], now).score).toBe(0.5);
  });
  it("scores fast and reliable above slow, and slow above failing", () => {
    const fast = summarizePerformance(samples(20, 100, true), now).score;
    const slow = summarizePerformance(samples(20, 8_000, true), now).score;
    const failing = summarizePerformance(samples(20, 100, false), now).score;
    expect(fast).toBeGreaterThan(slow);
    expect(slow).toBeGreaterThan(failing);
    expect(fast).toBeLessThanOrEqual(1);
    expect(failing).toBeGreaterThanOrEqual(0);
  });
  it("computes p50/p95 over successful calls", () => {
    const s = summarizePerformance([...samples(19, 100, true), ...samples(1, 5_000, true)], now);
    expect(s.p50Ms).toBe(100);
    expect(s.p95Ms).toBe(100);
    const t = summarizePerformance([...samples(18, 100, true), ...samples(2, 5_000, true)], now);
    expect(t.p95Ms).toBe(5_000);
  });
  it("decays old samples: old failures weigh less than recent ones", () => {
    const oldFailures = summarizePerformance([...samples(10, 100, false, 3_600_000), ...samples(10, 100, true)], now);
    const newFailures = summarizePerformance([...samples(10, 100, true, 3_600_000), ...samples(10, 100, false)], now);
    expect(oldFailures.successRate).toBeGreaterThan(0.9);
    expect(newFailures.successRate).toBeLessThan(0.1);
    expect(oldFailures.score).toBeGreaterThan(newFailures.score);
  });
  it("pulls few samples towards neutral", () => {
    expect(summarizePerformance(samples(1, 100, true), now).score).toBeLessThan(summarizePerformance(samples(50, 100, true), now).score);
  });
});

describe("adjustBreakdown", () => {
  it("bounds each delta, clamps the components to 0..1 and records what it did", () => {
    const out = adjustBreakdown({ flow_match: 0.3, performance: 0.95 }, { flow_match: -0.5, performance: 0.1, reason: "r" }, 0.2);
    expect(out.flow_match).toBeCloseTo(0.1, 10);
    expect(out.performance).toBe(1);
    expect(out.adjustment).toEqual({ source: "learned-prior", original: { flow_match: 0.3, performance: 0.95 }, delta: { flow_match: -0.2, performance: 0.1 }, reason: "r" });
  });

  it("treats non-finite deltas as zero", () => {
    const out = adjustBreakdown({ flow_match: 0.7, performance: 0.5 }, { flow_match: Number.NaN, performance: Number.POSITIVE_INFINITY, reason: "" });
    expect(out).toMatchObject({ flow_match: 0.7, performance: 0.5, adjustment: { delta: { flow_match: 0, performance: 0 } } });
  });
});
