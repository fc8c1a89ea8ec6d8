/**
 * Issue 20 M1, M2 and the cache, through the whole gateway with the real Flowise adapter against
 * the local Flowise reproduction (which applies overrides and memory as Flowise 3.1.2 does).
 */
import type { UniversalQueryResult } from "@afw/contracts";
import { createFlowiseBackend } from "@afw/backends";
import { startFlowiseServer, type MockPlatformServer } from "@afw/backends/test/servers";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { callTool, startTestGateway } from "../test/helpers.js";

const MEMORY = "aaaaaaaa-1111-4111-8111-aaaaaaaaaaaa";
const STATELESS = "bbbbbbbb-2222-4222-8222-bbbbbbbbbbbb";
const LOCKED = "cccccccc-3333-4333-8333-cccccccccccc";
const llm = () => [{ id: "chatOpenAI_0", label: "ChatOpenAI", name: "chatOpenAI", category: "Chat Models", params: { temperature: 0.9, maxTokens: 256 } }];

let server: MockPlatformServer;
let current: Awaited<ReturnType<typeof startTestGateway>> | undefined;

beforeAll(async () => {
  server = await startFlowiseServer({
    flows: [
      { id: MEMORY, name: "Conversation with memory", nodes: llm() },
      { id: STATELESS, name: "Stateless chain", nodes: llm(), memory: false },
      { id: LOCKED, name: "Locked chain", nodes: llm(), overridable: false },
    ],
  });
});
afterEach(async () => {
  await current?.close();
  current = undefined;
});
afterAll(() => server.close());

async function start() {
  current = await startTestGateway({ backends: [createFlowiseBackend({ id: "fw", baseURL: server.url })] });
  return current.client;
}

type Answer = UniversalQueryResult["_mcp_metadata"] & Record<string, unknown>;
const seenBy = () => server.runs.at(-1)!.history.map((message) => message.content);

describe("Flowise sessions through the gateway", () => {
  it("three turns of one session: the model sees each earlier turn exactly once (platform memory, no history)", async () => {
    const client = await start();
    const answers: string[] = [];
    for (const n of [1, 2, 3]) {
      const { body, isError } = await callTool<UniversalQueryResult>(client, "universal_query", { question: `turn ${n} of the talk`, flow_id: `fw:${MEMORY}`, session_id: "talk-1" });
      expect(isError).toBe(false);
      expect(body._mcp_metadata.session_context).toEqual({ history_messages: 0, platform_memory: true });
      const previous = answers.flatMap((answer, index) => [`turn ${index + 1} of the talk`, answer]);
      expect(seenBy()).toEqual(previous);
      answers.push(body.result);
    }
  });

  it("a flow without memory gets the session's turns as history, once", async () => {
    const client = await start();
    await callTool(client, "universal_query", { question: "stateless one", flow_id: `fw:${STATELESS}`, session_id: "talk-2" });
    const { body } = await callTool<UniversalQueryResult>(client, "universal_query", { question: "stateless two", flow_id: `fw:${STATELESS}`, session_id: "talk-2" });
    expect(body._mcp_metadata.session_context).toEqual({ history_messages: 2, platform_memory: false });
    expect(seenBy()).toEqual(["stateless one", expect.stringContaining("stateless one")]);
  });

  it("reports which parameters applied and which were ignored, and why", async () => {
    const client = await start();
    const applied = await callTool<{ _mcp_metadata: Answer }>(client, "universal_query", { question: "be exact", flow_id: `fw:${MEMORY}`, parameters: { temperature: 0, max_tokens: 64 } });
    expect(applied.body._mcp_metadata.parameters_applied).toEqual(["temperature", "max_tokens"]);
    expect(applied.body._mcp_metadata.parameters_ignored).toBeUndefined();
    expect(server.runs.at(-1)!.nodeParams["chatOpenAI_0"]).toEqual({ temperature: 0, maxTokens: 64 });

    const ignored = await callTool<{ _mcp_metadata: Answer }>(client, "universal_query", { question: "be exact", flow_id: `fw:${LOCKED}`, parameters: { temperature: 0.1 } });
    expect(ignored.body._mcp_metadata.parameters_applied).toEqual([]);
    expect(ignored.body._mcp_metadata.parameters_ignored).toEqual([{ parameter: "temperature", reason: expect.stringContaining("Override Config") }]);
    expect(server.runs.at(-1)!.nodeParams["chatOpenAI_0"]).toEqual({ temperature: 0.9, maxTokens: 256 });
  });

  it("caches per parameters, and never answers a session turn from the cache when the flow's memory would miss it", async () => {
    const client = await start();
    const ask = async (args: Record<string, unknown>) =>
      (await callTool<{ result: string; _mcp_metadata: Answer }>(client, "universal_query", { question: "tell me a fact", ...args })).body._mcp_metadata;
    const stateless = { flow_id: `fw:${STATELESS}` };
    expect((await ask({ ...stateless, parameters: { temperature: 0.5 } })).cache_hit).toBe(false);
    expect((await ask({ ...stateless, parameters: { temperature: 0.5 } })).cache_hit).toBe(true);
    expect((await ask({ ...stateless, parameters: { temperature: 0.7 } })).cache_hit).toBe(false);
    expect((await ask({ ...stateless, parameters: { temperature: 0.5, max_tokens: 10 } })).cache_hit).toBe(false);

    const runs = server.runs.length;
    expect((await ask({ flow_id: `fw:${MEMORY}`, session_id: "talk-3" })).cache_hit).toBe(false);
    expect((await ask({ flow_id: `fw:${MEMORY}`, session_id: "talk-3" })).cache_hit).toBe(false);
    expect(server.runs.length).toBe(runs + 2);
    expect(seenBy()).toEqual(["tell me a fact", expect.any(String)]);
    const events = current!.gateway.traces!.byTraceId((await ask({ flow_id: `fw:${MEMORY}`, session_id: "talk-3" })).trace_id).map((event) => event.type);
    expect(events).toContain("cache-miss");
    expect(events).not.toContain("cache-write"); // a session turn of a flow with memory is never cached

    expect((await ask({ ...stateless, session_id: "talk-4" })).cache_hit).toBe(false);
    const hit = await ask({ ...stateless, session_id: "talk-4" });
    expect(hit.cache_hit).toBe(true);
    expect(hit.session_context).toBeUndefined(); // nothing was sent to the platform
  });
});
