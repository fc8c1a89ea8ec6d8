import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { BackendError, FlowStreamChunk } from "@afw/contracts";
import { createLangflowBackend } from "./langflow-backend.js";
import { startLangflowServer } from "./testing/langflow-server.js";
import type { MockPlatformServer } from "./testing/mock-server.js";
import { collect } from "./testing/conformance.js";

const KEY = "afw-test-secret-sk-langflow-test-key-0001";
const ids = {
  chat: "aaaaaaaa-0000-4000-8000-000000000001",
  component: "aaaaaaaa-0000-4000-8000-000000000002",
  messages: "aaaaaaaa-0000-4000-8000-000000000003",
  artifacts: "aaaaaaaa-0000-4000-8000-000000000004",
};

describe("Langflow adapter specifics", () => {
  let server: MockPlatformServer;
  const backend = (overrides: Record<string, unknown> = {}) => createLangflowBackend({ id: "lf", baseURL: server.url, apiKey: KEY, ...overrides });

  beforeAll(async () => {
    server = await startLangflowServer({
      apiKey: KEY,
      flows: [
        { id: ids.chat, name: "Chat", endpointName: "chat-bot", tags: ["assistant"], nodes: [{ id: "OpenAIModel-ab12", name: "OpenAIModel", params: { temperature: 0.7, max_tokens: 100, system_message: "" } }] },
        { id: ids.component, name: "My Component", isComponent: true },
        { id: ids.messages, name: "Messages only", replyShape: "messages", answer: "from messages" },
        { id: ids.artifacts, name: "Artifacts only", replyShape: "artifacts", answer: "from artifacts" },
      ],
    });
  });
  afterEach(() => server.reset());
  afterAll(() => server.close());

  it("sends input_value, chat types, session_id and tweaks with x-api-key", async () => {
    await backend({
      flows: { [ids.chat]: { parameterMapping: { temperature: { node: "OpenAIModel-ab12", param: "temperature" }, maxTokens: { node: "OpenAIModel-ab12", param: "max_tokens" }, history: { node: "OpenAIModel-ab12", param: "system_message" } } } },
    }).execute({ flowId: ids.chat, question: "hi", sessionId: "s-9", parameters: { temperature: 0.2, maxTokens: 7 }, history: [{ role: "user", content: "before" }] });
    const request = server.requests.find((candidate) => candidate.route === "run")!;
    expect(request.query).toEqual({ stream: "false" });
    expect(request.headers["x-api-key"]).toBe(KEY);
    expect(request.body).toEqual({
      input_value: "hi",
      input_type: "chat",
      output_type: "chat",
      session_id: "s-9",
      tweaks: { "OpenAIModel-ab12": { temperature: 0.2, max_tokens: 7, system_message: "User: before" } },
    });
    expect(server.runs.at(-1)!.nodeParams["OpenAIModel-ab12"]).toEqual({ temperature: 0.2, max_tokens: 7, system_message: "User: before" });
  });

  it("applies a node-less mapping as a tweak for every component with the parameter", async () => {
    const result = await backend({ defaultParameterMapping: { temperature: { param: "temperature" } } }).execute({ flowId: ids.chat, question: "q", parameters: { temperature: 1.1, maxTokens: 5 } });
    expect(server.runs.at(-1)!.nodeParams["OpenAIModel-ab12"]).toMatchObject({ temperature: 1.1 });
    // Sent without knowing whether a component took it; an unmapped parameter is not sent at all.
    expect(result.delivery?.parameters).toEqual({ applied: [], unverified: ["temperature"], ignored: [{ parameter: "maxTokens", reason: expect.stringContaining("parameterMapping") }] });
  });

  it("skips components, keeps endpoint names, reads the gzip listing", async () => {
    const flows = await backend().discoverFlows();
    expect(flows.map((flow) => flow.backendFlowId).sort()).toEqual([ids.artifacts, ids.chat, ids.messages].sort());
    expect(flows.find((flow) => flow.backendFlowId === ids.chat)!.metadata).toMatchObject({ endpointName: "chat-bot" });
    const list = server.requests.find((request) => request.route === "list")!;
    expect(list.query).toMatchObject({ remove_example_flows: "true", components_only: "false", get_all: "true" });
  });

  it("follows pages when the server pages the listing", async () => {
    const paged = await startLangflowServer({ apiKey: KEY, listMode: "paged", pageSize: 2, flows: Array.from({ length: 5 }, (_, index) => ({ id: `bbbbbbbb-0000-4000-8000-00000000000${index}`, name: `Flow ${index}` })) });
    try {
      const flows = await createLangflowBackend({ id: "paged", baseURL: paged.url, apiKey: KEY }).discoverFlows();
      expect(flows).toHaveLength(5);
      const lists = paged.requests.filter((request) => request.route === "list");
      expect(lists).toHaveLength(3);
      expect(lists[2]!.query).toMatchObject({ page: "3", size: "2", get_all: "false" });
    } finally {
      await paged.close();
    }
  });

  it("answers 403 with detail for a missing key", async () => {
    const error = (await createLangflowBackend({ id: "nokey", baseURL: server.url, apiKey: "x".repeat(8) })
      .discoverFlows()
      .catch((caught: unknown) => caught)) as BackendError;
    expect(error.code).toBe("BACKEND_AUTH_FAILED");
    expect(error.statusCode).toBe(403);
    expect(error.message).toContain("Invalid or missing API key");
  });

  it("runs a flow by its endpoint name", async () => {
    expect((await backend().execute({ flowId: "chat-bot", question: "by name" })).text).toBe("Echo: by name");
  });

  it("extracts answers from messages-only and artifacts-only replies", async () => {
    expect((await backend().execute({ flowId: ids.messages, question: "q" })).text).toBe("from messages");
    expect((await backend().execute({ flowId: ids.artifacts, question: "q" })).text).toBe("from artifacts");
  });

  it("streams add_message events and tokens and ends with the message id", async () => {
    const chunks = await collect(backend().stream({ flowId: ids.chat, question: "a b c", sessionId: "st" }));
    expect(chunks.filter((chunk) => chunk.type === "event").map((chunk) => (chunk as { name: string }).name)).toEqual(["add_message", "add_message", "add_message"]);
    const end = chunks.at(-1)!;
    expect(end.type === "end" && end.result.messageId).toBeTruthy();
    expect(end.type === "end" && end.result.text).toBe("Echo: a b c");
    expect(server.requests.find((request) => request.route === "run")!.query).toEqual({ stream: "true" });
  });

  it("never leaks the traceback of a 500 whose detail is a JSON string", async () => {
    server.setFaults([{ route: "run", status: 500, message: "Error building vertex OpenAIModel" }]);
    const error = (await backend().execute({ flowId: ids.chat, question: "q" }).catch((caught: unknown) => caught)) as BackendError;
    expect(error.code).toBe("BACKEND_UNAVAILABLE");
    expect(error.message).toContain("Error building vertex OpenAIModel");
    expect(error.message).not.toMatch(/Traceback|secret-internal-detail/);
  });

  it("falls back to /health when /health_check is missing", async () => {
    const old = await startLangflowServer({ healthCheckRoute: false });
    try {
      const health = await createLangflowBackend({ id: "old", baseURL: old.url }).checkHealth();
      expect(health.status).toBe("healthy");
      expect(old.requests.map((request) => request.path)).toEqual(expect.arrayContaining(["/health_check", "/health"]));
    } finally {
      await old.close();
    }
  });
});
