import { parseCsv } from "@afw/analytics/test";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { callTool, startTestGateway } from "../test/helpers.js";

type Started = Awaited<ReturnType<typeof startTestGateway>>;
let current: Started | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

const SECRET = "sessionsecret-9f3b1c7e2d";

async function startWithTraffic() {
  const backend = createFakeBackend({ id: "fw", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }, { id: "rag", intents: ["rag-retrieval"] }] });
  current = await startTestGateway({ backends: [backend], secrets: [SECRET] });
  const { client } = current;
  const asked = [
    await callTool<{ _mcp_metadata: { trace_id: string; cache_hit: unknown; flow_used?: string } }>(client, "universal_query", { question: "hello, how are you today?", flow_id: "fw:chat", session_id: "s-1" }),
    await callTool<{ _mcp_metadata: { trace_id: string; cache_hit: unknown } }>(client, "universal_query", { question: "what is the weather like?", flow_id: "fw:chat", session_id: "s-1" }),
    await callTool<{ _mcp_metadata: { trace_id: string; cache_hit: unknown } }>(client, "universal_query", { question: "what is the weather like?", flow_id: "fw:chat" }),
    await callTool<{ _mcp_metadata: { trace_id: string; cache_hit: unknown } }>(client, "universal_query", { question: "what is the weather like?", flow_id: "fw:chat" }),
  ];
  for (const result of asked) expect(result.isError).toBe(false);
  return { ...current, backend, asked };
}

describe("analytics tools", () => {
  it("are listed with their input schemas after the gateway's tools", async () => {
    const backend = createFakeBackend({ id: "fw", flows: [{ id: "chat", generalPurpose: true }] });
    current = await startTestGateway({ backends: [backend] });
    const { tools } = await current.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names.slice(-6)).toEqual(["analytics_dashboard", "analyze_flow", "pattern_analysis", "export_metrics", "sync_flow_registry", "record_feedback"]);
    expect(tools.find((t) => t.name === "analyze_flow")!.inputSchema.required).toEqual(["flow_id"]);
    expect(tools.find((t) => t.name === "record_feedback")!.inputSchema.required).toEqual(["session_id", "rating"]);
    expect(tools.find((t) => t.name === "analytics_dashboard")!.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((t) => t.name === "sync_flow_registry")!.annotations?.destructiveHint).toBe(true);
  });

  it("records every query in the audit log, redacted like the ring buffer", async () => {
    const { gateway, client } = await startWithTraffic();
    const secretQuery = await callTool<{ _mcp_metadata: { trace_id: string } }>(client, "universal_query", { question: "one more", flow_id: "fw:chat", session_id: SECRET });
    expect(secretQuery.isError).toBe(false);
    const traceId = secretQuery.body._mcp_metadata.trace_id;
    const audited = await gateway.auditLog.trace(traceId);
    const ringed = gateway.traces!.byTraceId(traceId);
    expect(audited.map((e) => e.type)).toEqual(ringed.map((e) => e.type));
    expect(audited.map((e) => e.type)).toContain("query-answered");
    expect(JSON.stringify(audited)).not.toContain(SECRET);
    expect(audited.map((e) => e.sessionId)).toEqual(ringed.map((e) => e.sessionId));
    const received = await gateway.auditLog.query({ types: ["query-received"] });
    expect(received).toHaveLength(5);
  });

  it("analytics_dashboard and analyze_flow report the traffic", async () => {
    const { client, asked } = await startWithTraffic();
    expect(asked[2]!.body._mcp_metadata.cache_hit).toBe(false);
    expect(asked[3]!.body._mcp_metadata.cache_hit).not.toBe(false);
    const dashboard = await callTool<{
      totals: { queries: number; answered: number; failed: number; successRate: number; cacheHits: number };
      meta: { eventsRead: number };
    }>(client, "analytics_dashboard", { range: "1h" });
    expect(dashboard.isError).toBe(false);
    expect(dashboard.body.totals.queries).toBe(4);
    expect(dashboard.body.totals.answered).toBe(4);
    expect(dashboard.body.totals.failed).toBe(0);
    expect(dashboard.body.totals.successRate).toBe(1);
    expect(dashboard.body.totals.cacheHits).toBe(1);
    expect(dashboard.body.meta.eventsRead).toBeGreaterThan(3);

    const flow = await callTool<{ flowId: string; usage: { queries: number; answered: number; cacheHits: number; attempts: number; successRate: number } }>(client, "analyze_flow", {
      flow_id: "fw:chat",
    });
    expect(flow.isError).toBe(false);
    expect(flow.body.flowId).toBe("fw:chat");
    expect(flow.body.usage).toMatchObject({ queries: 4, answered: 3, cacheHits: 1, attempts: 3, successRate: 1 });
    const unused = await callTool<{ usage: { queries: number } }>(client, "analyze_flow", { flow_id: "fw:rag" });
    expect(unused.body.usage.queries).toBe(0);
    const invalid = await callTool(client, "analyze_flow", {});
    expect(invalid.isError).toBe(true);
    expect(invalid.body["code"]).toBe("INVALID_INPUT");
  });

  it("export_metrics answers CSV that parses into one row per flow", async () => {
    const { client } = await startWithTraffic();
    const exported = await callTool<{ contentType: string; body: string; rows: { flowId?: string; queries?: number }[] }>(client, "export_metrics", {
      format: "csv",
      group_by: "flow",
      range: "1h",
    });
    expect(exported.isError).toBe(false);
    expect(exported.body.contentType).toBe("text/csv");
    const table = parseCsv(exported.body.body);
    const header = table[0]!;
    const rows = table.slice(1).filter((row) => row.length > 1);
    expect(header).toContain("queries");
    const keyColumn = header.indexOf("group");
    expect(keyColumn).toBe(0);
    const chat = rows.find((row) => row[keyColumn] === "fw:chat");
    expect(chat).toBeDefined();
    expect(Number(chat![header.indexOf("queries")])).toBe(4);
    expect(Number(chat![header.indexOf("cache_hits")])).toBe(1);
  });

  it("record_feedback rates turn 1 of a session and answers NOT_FOUND for unknown sessions and turns", async () => {
    const { client, gateway, asked } = await startWithTraffic();
    const rated = await callTool<{ record: { traceId: string; flowId: string; score: number }; linked: boolean; stored: boolean }>(client, "record_feedback", {
      session_id: "s-1",
      turn: 1,
      rating: 5,
      comment: "spot on",
    });
    expect(rated.isError).toBe(false);
    expect(rated.body.stored).toBe(true);
    expect(rated.body.linked).toBe(true);
    expect(rated.body.record.traceId).toBe(asked[0]!.body._mcp_metadata.trace_id);
    expect(rated.body.record.flowId).toBe("fw:chat");
    expect(rated.body.record.score).toBe(1);
    const flow = await gateway.analytics.analyzeFlow({ flow_id: "fw:chat" });
    expect(flow.feedback.count).toBe(1);

    const unknown = await callTool(client, "record_feedback", { session_id: "nobody", turn: 1, rating: 1 });
    expect(unknown.isError).toBe(true);
    expect(unknown.body["code"]).toBe("NOT_FOUND");
    const noTurn = await callTool(client, "record_feedback", { session_id: "s-1", turn: 9, rating: 1 });
    expect(noTurn.isError).toBe(true);
    expect(noTurn.body["code"]).toBe("NOT_FOUND");
    const neither = await callTool(client, "record_feedback", { session_id: "s-1", rating: 1 });
    expect(neither.body["code"]).toBe("INVALID_INPUT");
  });

  it("sync_flow_registry proposes without changing anything by default, and an apply invalidates the changed flows' cache", async () => {
    const { client, backend } = await startWithTraffic();
    const dry = await callTool<{ applied: boolean; changes: { action: string; flowId: string }[]; invalidateFlowIds: string[]; invalidated: number }>(
      client,
      "sync_flow_registry",
    );
    expect(dry.isError).toBe(false);
    expect(dry.body.applied).toBe(false);
    expect(dry.body.changes.map((c) => `${c.action} ${c.flowId}`).sort()).toEqual(["add fw:chat", "add fw:rag"]);
    expect(dry.body.invalidateFlowIds).toEqual([]);
    expect(dry.body.invalidated).toBe(0);
    const callsBefore = backend.calls.length;
    const cached = await callTool<{ _mcp_metadata: { cache_hit: unknown } }>(client, "universal_query", { question: "what is the weather like?", flow_id: "fw:chat" });
    expect(cached.body._mcp_metadata.cache_hit).not.toBe(false);
    expect(backend.calls.length).toBe(callsBefore);

    const applied = await callTool<{ applied: boolean; invalidateFlowIds: string[]; invalidated: number; registry: { backendId: string; flows: { id: string }[] }[] }>(
      client,
      "sync_flow_registry",
      { apply: true, flow_ids: ["fw:chat"] },
    );
    expect(applied.body.applied).toBe(true);
    expect(applied.body.invalidateFlowIds).toEqual(["fw:chat"]);
    expect(applied.body.invalidated).toBe(1);
    expect(applied.body.registry.find((r) => r.backendId === "fw")!.flows.map((f) => f.id)).toEqual(["chat"]);
    const fresh = await callTool<{ _mcp_metadata: { cache_hit: unknown } }>(client, "universal_query", { question: "what is the weather like?", flow_id: "fw:chat" });
    expect(fresh.body._mcp_metadata.cache_hit).toBe(false);
    expect(backend.calls.length).toBe(callsBefore + 1);
  });

  it("pattern_analysis answers CONFIG_INVALID without an embedder and clusters questions with the gateway's embedder", async () => {
    const backend = createFakeBackend({ id: "fw", flows: [{ id: "chat", generalPurpose: true }] });
    current = await startTestGateway({ backends: [backend] });
    const missing = await callTool(current.client, "pattern_analysis", {});
    expect(missing.isError).toBe(true);
    expect(missing.body["code"]).toBe("CONFIG_INVALID");
    await current.close();

    current = await startTestGateway({ backends: [backend], config: { tools: { embedder: "hashing" } } });
    for (let i = 0; i < 3; i++) await callTool(current.client, "universal_query", { question: `how do I reset my password on device ${i}?`, flow_id: "fw:chat" });
    const report = await callTool<{ clusters: { size: number }[] }>(current.client, "pattern_analysis", { min_cluster_size: 2, similarity_threshold: 0.5 });
    expect(report.isError).toBe(false);
    expect(report.body.clusters[0]?.size).toBe(3);
  });
});
