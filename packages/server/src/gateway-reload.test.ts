import { AfwError, type RoutingDecision, type UniversalQueryResult } from "@afw/contracts";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { callTool, startTestGateway, testConfig } from "../test/helpers.js";
import type { GatewayConfigInput } from "./config-schema.js";

type Started = Awaited<ReturnType<typeof startTestGateway>>;
let current: Started | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

const flows = [
  { id: "chat", intents: ["conversation" as const], generalPurpose: true },
  { id: "etl", intents: ["data-processing" as const] },
];
const QUESTION = "hey, can you zorbify this for me?";

async function start(config: GatewayConfigInput = {}) {
  current = await startTestGateway({ backends: [createFakeBackend({ id: "fw", flows })], config });
  return current;
}
const explain = async (client: Started["client"], question = QUESTION) =>
  (await callTool<{ decision: RoutingDecision }>(client, "explain_routing", { question })).body.decision;
const query = async (client: Started["client"], args: Record<string, unknown>) => (await callTool<UniversalQueryResult>(client, "universal_query", args)).body._mcp_metadata;

describe("gateway.reload", () => {
  it("applies new intent patterns (e.g. proposed by pattern_analysis) without a restart", async () => {
    const { gateway, client } = await start();
    expect((await explain(client)).intent).not.toBe("data-processing");
    // pattern_analysis proposes keywords for an intent; the operator adds them as pattern rules.
    const intentPatterns = { "data-processing": { keywords: { zorbify: 8 } } };
    const report = await gateway.reload(testConfig({ routing: { intentPatterns } }));
    expect(report).toEqual({ intentPatterns: true, experiments: false, backends: [], invalidatedFlows: [], restartRequired: [] });
    expect(gateway.config.routing.intentPatterns).toEqual({ "data-processing": expect.objectContaining({ keywords: { zorbify: 8 } }) });
    const decision = await explain(client);
    expect(decision.intent).toBe("data-processing");
    expect(decision.chosen?.flowId).toBe("fw:etl");
    // Reloading the same configuration changes nothing.
    expect(await gateway.reload(testConfig({ routing: { intentPatterns } }))).toMatchObject({ intentPatterns: false, restartRequired: [] });
  });

  it("replaces the A/B experiments: the arm shows in _mcp_metadata and the decision", async () => {
    const { gateway, client } = await start();
    expect((await query(client, { question: "hello there", intent: "conversation" })).routing_experiment).toBeUndefined();
    const experiments = [{ id: "everyone", intent: "conversation" as const, share: 1, variant: { label: "all-in", weights: { capability: 0.5 } } }];
    const report = await gateway.reload(testConfig({ analytics: { experiments } }));
    expect(report).toMatchObject({ experiments: true, intentPatterns: false, restartRequired: [] });
    expect(gateway.learning.ab?.experiments.map((e) => e.id)).toEqual(["everyone"]);
    const meta = await query(client, { question: "hello again", intent: "conversation", session_id: "s-1" });
    expect(meta.routing_experiment).toEqual({ experimentId: "everyone", arm: "variant", label: "all-in" });
    const decision = await explain(client, "hello once more");
    expect(decision.weights.capability).toBe(0.5);
    expect(decision.experiment).toMatchObject({ experimentId: "everyone", arm: "variant" });
    const recorded = await gateway.auditLog.query({ types: ["ab-assigned"] });
    expect(recorded.length).toBeGreaterThanOrEqual(2);
    await gateway.reload(testConfig({ analytics: { experiments: [] } }));
    expect(gateway.learning.ab).toBeUndefined();
    expect((await query(client, { question: "and now?", intent: "conversation" })).routing_experiment).toBeUndefined();
  });

  it("lists what needs a restart and applies none of it", async () => {
    const { gateway } = await start({ backends: [{ id: "fw", kind: "flowise", baseURL: "http://127.0.0.1:9", flows: [] }] });
    const report = await gateway.reload(
      testConfig({
        http: { port: 9999 },
        routing: { retries: 2 },
        analytics: { learning: { enabled: false } },
        backends: [
          { id: "fw", kind: "flowise", baseURL: "http://127.0.0.1:9", flows: [{ id: "etl", intents: ["data-processing"] }] },
          { id: "other", kind: "langflow", baseURL: "http://127.0.0.1:10" },
        ],
      }),
    );
    expect(report.intentPatterns).toBe(false);
    expect(report.backends).toEqual([]);
    expect(report.restartRequired).toEqual(["routing", "analytics.learning", "backends.fw.flows (not built from the configuration)", "backends.other (added)", "http"]);
    expect(gateway.config.http.port).not.toBe(9999);
    expect(gateway.config.routing.retries).toBe(1);
    expect(gateway.config.backends[0]!.flows).toEqual([]);
  });

  it("rejects an invalid configuration with CONFIG_INVALID and applies nothing", async () => {
    const { gateway } = await start();
    const error = await gateway.reload({ routing: { intentPatterns: { "data-processing": ["(unclosed"] } } } as GatewayConfigInput).catch((e: unknown) => e);
    expect(AfwError.isInstance(error)).toBe(true);
    expect((error as AfwError).code).toBe("CONFIG_INVALID");
    expect(gateway.config.routing.intentPatterns).toEqual({});
    const duplicate = await gateway
      .reload(testConfig({ analytics: { experiments: [{ id: "x", share: 0.5, variant: {} }, { id: "x", share: 0.1, variant: {} }] } }))
      .catch((e: unknown) => e);
    expect((duplicate as AfwError).code).toBe("CONFIG_INVALID");
    expect(gateway.learning.ab).toBeUndefined();
  });
});

describe("learning settings", () => {
  it("creates a learned prior by default and none when learning is disabled", async () => {
    const enabled = await start();
    expect(enabled.gateway.learning.prior?.maxAdjustment).toBe(0.15);
    await enabled.close();
    current = undefined;
    const disabled = await start({ analytics: { learning: { enabled: false } } });
    expect(disabled.gateway.learning.prior).toBeUndefined();
    const decision = await explain(disabled.client);
    expect(decision.candidates.every((c) => c.adjustment === undefined)).toBe(true);
  });
});
