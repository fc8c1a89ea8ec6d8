import { describe, expect, it } from "vitest";
import { AfwError, BackendError, type TraceContext } from "@afw/contracts";
import { createRouter } from "./router.js";
import { createFakeBackend, toFlows, type FakeFlow } from "../test/fake-backend.js";

// Issue 20 M6: discovery went stale — a flow created after discovery was FLOW_NOT_FOUND for up to
// the discovery TTL (5 min), and a flow the backend no longer has stayed listed.

function setup(initial: FakeFlow[]) {
  let flows = initial;
  let clock = 1_000_000;
  let discovered: () => void = () => undefined;
  const backend = createFakeBackend({
    id: "flowise",
    flows: initial,
    discover: () => toFlows("flowise", "flowise", flows),
    execute: (request) => {
      if (!flows.some((flow) => `flowise:${flow.id}` === request.flowId || flow.id === request.flowId)) {
        throw new BackendError("FLOW_NOT_FOUND", `no chatflow ${request.flowId}`, { backendId: "flowise", flowId: request.flowId });
      }
      return "answer";
    },
  });
  const trace: TraceContext = {
    traceId: "trace-rediscovery",
    requestId: "router",
    sink: { emit: (event) => event.type === "flows-discovered" && discovered() },
  };
  const router = createRouter({ backends: [backend], now: () => clock, trace });
  return {
    backend,
    router,
    setFlows: (next: FakeFlow[]) => (flows = next),
    advance: (ms: number) => (clock += ms),
    nextDiscovery: () => new Promise<void>((resolve) => (discovered = resolve)),
  };
}

async function code(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: unknown) => (AfwError.isInstance(error) || BackendError.isInstance(error) ? error.code : String(error)),
  );
}

describe("flow rediscovery", () => {
  it("finds a flow created after the last discovery with one refresh", async () => {
    const { backend, router, setFlows } = setup([{ id: "old", generalPurpose: true }]);
    await router.warmUp();
    expect(backend.discoveries).toBe(1);
    setFlows([{ id: "old", generalPurpose: true }, { id: "new", name: "Created later" }]);
    const decision = await router.route({ question: "hello", flowId: "new" });
    expect(decision.chosen).toMatchObject({ backendFlowId: "new" });
    expect(backend.discoveries).toBe(2);
  });

  it("refreshes at most once per interval for unknown flows, shared by concurrent calls", async () => {
    const { backend, router, advance } = setup([{ id: "old", generalPurpose: true }]);
    await router.warmUp();
    const codes = await Promise.all([code(router.route({ question: "a", intent: "conversation", flowId: "nope" })), code(router.route({ question: "b", intent: "conversation", flowId: "nope" }))]);
    expect(codes).toEqual(["FLOW_NOT_FOUND", "FLOW_NOT_FOUND"]);
    expect(backend.discoveries).toBe(2);
    expect(await code(router.route({ question: "c", intent: "conversation", flowId: "still-nope" }))).toBe("FLOW_NOT_FOUND");
    expect(backend.discoveries).toBe(2);
    advance(5_000);
    expect(await code(router.route({ question: "d", intent: "conversation", flowId: "nope" }))).toBe("FLOW_NOT_FOUND");
    expect(backend.discoveries).toBe(3);
  });

  it("a backend's FLOW_NOT_FOUND rediscovers, which removes the deleted flow", async () => {
    const { backend, router, setFlows, nextDiscovery } = setup([{ id: "gone", name: "Deleted soon" }, { id: "kept", generalPurpose: true }]);
    await router.warmUp();
    setFlows([{ id: "kept", generalPurpose: true }]);
    const rediscovered = nextDiscovery();
    expect(await code(router.execute({ question: "hi", flowId: "gone" }))).toBeDefined();
    await rediscovered;
    expect(backend.discoveries).toBe(2);
    expect(await code(router.route({ question: "hi", flowId: "gone" }))).toBe("FLOW_NOT_FOUND");
    const decision = await router.route({ question: "hi" });
    expect(decision.candidates.map((candidate) => candidate.backendFlowId)).toEqual(["kept"]);
    expect(backend.discoveries).toBe(2);
  });
});
