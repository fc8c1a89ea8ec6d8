import { describe, expect, it } from "vitest";
import { TraceEventSchema } from "@afw/contracts";
import { createInMemoryDashboardSource } from "./in-memory-dashboard-source.js";
import { buildQueryTrace, createSampleDashboardSource } from "../testing.js";

describe("createInMemoryDashboardSource", () => {
  it("keeps at most traceCapacity events and notifies subscribers", async () => {
    const source = createInMemoryDashboardSource({ traceCapacity: 5 });
    const seen: string[] = [];
    const waiting = source.waitForSubscribers((count) => count === 1);
    const unsubscribe = await source.subscribe?.((event) => seen.push(event.traceId));
    expect(await waiting).toBe(1);
    source.recordQuery("q", buildQueryTrace({ traceId: "a", attempts: [{ backendId: "b", flowId: "b:f" }] }));
    expect(source.events).toHaveLength(5);
    expect(seen.length).toBeGreaterThan(5);
    unsubscribe?.();
    expect(source.subscriberCount).toBe(0);
  });

  it("clears cache entries by flow, by session and all, recording each call", async () => {
    const source = createInMemoryDashboardSource({
      cacheEntries: [{ flowId: "f1" }, { flowId: "f1", sessionId: "s1" }, { flowId: "f2", sessionId: "s1" }, { flowId: "f3" }],
    });
    expect((await source.cache?.())?.byFlow.map((flow) => [flow.flowId, flow.entries])).toEqual([
      ["f1", 2],
      ["f2", 1],
      ["f3", 1],
    ]);
    expect(await source.clearCache?.({ sessionId: "s1" })).toBe(2);
    expect(await source.clearCache?.({ flowId: "f1" })).toBe(1);
    expect(await source.clearCache?.({ flowId: "f1" })).toBe(0);
    expect(await source.clearCache?.({ all: true })).toBe(1);
    expect(source.clearCacheCalls).toEqual([{ sessionId: "s1" }, { flowId: "f1" }, { flowId: "f1" }, { all: true }]);
  });

  it("searches tools by keyword overlap, best first", async () => {
    const source = createSampleDashboardSource({ withoutQueries: true });
    const result = await source.searchTools?.("search the knowledge graph memory", { limit: 3 });
    expect(result?.results[0]?.id).toBe("memory/search_nodes");
    expect(result?.results.map((hit) => hit.score)).toEqual([...(result?.results.map((hit) => hit.score) ?? [])].sort((a, b) => b - a));
    expect((await source.searchTools?.("zzz", { limit: 3 }))?.results).toEqual([]);
  });

  it("leaves out the methods named in omit", () => {
    const source = createInMemoryDashboardSource({ omit: ["cache", "clearCache", "subscribe"] });
    expect(source.cache).toBeUndefined();
    expect(source.clearCache).toBeUndefined();
    expect(source.subscribe).toBeUndefined();
    expect(source.backends).toBeTypeOf("function");
  });

  it("the sample source holds valid trace events, two backends and a fallback", async () => {
    const source = createSampleDashboardSource();
    for (const event of source.events) expect(() => TraceEventSchema.parse(event)).not.toThrow();
    expect((await source.backends?.())?.map((backend) => backend.id)).toEqual(["flowise-local", "langflow-local"]);
    const queries = await source.recentQueries?.({ limit: 10 });
    expect(queries?.find((query) => query.traceId === "sample-fallback")?.fallbacks).toHaveLength(1);
    expect((await source.sessions?.({ limit: 10, pattern: "ops-*" }))?.map((session) => session.sessionId)).toEqual(["ops-review-42"]);
  });
});
