import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BackendError, type FlowStreamChunk } from "@afw/contracts";
import { createFlowiseBackend } from "./flowise-backend.js";
import { startFlowiseServer } from "./testing/flowise-server.js";
import type { MockPlatformServer } from "./testing/mock-server.js";
import { collect } from "./testing/conformance.js";

const KEY = "afw-test-secret-flowise-admin-key-1234";
const FLOW_KEY = "afw-test-secret-flow-bound-key-5678";
const ids = {
  chat: "11111111-1111-4111-8111-111111111111",
  secured: "22222222-2222-4222-8222-222222222222",
  agent: "33333333-3333-4333-8333-333333333333",
  json: "44444444-4444-4444-8444-444444444444",
  deployed: "55555555-5555-4555-8555-555555555555",
};

describe("Flowise adapter specifics", () => {
  let server: MockPlatformServer;
  const backend = (overrides: Record<string, unknown> = {}) => createFlowiseBackend({ id: "fw", baseURL: `${server.url}/`, apiKey: KEY, ...overrides });

  beforeAll(async () => {
    server = await startFlowiseServer({
      apiKey: KEY,
      heartbeatEveryTokens: 1,
      flows: [
        { id: ids.chat, name: "Chat", nodes: [{ id: "chatOpenAI_0", params: { temperature: 0.9, maxTokens: 100 } }, { id: "chatOpenAI_1", params: { temperature: 0.9 } }] },
        { id: ids.secured, name: "Secured", apiKey: FLOW_KEY },
        { id: ids.agent, name: "Research Agent", type: "AGENTFLOW", replyShape: "agentflow", usage: { promptTokens: 3, completionTokens: 4 }, answer: "Agent says hi" },
        { id: ids.json, name: "Extractor", replyShape: "json", answer: "structured" },
        { id: ids.deployed, name: "Deployed", deployed: true, tags: ["Support", "FAQ"] },
      ],
    });
  });
  afterEach(() => server.reset());
  afterAll(() => server.close());

  it("sends question, streaming false, overrideConfig.sessionId, history roles and uploads", async () => {
    await backend().execute({
      flowId: ids.chat,
      question: "hi",
      sessionId: "s-1",
      history: [
        { role: "system", content: "ignored" },
        { role: "user", content: "u1" },
        { role: "assistant", content: "a1" },
      ],
      uploads: [{ type: "file", name: "a.txt", mime: "text/plain", data: "aGk=" }],
    });
    const request = server.requests.find((candidate) => candidate.route === "run")!;
    expect(request.headers["authorization"]).toBe(`Bearer ${KEY}`);
    expect(request.body).toMatchObject({
      question: "hi",
      streaming: false,
      overrideConfig: { sessionId: "s-1" },
      history: [
        { role: "userMessage", content: "u1" },
        { role: "apiMessage", content: "a1" },
      ],
      uploads: [{ type: "file", name: "a.txt", mime: "text/plain", data: "data:text/plain;base64,aGk=" }],
    });
  });

  it("maps parameters to every node by default and to one node when configured", async () => {
    await backend().execute({ flowId: ids.chat, question: "q", parameters: { temperature: 0.1, maxTokens: 5 } });
    expect(server.runs.at(-1)!.nodeParams).toEqual({ chatOpenAI_0: { temperature: 0.1, maxTokens: 5 }, chatOpenAI_1: { temperature: 0.1 } });
    await backend({ flows: { [ids.chat]: { parameterMapping: { temperature: { node: "chatOpenAI_1", param: "temperature" } } } } }).execute({ flowId: ids.chat, question: "q", parameters: { temperature: 0.3 } });
    const request = server.requests.filter((candidate) => candidate.route === "run").at(-1)!;
    expect((request.body as { overrideConfig: unknown }).overrideConfig).toEqual({ temperature: { chatOpenAI_1: "0.3" } }); // a string: Flowise skips falsy numbers (0)
    expect(server.runs.at(-1)!.nodeParams).toEqual({ chatOpenAI_0: { temperature: 0.9, maxTokens: 100 }, chatOpenAI_1: { temperature: 0.3 } });
  });

  it("maps the 500 'Unauthorized' of a flow-bound key to BACKEND_AUTH_FAILED, and passes with the right key", async () => {
    const error = await backend().execute({ flowId: ids.secured, question: "q" }).catch((caught: unknown) => caught);
    expect(BackendError.isInstance(error) && error.code).toBe("BACKEND_AUTH_FAILED");
    expect((error as BackendError).statusCode).toBe(500);
    expect((error as BackendError).isRetryable).toBe(false);
    expect((await backend({ apiKey: FLOW_KEY }).execute({ flowId: ids.secured, question: "q" })).text).toBe("Echo: q");
  });

  it("maps the same failure inside a stream (HTTP 200 + error event) to BACKEND_AUTH_FAILED", async () => {
    const error = await collect(backend().stream({ flowId: ids.secured, question: "q" })).catch((caught: unknown) => caught);
    expect((error as BackendError).code).toBe("BACKEND_AUTH_FAILED");
  });

  it("extracts answers from agentflow and structured-output replies", async () => {
    const agent = await backend().execute({ flowId: ids.agent, question: "q" });
    expect(agent.text).toBe("Agent says hi");
    expect(agent.usage).toEqual({ promptTokens: 3, completionTokens: 4, totalTokens: 7 });
    expect((await backend().execute({ flowId: ids.json, question: "q" })).text).toBe("structured");
  });

  it("streams an agentflow, passing its events through and reporting usage", async () => {
    const chunks = await collect(backend().stream({ flowId: ids.agent, question: "q" }));
    const names = chunks.flatMap((chunk) => (chunk.type === "event" ? [chunk.name] : []));
    expect(names).toEqual(expect.arrayContaining(["agentFlowEvent", "agentFlowExecutedData", "usageMetadata", "metadata"]));
    const end = chunks.at(-1);
    expect(end?.type === "end" && end.result.text).toBe("Agent says hi");
    expect(end?.type === "end" && end.result.usage).toEqual({ promptTokens: 3, completionTokens: 4, totalTokens: 7 });
  });

  it("ignores heartbeats and the start event's duplicate token", async () => {
    const chunks = await collect(backend().stream({ flowId: ids.chat, question: "one two three" }));
    expect(chunks.filter((chunk) => chunk.type === "token").map((chunk) => (chunk as { text: string }).text)).toEqual(["Echo: ", "one ", "two ", "three"]);
    expect(chunks.filter((chunk) => chunk.type === "start")).toHaveLength(1);
  });

  it("caches the chatflows-streaming answer per flow", async () => {
    const flowise = backend();
    await collect(flowise.stream({ flowId: ids.chat, question: "a" }));
    await collect(flowise.stream({ flowId: ids.chat, question: "b" }));
    expect(server.requests.filter((request) => request.route === "streaming-check")).toHaveLength(1);
    expect(await flowise.isStreaming(ids.chat)).toBe(true);
  });

  it("falls back to the JSON reply when the server answers JSON to a streaming request", async () => {
    const flowise = backend();
    server.setFaults([{ route: "streaming-check", status: 503 }]);
    server.removeFlow(ids.json);
    server.addFlow({ id: ids.json, name: "Extractor", replyShape: "json", answer: "structured", streaming: false });
    const chunks = await collect(flowise.stream({ flowId: ids.json, question: "q" }));
    expect(chunks.map((chunk) => chunk.type)).toEqual(["end"]);
    expect(chunks[0]?.type === "end" && chunks[0].result.text).toBe("structured");
    const run = server.requests.find((request) => request.route === "run")!;
    expect((run.body as { streaming: boolean }).streaming).toBe(true);
  });

  it("maps categories to tags, keeps deployed metadata, and lists undeployed flows too", async () => {
    const all = await backend().discoverFlows();
    const deployed = all.find((flow) => flow.backendFlowId === ids.deployed)!;
    expect(deployed.tags).toEqual(["Support", "FAQ"]);
    expect(deployed.metadata).toMatchObject({ deployed: true, requiresApiKey: false });
    expect(all.find((flow) => flow.backendFlowId === ids.secured)!.metadata).toMatchObject({ requiresApiKey: true });
    expect(all.find((flow) => flow.backendFlowId === ids.agent)!.capabilities).toContain("agent");
    expect(all.map((flow) => flow.backendFlowId)).toContain(ids.secured);
  });

  it("reads the plain array of an older Flowise that ignores page/limit", async () => {
    const old = await startFlowiseServer({ apiKey: KEY, paginate: false, pageSize: 1, flows: [{ id: ids.chat, name: "A" }, { id: ids.json, name: "B" }] });
    try {
      const flows = await createFlowiseBackend({ id: "old", baseURL: old.url, apiKey: KEY }).discoverFlows();
      expect(flows).toHaveLength(2);
      expect(old.requests.filter((request) => request.route === "list")).toHaveLength(1);
    } finally {
      await old.close();
    }
  });

  it("falls back to FLOWISE_API_KEY from the environment", async () => {
    const previous = process.env["FLOWISE_API_KEY"];
    process.env["FLOWISE_API_KEY"] = KEY;
    try {
      await createFlowiseBackend({ id: "env", baseURL: server.url }).discoverFlows();
      expect(server.authKeyOf(server.requests.at(-1)!)).toBe(KEY);
    } finally {
      if (previous === undefined) delete process.env["FLOWISE_API_KEY"];
      else process.env["FLOWISE_API_KEY"] = previous;
    }
  });

  it("rejects invalid settings with CONFIG_INVALID", () => {
    expect(() => createFlowiseBackend({ id: "bad id!", baseURL: "http://x" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => createFlowiseBackend({ id: "ok", baseURL: "ftp://x" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    // A typo in config fails loudly instead of being ignored.
    expect(() => createFlowiseBackend({ id: "ok", baseURL: "http://x", timeout: 5 } as never)).toThrow(/timeout/);
    expect(() => createFlowiseBackend({ id: "ok", baseURL: "http://x", timeouts: { requestTimeout: 5 } } as never)).toThrow(/requestTimeout/);
  });
});
