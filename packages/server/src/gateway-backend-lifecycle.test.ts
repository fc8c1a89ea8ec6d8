/**
 * Flow discovery happens once per backend (the registry's lists feed the router), and a reload
 * that changes a backend's flows swaps its adapter while a call on the old one finishes there.
 * Through the real Flowise adapter against the local reproduction.
 */
import type { FlowBackendV1, RoutingDecision, UniversalQueryResult } from "@afw/contracts";
import { startFlowiseServer } from "@afw/backends/test/servers";
import { describe, expect, it } from "vitest";
import { defaultBackendFactory } from "./backend-factory.js";
import type { BackendConfig, GatewayConfigInput } from "./config-schema.js";
import { callTool, closeAfter, startTestGateway, testConfig } from "../test/helpers.js";

const CHAT = "f0000000-0000-4000-8000-0000000c4a70";
const DOCS = "f0000000-0000-4000-8000-0000000d0c50";

const track = closeAfter();

const backendConfig = (url: string, flows: readonly unknown[] = []) =>
  ({ id: "fw", kind: "flowise", baseURL: url, flows }) as NonNullable<GatewayConfigInput["backends"]>[number];

describe("flow discovery", () => {
  it("discovers each backend once: the router routes on the registry's list", async () => {
    const flowise = track(
      await startFlowiseServer({
        flows: [
          { id: CHAT, name: "Support chat", answer: "hello" },
          { id: DOCS, name: "Docs QA", answer: "from the docs" },
        ],
      }),
    );
    const started = track(await startTestGateway({ config: { backends: [backendConfig(flowise.url)], cache: { enabled: false } } }));
    await started.gateway.warmUp();
    const { client } = started;
    const decision = (await callTool<{ decision: RoutingDecision }>(client, "explain_routing", { question: "what do the docs say about refunds?" })).body.decision;
    expect(decision.candidates.map((c) => c.backendFlowId).sort()).toEqual([CHAT, DOCS].sort());
    const answer = await callTool<UniversalQueryResult>(client, "universal_query", { question: "hi there" });
    expect(answer.isError).toBe(false);
    const listed = await callTool<{ flows: unknown[] }>(client, "list_flows", {});
    expect(listed.body.flows).toHaveLength(2);
    // Health checks the key with a one-entry listing (`limit=1`); discovery lists once.
    expect(flowise.requests.filter((r) => r.route === "list" && r.query["limit"] !== "1")).toHaveLength(1);
  });
});

describe("gateway.reload of a backend whose flows changed", () => {
  it("swaps the adapter without a gap; a call running on the old adapter finishes before it is closed", async () => {
    const flowise = track(await startFlowiseServer({ flows: [{ id: CHAT, name: "Support chat", answer: "slow but complete" }] }));
    const events: string[] = [];
    let generation = 0;
    let oldClosed: () => void = () => {};
    const closedOld = new Promise<void>((resolve) => (oldClosed = resolve));
    // The real adapter, wrapped to record when its calls end and when it is closed.
    const backendFactory = async (config: BackendConfig): Promise<FlowBackendV1> => {
      const inner = await defaultBackendFactory(config);
      const own = ++generation;
      return {
        specificationVersion: "v1",
        id: inner.id,
        kind: inner.kind,
        discoverFlows: (signal) => inner.discoverFlows(signal),
        checkHealth: (signal) => inner.checkHealth(signal),
        execute: async (request, signal) => {
          const result = await inner.execute(request, signal);
          events.push(`answered:${own}`);
          return result;
        },
        close: async () => {
          events.push(`closed:${own}`);
          await inner.close?.();
          if (own === 1) oldClosed();
        },
      };
    };
    const flows = [{ id: CHAT, intents: ["conversation" as const], generalPurpose: true }];
    const { gateway, client } = track(await startTestGateway({ backendFactory, config: { backends: [backendConfig(flowise.url, flows)], cache: { enabled: false } } }));
    await gateway.warmUp();

    flowise.setFaults([{ route: "run", delayMs: 300, times: 1 }]);
    const running = flowise.waitForRequest((r) => r.route === "run");
    const inFlight = callTool<UniversalQueryResult>(client, "universal_query", { question: "a slow one" });
    await running;
    const nextFlows = [...flows, { id: DOCS, name: "Docs QA", intents: ["rag-retrieval" as const] }];
    const report = await gateway.reload(testConfig({ backends: [backendConfig(flowise.url, nextFlows)], cache: { enabled: false } }));
    expect(report.backends).toEqual(["fw"]);
    // Never missing: right after the reload the backend serves the new flow list.
    expect(gateway.registry.get("fw")).toBeDefined();
    expect((await gateway.registry.flows()).map((f) => f.backendFlowId).sort()).toEqual([CHAT, DOCS].sort());

    const reply = await inFlight;
    expect(reply.isError).toBe(false);
    expect(reply.body.result).toBe("slow but complete");
    await closedOld;
    expect(events.indexOf("answered:1")).toBeGreaterThanOrEqual(0);
    expect(events.indexOf("answered:1")).toBeLessThan(events.indexOf("closed:1"));

    // New calls go to the new adapter.
    const after = await callTool<UniversalQueryResult>(client, "universal_query", { question: "and now?" });
    expect(after.isError).toBe(false);
    expect(events).toContain("answered:2");
    expect(events).not.toContain("closed:2");
  });
});
