/**
 * The backend registry: replacing a backend without a window where it is missing, draining the
 * calls still running on the old adapter, and serving per-backend flow lists.
 */
import { describe, expect, it } from "vitest";
import { startFlowiseServer } from "@afw/backends/test/servers";
import { defaultBackendFactory } from "./backend-factory.js";
import { createBackendRegistry } from "./backend-registry.js";
import { BackendConfigSchema } from "./config-schema.js";
import { createFakeBackend } from "../test/fake-backend.js";

const registryOf = (drainTimeoutMs?: number) => createBackendRegistry(drainTimeoutMs === undefined ? {} : { drainTimeoutMs });

describe("registry.replace", () => {
  it("swaps the backend in one step and serves the previous flow list until the new one is discovered", async () => {
    const registry = registryOf();
    const old = createFakeBackend({ id: "fw", flows: [{ id: "chat" }] });
    const next = createFakeBackend({ id: "fw", flows: [{ id: "chat" }, { id: "docs" }] });
    registry.add(old);
    const before = await registry.backendFlows("fw");
    expect(before.map((f) => f.id)).toEqual(["fw:chat"]);
    const revision = registry.revision;
    const replacing = registry.replace(next);
    // Synchronously after the call: the id is there, on the new adapter, with the previous list.
    expect(registry.get("fw")?.backend).toBe(next);
    expect(registry.list()).toEqual([next]);
    expect(registry.peekFlows("fw")).toBe(before);
    expect(registry.revision).toBe(revision + 1);
    await replacing;
    expect(registry.peekFlows("fw")?.map((f) => f.id)).toEqual(["fw:chat", "fw:docs"]);
    expect((await registry.flows()).map((f) => f.id)).toEqual(["fw:chat", "fw:docs"]);
    await registry.close();
  });

  it("closes the old adapter only after the calls leased before the swap settle", async () => {
    const registry = registryOf();
    const old = createFakeBackend({ id: "fw", flows: [{ id: "chat" }] });
    registry.add(old);
    const lease = registry.lease();
    expect(lease.backends).toEqual([old]);
    const { drained } = await registry.replace(createFakeBackend({ id: "fw", flows: [{ id: "chat" }] }));
    expect(old.closed).toBe(false);
    // The in-flight call still runs on the old adapter.
    await expect(lease.backends[0]!.execute({ flowId: "chat", question: "still there?" })).resolves.toMatchObject({ backendId: "fw" });
    lease.release();
    await drained;
    expect(old.closed).toBe(true);
    lease.release(); // idempotent
    await registry.close();
  });

  it("closes the old adapter without waiting when nothing is leased, and after the bound when a call never settles", async () => {
    const registry = registryOf(20);
    const first = createFakeBackend({ id: "fw", flows: [{ id: "chat" }] });
    registry.add(first);
    const idle = await registry.replace(createFakeBackend({ id: "fw", flows: [{ id: "chat" }] }));
    await idle.drained;
    expect(first.closed).toBe(true);
    const second = registry.get("fw")!.backend as ReturnType<typeof createFakeBackend>;
    const stuck = registry.lease(); // never released
    const { drained } = await registry.replace(createFakeBackend({ id: "fw", flows: [{ id: "chat" }] }));
    await drained;
    expect(second.closed).toBe(true);
    stuck.release();
    await registry.close();
  });

  it("rejects a replace of an unknown id and keeps the registry unchanged", async () => {
    const registry = registryOf();
    await expect(registry.replace(createFakeBackend({ id: "ghost", flows: [] }))).rejects.toMatchObject({ code: "INVALID_INPUT" });
    expect(registry.list()).toEqual([]);
    await registry.close();
  });

  it("registry.close closes an adapter that is still draining", async () => {
    const registry = registryOf();
    const old = createFakeBackend({ id: "fw", flows: [{ id: "chat" }] });
    registry.add(old);
    registry.lease();
    await registry.replace(createFakeBackend({ id: "fw", flows: [{ id: "chat" }] }));
    expect(old.closed).toBe(false);
    await registry.close();
    expect(old.closed).toBe(true);
  });
});

describe("the configured flow registry of a backend from a custom factory", () => {
  it("keeps configured flows discovery did not list, inferring what the entry leaves empty as the adapters do", async () => {
    const registry = registryOf();
    const config = BackendConfigSchema.parse({
      id: "custom",
      kind: "flowise",
      baseURL: "http://127.0.0.1:1",
      flows: [
        { id: "docs", name: "HR handbook QA", description: "answers from the policy PDFs" },
        { id: "fixed", name: "Default", intents: ["technical-analysis"] },
      ],
    });
    registry.add(createFakeBackend({ id: "custom", flows: [] }), { config });
    const flows = await registry.backendFlows("custom");
    expect(flows.find((f) => f.backendFlowId === "docs")).toMatchObject({ intents: ["rag-retrieval"], generalPurpose: false, source: "configured" });
    // Configured intents are kept as they are; a catch-all name does not widen a flow whose intents were configured.
    expect(flows.find((f) => f.backendFlowId === "fixed")).toMatchObject({ intents: ["technical-analysis"], generalPurpose: false });
    await registry.close();
  });

  it("lays configured fields over a discovered flow: set ones win (lists replaced, not joined), unset ones stay the adapter's", async () => {
    const registry = registryOf();
    const config = BackendConfigSchema.parse({ id: "custom", kind: "flowise", baseURL: "http://127.0.0.1:1", flows: [{ id: "chat", keywords: ["invoice"], tags: ["billing"] }] });
    registry.add(createFakeBackend({ id: "custom", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true, cacheable: false, keywords: ["weather"] }] }), { config });
    const [chat] = await registry.backendFlows("custom");
    // The entry's defaults (`generalPurpose: false`, `cacheable: true`) neither demote a catch-all nor make a flow cacheable.
    expect(chat).toMatchObject({ intents: ["conversation"], keywords: ["invoice"], tags: ["billing"], generalPurpose: true, cacheable: false, source: "merged" });
    await registry.close();
  });
});

describe("the configured flow registry of a built-in adapter", () => {
  const CHAT = "f0000000-0000-4000-8000-00000000c4a7";
  const configOf = (baseURL: string) =>
    BackendConfigSchema.parse({
      id: "fw",
      kind: "flowise",
      baseURL,
      flows: [
        { id: CHAT, keywords: ["invoice"], tags: ["billing"] },
        { id: "offline", name: "General helper", description: "answers anything", streaming: true },
      ],
    });

  it("serves the adapter's own merge, and when discovery fails at startup the configured flows exactly as when the backend is up", async () => {
    const flowise = await startFlowiseServer({ flows: [{ id: CHAT, name: "Support chat", answer: "hi" }] });
    const up = registryOf();
    const config = configOf(flowise.url);
    const backend = defaultBackendFactory(config) as Awaited<ReturnType<typeof defaultBackendFactory>>;
    up.add(backend, { config });
    const served = await up.backendFlows("fw");
    expect(served).toEqual(await backend.discoverFlows());
    expect(served.map((f) => [f.backendFlowId, f.source, f.keywords, f.tags])).toEqual([
      [CHAT, "merged", ["invoice"], ["billing"]],
      ["offline", "configured", expect.any(Array), []],
    ]);
    await up.close();
    await flowise.close();

    const down = registryOf();
    const unreachable = configOf("http://127.0.0.1:1");
    down.add(await defaultBackendFactory(unreachable), { config: unreachable });
    const fallback = await down.backendFlows("fw");
    expect(down.discoveryProblems()).toHaveLength(1);
    expect(fallback.find((f) => f.backendFlowId === "offline")).toEqual(served.find((f) => f.backendFlowId === "offline"));
    expect(fallback.find((f) => f.backendFlowId === CHAT)).toMatchObject({ keywords: ["invoice"], tags: ["billing"], source: "configured" });
    await down.close();
  });
});
