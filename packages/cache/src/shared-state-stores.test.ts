import { PerformanceSampleSchema } from "@afw/contracts";
import { describe, expect, it } from "vitest";
import { MemoryPerformanceStore, plainPerformanceSample } from "./shared-state-stores.js";

const valid = { backendId: "flowise", flowId: "flowise:faq", latencyMs: 12.5, success: true, timestamp: 1_700_000_000_000 };

describe("plainPerformanceSample", () => {
  const cases: unknown[] = [
    valid,
    { backendId: "b", latencyMs: 0, success: false, timestamp: 0 },
    { ...valid, errorCode: "BACKEND_TIMEOUT", intent: "rag-retrieval" },
    { ...valid, errorCode: undefined, flowId: undefined, intent: undefined },
    { timestamp: 5, extra: "dropped", success: true, latencyMs: -0, backendId: "" },
    { ...valid, latencyMs: -1 },
    { ...valid, latencyMs: Number.NaN },
    { ...valid, latencyMs: Number.POSITIVE_INFINITY },
    { ...valid, latencyMs: "1" },
    { ...valid, timestamp: 1.5 },
    { ...valid, timestamp: -1 },
    { ...valid, timestamp: 2 ** 60 },
    { ...valid, success: 1 },
    { ...valid, backendId: 3 },
    { ...valid, flowId: null },
    { ...valid, errorCode: 5 },
    { ...valid, intent: "poetry" },
    { ...valid, intent: "conversation" },
    { latencyMs: 1, success: true, timestamp: 1 },
    null,
    "sample",
    [],
    Object.assign(Object.create(null) as object, valid),
  ];
  it.each(cases.map((value, index) => [index, value]))("gives the schema's result or defers to it (%i)", (_index, value) => {
    const fast = plainPerformanceSample(value);
    const schema = PerformanceSampleSchema.safeParse(value);
    if (fast === undefined) return;
    expect(schema.success).toBe(true);
    expect(fast).toStrictEqual(schema.data);
    expect(Object.keys(fast)).toEqual(Object.keys(schema.data!));
  });

  it("takes the samples the router records", () => {
    expect(plainPerformanceSample(valid)).toBeDefined();
    expect(plainPerformanceSample({ ...valid, errorCode: "BACKEND_ERROR", intent: "data-processing" })).toBeDefined();
  });
});

describe("MemoryPerformanceStore", () => {
  it("keeps its samples out of the callers' reach", async () => {
    const store = new MemoryPerformanceStore();
    const sample = { ...valid };
    await store.record(sample);
    sample.latencyMs = 99;
    const window = await store.window({ backendId: "flowise" });
    expect(window).toEqual([valid]);
    expect(() => {
      (window[0] as { latencyMs: number }).latencyMs = 7;
    }).toThrow(TypeError);
    window.pop();
    expect(await store.window({ backendId: "flowise", flowId: "flowise:faq" })).toEqual([valid]);
    expect(await store.window({ backendId: "flowise" })).toEqual([valid]);
  });

  it("refuses an invalid sample with the schema's message", async () => {
    await expect(new MemoryPerformanceStore().record({ ...valid, latencyMs: -1 })).rejects.toMatchObject({ code: "INVALID_INPUT", message: expect.stringMatching(/latencyMs/) });
  });
});
