import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AfwError, type FlowBackendV1, type TraceEvent } from "@afw/contracts";
import { BackendRegistry, type BackendRegistryEvent } from "./backend-registry.js";
import { startFlowiseServer } from "./testing/flowise-server.js";
import { startLangflowServer } from "./testing/langflow-server.js";
import type { MockPlatformServer } from "./testing/mock-server.js";

function fakeBackend(id: string, kind = "custom"): FlowBackendV1 {
  return {
    specificationVersion: "v1",
    id,
    kind,
    async checkHealth() {
      return { backendId: id, kind, status: "healthy", latencyMs: 1, checkedAt: new Date().toISOString() };
    },
    async discoverFlows() {
      return [];
    },
    async execute(request) {
      return { text: `custom:${request.question}`, backendId: id, flowId: request.flowId, sources: [], raw: null };
    },
  };
}

describe("BackendRegistry", () => {
  let flowise: MockPlatformServer;
  let langflow: MockPlatformServer;

  beforeAll(async () => {
    flowise = await startFlowiseServer({ apiKey: "afw-test-secret-fk-123456", flows: [{ id: "f1", name: "Docs QA" }, { id: "f2", name: "Chat" }] });
    langflow = await startLangflowServer({ apiKey: "afw-test-secret-lk-123456", flows: [{ id: "l1", name: "Chat" }] });
  });
  afterAll(async () => {
    await flowise.close();
    await langflow.close();
  });

  it("builds backends from the environment", () => {
    const registry = BackendRegistry.fromEnv({ FLOWISE_BASE_URL: flowise.url, FLOWISE_API_KEY: "afw-test-secret-fk-123456", LANGFLOW_BASE_URL: langflow.url });
    expect(registry.list().map((backend) => `${backend.kind}:${backend.id}`)).toEqual(["flowise:flowise", "langflow:langflow"]);
    expect(BackendRegistry.fromEnv({}).size).toBe(0);
    expect(() => BackendRegistry.fromEnv({ FLOWISE_BASE_URL: "not a url" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  it("builds several instances of one kind from config and lists by kind", () => {
    const registry = BackendRegistry.fromConfig([
      { kind: "flowise", id: "flowise-a", baseURL: flowise.url },
      { kind: "flowise", id: "flowise-b", baseURL: flowise.url, timeouts: { requestTimeoutMs: 1000 } },
      { kind: "langflow", id: "lf", baseURL: langflow.url },
      { kind: "langflow", id: "disabled", baseURL: langflow.url, enabled: false },
    ]);
    expect(registry.listByKind("flowise").map((backend) => backend.id)).toEqual(["flowise-a", "flowise-b"]);
    expect(registry.get("lf")?.kind).toBe("langflow");
    expect(registry.has("disabled")).toBe(false);
  });

  it("refuses duplicate ids, unknown kinds and invalid settings with CONFIG_INVALID", () => {
    const expectConfigError = (run: () => unknown, pattern: RegExp) => {
      try {
        run();
        throw new Error("expected a failure");
      } catch (error) {
        expect(AfwError.isInstance(error) && error.code).toBe("CONFIG_INVALID");
        expect((error as Error).message).toMatch(pattern);
      }
    };
    expectConfigError(() => BackendRegistry.fromConfig([{ kind: "flowise", id: "x", baseURL: flowise.url }, { kind: "langflow", id: "x", baseURL: langflow.url }]), /duplicate/);
    expectConfigError(() => BackendRegistry.fromConfig([{ kind: "dify", id: "d", baseURL: "http://127.0.0.1:1" }]), /unknown backend kind 'dify'/);
    expectConfigError(() => BackendRegistry.fromConfig([{ kind: "flowise", id: "f", baseURL: 42 }]), /baseURL/);
  });

  it("registers a third kind through registerKind", async () => {
    const registry = new BackendRegistry().registerKind("echo", (settings) => fakeBackend(settings.id, "echo"));
    registry.loadConfig([{ kind: "echo", id: "echo-1" }]);
    expect(registry.kinds).toEqual(["flowise", "langflow", "echo"]);
    expect((await registry.require("echo-1").execute({ flowId: "x", question: "hi" })).text).toBe("custom:hi");
  });

  it("registers and unregisters at run time and notifies listeners", () => {
    const registry = new BackendRegistry();
    const events: BackendRegistryEvent["type"][] = [];
    const stop = registry.subscribe((event) => events.push(event.type));
    registry.register(fakeBackend("a"));
    expect(() => registry.register(fakeBackend("a"))).toThrow(/already registered/);
    registry.register(fakeBackend("a"), { replace: true });
    expect(registry.unregister("a")?.id).toBe("a");
    expect(registry.unregister("a")).toBeUndefined();
    stop();
    registry.register(fakeBackend("b"));
    expect(events).toEqual(["registered", "unregistered", "registered", "unregistered"]);
    expect(() => registry.require("nope")).toThrow(expect.objectContaining({ code: "BACKEND_UNAVAILABLE" }));
  });

  it("connects all backends and reports per-backend status without throwing", async () => {
    const dead = await startFlowiseServer();
    const deadUrl = dead.url;
    await dead.close();
    const registry = BackendRegistry.fromConfig([
      { kind: "flowise", id: "up", baseURL: flowise.url, apiKey: "afw-test-secret-fk-123456" },
      { kind: "langflow", id: "wrong-key", baseURL: langflow.url, apiKey: "afw-test-secret-bad-key-000" },
      { kind: "flowise", id: "down", baseURL: deadUrl, timeouts: { healthTimeoutMs: 1000 } },
    ]);
    const events: TraceEvent[] = [];
    const statuses = await registry.connectAll({ trace: { traceId: "t", requestId: "r", sink: { emit: (event) => events.push(event) } } });
    expect(events.filter((event) => event.type === "health-checked")).toHaveLength(3);
    expect(events.filter((event) => event.type === "flows-discovered").map((event) => (event as { backendId: string }).backendId)).toEqual(["up"]);
    const byId = Object.fromEntries(statuses.map((status) => [status.backendId, status]));
    expect(byId["up"]).toMatchObject({ flowCount: 2, health: { status: "healthy" } });
    expect(byId["wrong-key"]?.health.status).toBe("healthy");
    expect(byId["wrong-key"]?.error?.code).toBe("BACKEND_AUTH_FAILED");
    expect(byId["wrong-key"]?.error?.message).not.toContain("afw-test-secret-bad-key-000");
    expect(byId["down"]?.health.status).toBe("down");
    expect(byId["down"]?.flowCount).toBeUndefined();
    await registry.close();
    expect(registry.size).toBe(0);
  });
});
