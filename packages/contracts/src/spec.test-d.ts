import { describe, expectTypeOf, it } from "vitest";
import type { FlowBackendV1, FlowExecutionRequest, FlowExecutionResult, FlowStreamChunk, BackendHealth, UniversalFlow, Intent } from "./index.js";
import type { TraceEventOf } from "./trace-events.js";

describe("FlowBackendV1", () => {
  it("has the v1 shape", () => {
    expectTypeOf<FlowBackendV1["specificationVersion"]>().toEqualTypeOf<"v1">();
    expectTypeOf<FlowBackendV1["checkHealth"]>().parameters.toEqualTypeOf<[signal?: AbortSignal]>();
    expectTypeOf<FlowBackendV1["checkHealth"]>().returns.toEqualTypeOf<Promise<BackendHealth>>();
    expectTypeOf<FlowBackendV1["discoverFlows"]>().returns.toEqualTypeOf<Promise<UniversalFlow[]>>();
    expectTypeOf<FlowBackendV1["execute"]>().parameters.toEqualTypeOf<[request: FlowExecutionRequest, signal?: AbortSignal]>();
    expectTypeOf<FlowBackendV1["execute"]>().returns.toEqualTypeOf<Promise<FlowExecutionResult>>();
    expectTypeOf<NonNullable<FlowBackendV1["stream"]>>().returns.toEqualTypeOf<AsyncIterable<FlowStreamChunk>>();
  });

  it("accepts a minimal custom adapter", () => {
    const backend = {
      specificationVersion: "v1" as const,
      id: "dify-1",
      kind: "dify",
      checkHealth: async (): Promise<BackendHealth> => ({ backendId: "dify-1", kind: "dify", status: "healthy", latencyMs: 1, checkedAt: new Date().toISOString() }),
      discoverFlows: async (): Promise<UniversalFlow[]> => [],
      execute: async (r: FlowExecutionRequest): Promise<FlowExecutionResult> => ({ text: r.question, backendId: "dify-1", flowId: r.flowId, sources: [], raw: null }),
    };
    expectTypeOf(backend).toExtend<FlowBackendV1>();
  });

  it("narrows trace events by type", () => {
    expectTypeOf<TraceEventOf<"intent-classified">["intent"]>().toEqualTypeOf<Intent>();
  });
});
