import type { UniversalQueryResult } from "@afw/contracts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { callTool, testConfig } from "../test/helpers.js";
import type { GatewayConfigInput } from "./config-schema.js";
import { createGatewayServer } from "./gateway-server.js";
import { startHttpTransport } from "./http-transport.js";
import { elicitationTier } from "./route-elicitation.js";

const QUESTION = "Why does this TypeError stack trace appear in my function?";
/** Every classified question (confidence < 1) falls in the confirm tier; `clarify` puts it in the clarify tier. */
const CONFIRM = { direct: 1, confirm: 0, clarify: 0 };
const CLARIFY = { direct: 1, confirm: 1, clarify: 0 };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function gatewayWith(elicitation: NonNullable<GatewayConfigInput["routing"]>["elicitation"]) {
  const backends = [
    createFakeBackend({ id: "flowise", kind: "flowise", flows: [{ id: "chat", name: "Chat", intents: ["conversation"], generalPurpose: true }, { id: "docs", name: "Docs QA", intents: ["rag-retrieval"] }] }),
    createFakeBackend({ id: "langflow", kind: "langflow", flows: [{ id: "code", name: "Code doctor", intents: ["technical-analysis"] }] }),
  ];
  const gateway = await createGatewayServer({ backends, config: testConfig({ routing: { elicitation } }) });
  cleanups.push(() => gateway.close());
  return { gateway };
}

type Answer = (request: ElicitRequest) => Promise<ElicitResult> | ElicitResult;

/** An SDK client declaring `elicitation: {}` (or nothing) that answers with `answer`. */
function clientWith(answer: Answer | undefined, asked: ElicitRequest[]): Client {
  const client = new Client({ name: "elicit-test", version: "1.0.0" }, answer ? { capabilities: { elicitation: {} } } : {});
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request);
      return answer(request);
    });
  }
  return client;
}

async function inMemory(elicitation: Parameters<typeof gatewayWith>[0], answer: Answer | undefined) {
  const { gateway } = await gatewayWith(elicitation);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const server = await gateway.connect(serverTransport);
  const asked: ElicitRequest[] = [];
  const client = clientWith(answer, asked);
  await client.connect(clientTransport);
  cleanups.push(async () => {
    await client.close();
    await server.close();
  });
  return { gateway, client, asked };
}

async function overHttp(elicitation: Parameters<typeof gatewayWith>[0], answer: Answer | undefined, stateless: boolean) {
  const { gateway } = await gatewayWith(elicitation);
  const http = await startHttpTransport(gateway, { port: 0, stateless });
  cleanups.push(() => http.close());
  const asked: ElicitRequest[] = [];
  const client = clientWith(answer, asked);
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  cleanups.push(() => client.close());
  return { gateway, client, asked };
}

const query = async (client: Client, args: Record<string, unknown> = {}) => {
  const { isError, body } = await callTool<UniversalQueryResult>(client, "universal_query", { question: QUESTION, ...args });
  expect(isError, JSON.stringify(body)).toBe(false);
  return body;
};

const elicitedEvents = (gateway: Awaited<ReturnType<typeof gatewayWith>>["gateway"], traceId: string) =>
  (gateway.traces?.byTraceId(traceId) ?? []).filter((event) => event.type === "route-elicited");

describe("elicitationTier", () => {
  it.each([
    [0.95, "direct"],
    [0.9, "direct"],
    [0.75, "confirm"],
    [0.6, "clarify"],
    [0.3, "default"],
  ] as const)("%s -> %s with the AIRIS defaults", (confidence, tier) => {
    expect(elicitationTier(confidence, { direct: 0.9, confirm: 0.7, clarify: 0.5 })).toBe(tier);
  });
});

describe.each([
  ["in-memory", (e: Parameters<typeof gatewayWith>[0], a: Answer | undefined) => inMemory(e, a)],
  ["stateful HTTP", (e: Parameters<typeof gatewayWith>[0], a: Answer | undefined) => overHttp(e, a, false)],
] as const)("asking when unsure over %s", (_name, start) => {
  it("confirm: offers the flows with the top choice first and routes by an accepted answer", async () => {
    const { client, asked, gateway } = await start(CONFIRM, () => ({ action: "accept", content: { flow: "flowise:docs" } }));
    const body = await query(client);
    expect(asked).toHaveLength(1);
    const field = ((asked[0]!.params as { requestedSchema: unknown }).requestedSchema as { properties: { flow: { oneOf: { const: string }[]; default: string } } }).properties.flow;
    expect(field.oneOf[0]!.const).toBe("langflow:code");
    expect(field.default).toBe("langflow:code");
    expect(field.oneOf.map((o) => o.const)).toContain("flowise:docs");
    expect(body.result).toBe(`flowise/docs: ${QUESTION}`);
    expect(body._mcp_metadata.elicitation).toEqual({ asked: true, tier: "confirm", action: "accept", chosen_flow_id: "flowise:docs" });
    expect(body._mcp_metadata.routing_reason).toMatch(/the client chose Docs QA on flowise/);
    expect(elicitedEvents(gateway, body._mcp_metadata.trace_id)).toMatchObject([{ tier: "confirm", action: "accept", suggestedFlowId: "langflow:code", chosenFlowId: "flowise:docs" }]);
  });

  it.each(["decline", "cancel"] as const)("clarify: %s takes the default route", async (action) => {
    const { client, asked } = await start(CLARIFY, () => ({ action }));
    const body = await query(client);
    expect(asked[0]!.params.message).toMatch(/Which flow fits/);
    expect(body.result).toBe(`langflow/code: ${QUESTION}`);
    expect(body._mcp_metadata.elicitation).toEqual({ asked: true, tier: "clarify", action });
  });

  it("a client without the capability is not asked and gets today's routing", async () => {
    const { client } = await start(CONFIRM, undefined);
    const body = await query(client);
    expect(body.result).toBe(`langflow/code: ${QUESTION}`);
    expect(body._mcp_metadata.elicitation).toEqual({ asked: false, tier: "confirm", reason: "no-capability" });
  });

  it("a client that never answers gets the default route within the query's deadline", async () => {
    const { client, asked } = await start(CONFIRM, () => new Promise<ElicitResult>(() => undefined));
    const body = await query(client, { timeout: 2 });
    expect(asked).toHaveLength(1);
    expect(body.result).toBe(`langflow/code: ${QUESTION}`);
    expect(body._mcp_metadata.elicitation).toEqual({ asked: true, tier: "confirm", action: "timeout" });
  });

  it("an explicit flow or backend is never asked about", async () => {
    const { client, asked } = await start(CONFIRM, () => ({ action: "accept", content: { flow: "flowise:docs" } }));
    const body = await query(client, { flow_id: "langflow:code" });
    const other = await query(client, { backend: "langflow" });
    expect(asked).toHaveLength(0);
    expect(body._mcp_metadata.elicitation).toBeUndefined();
    expect(other._mcp_metadata.elicitation).toBeUndefined();
  });
});

describe("asking when unsure: edges", () => {
  it("stateless HTTP says in the metadata that it could not ask", async () => {
    const { client, asked } = await overHttp(CONFIRM, () => ({ action: "accept", content: { flow: "flowise:docs" } }), true);
    const body = await query(client);
    expect(asked).toHaveLength(0);
    expect(body.result).toBe(`langflow/code: ${QUESTION}`);
    expect(body._mcp_metadata.elicitation).toEqual({ asked: false, tier: "confirm", reason: "stateless" });
  });

  it("the direct tier and a disabled option never ask", async () => {
    for (const elicitation of [{ direct: 0, confirm: 0, clarify: 0 }, { ...CONFIRM, enabled: false }]) {
      const { client, asked } = await inMemory(elicitation, () => ({ action: "accept", content: { flow: "flowise:docs" } }));
      const body = await query(client);
      expect(asked).toHaveLength(0);
      expect(body._mcp_metadata.elicitation).toBeUndefined();
    }
  });

  it("a confirmed top flow answers alone (no hedge against another flow)", async () => {
    const { client } = await inMemory(CONFIRM, () => ({ action: "accept", content: { flow: "langflow:code" } }));
    const body = await query(client);
    expect(body.result).toBe(`langflow/code: ${QUESTION}`);
    expect(body._mcp_metadata).toMatchObject({ elicitation: { asked: true, action: "accept", chosen_flow_id: "langflow:code" }, fallback_used: false });
    expect(body._mcp_metadata.routing_reason).toMatch(/the client chose Code doctor on langflow/);
  });

  it("an answer outside the choices is an error and takes the default route", async () => {
    const { client } = await inMemory(CONFIRM, () => ({ action: "accept", content: { flow: "flowise:nope" } }));
    const body = await query(client);
    expect(body.result).toBe(`langflow/code: ${QUESTION}`);
    expect(body._mcp_metadata.elicitation).toMatchObject({ asked: true, action: "error" });
  });

  it("thresholds out of order are a configuration error", async () => {
    await expect(createGatewayServer({ config: testConfig({ routing: { elicitation: { direct: 0.5, confirm: 0.7 } } }) })).rejects.toMatchObject({ code: "CONFIG_INVALID" });
  });
});
