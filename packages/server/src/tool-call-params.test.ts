import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { startTestGateway, testConfig } from "../test/helpers.js";
import { createGatewayServer, type GatewayServer } from "./gateway-server.js";
import { startHttpTransport, type HttpTransportHandle } from "./http-transport.js";

const backends = () => [createFakeBackend({ id: "f", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }] })];

describe("tools/call with malformed params (official SDK client)", () => {
  let started: Awaited<ReturnType<typeof startTestGateway>>;
  beforeAll(async () => {
    started = await startTestGateway({ backends: backends() });
  });
  afterAll(() => started.close());

  const call = (params: Record<string, unknown>) => started.client.request({ method: "tools/call", params } as never, CallToolResultSchema);

  it.each([
    [{ name: "universal_query", arguments: "what is 2+2" }, 'Invalid arguments for tool universal_query: "arguments" must be an object'],
    [{ name: "universal_query", arguments: [1, 2] }, 'Invalid arguments for tool universal_query: "arguments" must be an object'],
    [{ name: "universal_query", arguments: null }, 'Invalid arguments for tool universal_query: "arguments" must be an object'],
    [{ name: "universal_query" }, 'Invalid arguments for tool universal_query: "question" is required'],
    [{ name: 42, arguments: {} }, 'Invalid params for tools/call: "name" must be a string'],
  ])("%j answers -32602 with one line", async (params, message) => {
    const error = await call(params).then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string },
    );
    expect(error?.code).toBe(-32602);
    expect(error?.message).toBe(`MCP error -32602: ${message}`);
  });

  it("still accepts a tool whose arguments may be left out", async () => {
    const result = await call({ name: "list_sessions" });
    expect(result.isError ?? false).toBe(false);
  });

  it("keeps invalid but present arguments a typed INVALID_INPUT tool error with one line", async () => {
    const result = await call({ name: "universal_query", arguments: { question: 7 } });
    expect(result.isError).toBe(true);
    const body = JSON.parse((result.content[0] as { text: string }).text) as { code: string; error: string };
    expect(body.code).toBe("INVALID_INPUT");
    expect(body.error).toMatch(/^Invalid arguments for tool universal_query: "question": [^\n]+$/);
  });
});

describe("tools/call with malformed params (raw HTTP)", () => {
  let gateway: GatewayServer;
  let http: HttpTransportHandle;
  beforeAll(async () => {
    gateway = await createGatewayServer({ backends: backends(), config: testConfig({ http: { stateless: true } }) });
    http = await startHttpTransport(gateway, { port: 0 });
  });
  afterAll(async () => {
    await http.close();
    await gateway.close();
  });

  it("answers -32602 with a one-line message, no zod dump", async () => {
    const response = await fetch(http.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "universal_query", arguments: "x" } }),
    });
    const text = await response.text();
    const body = JSON.parse(text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "{}")) as { error?: { code: number; message: string } };
    expect(body.error).toEqual({ code: -32602, message: 'Invalid arguments for tool universal_query: "arguments" must be an object' });
    expect(text).not.toMatch(/"expected"|invalid_type|\n\s+at /);
  });
});
