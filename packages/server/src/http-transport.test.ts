import { request as httpRequest } from "node:http";
import type { UniversalQueryResult } from "@afw/contracts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeBackend, type FakeBackend } from "../test/fake-backend.js";
import { parseResult, testConfig } from "../test/helpers.js";
import type { GatewayConfigInput } from "./config-schema.js";
import { createGatewayServer, type GatewayServer } from "./gateway-server.js";
import { isLoopbackHost } from "./http-guards.js";
import { startHttpTransport, type HttpTransportHandle, type HttpTransportOptions } from "./http-transport.js";

const TOKEN = "afw-test-secret-test-token-0123456789abcdef";
const OTHER_TOKEN = "afw-test-secret-other-token-0123456789abcdef";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function startGateway(config: GatewayConfigInput = {}, options: HttpTransportOptions = {}, backends?: FakeBackend[]) {
  const backend = createFakeBackend({ id: "f", stream: true, flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }] });
  const gateway: GatewayServer = await createGatewayServer({ backends: backends ?? [backend], config: testConfig(config) });
  cleanups.push(() => gateway.close());
  const http = await startHttpTransport(gateway, { port: 0, ...options });
  cleanups.push(() => http.close());
  return { gateway, http, backend };
}

async function connect(http: HttpTransportHandle, token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(http.url), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {});
  const client = new Client({ name: "http-test", version: "1.0.0" });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
}

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

async function post(url: string, body: string | Buffer, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body,
  });
}

describe("Streamable HTTP transport: auth", () => {
  it("rejects missing and wrong tokens with a JSON 401, and accepts the right one", async () => {
    const { http } = await startGateway({ http: { authTokens: [TOKEN] } });
    const missing = await post(http.url, initialize);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await missing.json()).toEqual({ error: "missing or invalid bearer token", code: "UNAUTHORIZED" });
    const wrong = await post(http.url, initialize, { authorization: `Bearer ${TOKEN}x` });
    expect(wrong.status).toBe(401);
    const malformed = await post(http.url, initialize, { authorization: `Basic ${TOKEN}` });
    expect(malformed.status).toBe(401);
    await expect(connect(http, "not-the-token-at-all-000")).rejects.toThrow();

    const client = await connect(http, TOKEN);
    const { tools } = await client.listTools();
    expect(tools.length).toBe(21);
    const { isError, body } = parseResult<UniversalQueryResult>(await client.callTool({ name: "universal_query", arguments: { question: "hello over http" } }));
    expect(isError).toBe(false);
    expect(body.result).toBe("f/chat: hello over http");
  });

  it("passes the token's tenant to the tools: sessions are isolated per tenant", async () => {
    const { http } = await startGateway({
      http: { authTokens: [{ token: TOKEN, name: "alice", tenant: "t-alice" }, { token: OTHER_TOKEN, name: "bob", tenant: "t-bob" }] },
    });
    const alice = await connect(http, TOKEN);
    const bob = await connect(http, OTHER_TOKEN);
    await alice.callTool({ name: "universal_query", arguments: { question: "hello", session_id: "shared-name" } });
    const own = parseResult(await alice.callTool({ name: "get_session", arguments: { session_id: "shared-name" } }));
    expect(own.isError).toBe(false);
    const foreign = parseResult(await bob.callTool({ name: "get_session", arguments: { session_id: "shared-name" } }));
    expect(foreign.body["code"]).toBe("NOT_FOUND");
    const cached = parseResult<UniversalQueryResult>(await bob.callTool({ name: "universal_query", arguments: { question: "hello", session_id: "shared-name" } }));
    expect(cached.body._mcp_metadata.cache_hit).toBe(false);
  });

  it("refuses to bind a non-loopback address without tokens, and serves loopback without auth", async () => {
    const gateway = await createGatewayServer({ config: testConfig() });
    cleanups.push(() => gateway.close());
    await expect(startHttpTransport(gateway, { host: "0.0.0.0", port: 0 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(startHttpTransport(gateway, { host: "::", port: 0 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const http = await startHttpTransport(gateway, { port: 0 });
    cleanups.push(() => http.close());
    const client = await connect(http);
    expect((await client.listTools()).tools.length).toBe(21);
    expect(isLoopbackHost("127.0.0.2")).toBe(true);
    expect(isLoopbackHost("[::1]")).toBe(true);
    expect(isLoopbackHost("10.0.0.1")).toBe(false);
  });

  it("binds any address when tokens are configured", async () => {
    const { http } = await startGateway({ http: { authTokens: [TOKEN] } }, { host: "0.0.0.0" });
    const client = await connect({ ...http, url: `http://127.0.0.1:${http.port}/mcp` } as HttpTransportHandle, TOKEN);
    expect((await client.listTools()).tools.length).toBe(21);
  });

  it("refuses a non-loopback Host header without auth (DNS rebinding) and foreign origins", async () => {
    const { http } = await startGateway();
    const rebinding = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: "127.0.0.1", port: http.port, path: "/mcp", method: "POST", headers: { host: "evil.example:80", "content-type": "application/json" } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end(initialize);
    });
    expect(rebinding).toBe(403);
    const foreign = await post(http.url, initialize, { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { code: string }).code).toBe("FORBIDDEN");
    // the listener's own origin (the dashboard page it serves) is same-origin, not cross-site
    const sameOrigin = await post(http.url, initialize, { origin: new URL(http.url).origin });
    expect(sameOrigin.status).toBe(200);
    // a look-alike origin on another port is still foreign
    const otherPort = await post(http.url, initialize, { origin: `http://127.0.0.1:${http.port + 1}` });
    expect(otherPort.status).toBe(403);
  });
});

describe("Streamable HTTP transport: limits", () => {
  it("answers 413 for a body over the limit, declared or streamed", async () => {
    const { http } = await startGateway({ http: { bodyLimitBytes: 1024 } });
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "universal_query", arguments: { question: "x".repeat(5_000) } } });
    const declared = await post(http.url, big);
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { code: string }).code).toBe("PAYLOAD_TOO_LARGE");
    const streamed = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: "127.0.0.1", port: http.port, path: "/mcp", method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked" } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", () => resolve(413));
      for (let i = 0; i < 5; i++) req.write("x".repeat(400));
      req.end();
    });
    expect(streamed).toBe(413);
    // the server is still healthy afterwards
    const client = await connect(http);
    expect((await client.listTools()).tools.length).toBe(21);
  });

  it("answers 429 per token once its burst is spent, without affecting other tokens", async () => {
    const { http } = await startGateway({ http: { authTokens: [{ token: TOKEN, name: "a" }, { token: OTHER_TOKEN, name: "b" }], rateLimit: { requestsPerMinute: 60, burst: 3 } } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await post(http.url, initialize, { authorization: `Bearer ${TOKEN}` });
      statuses.push(response.status);
      if (response.status === 429) {
        expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        expect(((await response.json()) as { code: string }).code).toBe("RATE_LIMITED");
      } else {
        await response.arrayBuffer();
      }
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const other = await post(http.url, initialize, { authorization: `Bearer ${OTHER_TOKEN}` });
    expect(other.status).toBe(200);
    await other.arrayBuffer();
  });

  it("answers malformed requests with clean errors", async () => {
    const { http } = await startGateway();
    const badJson = await post(http.url, "{not json");
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const badType = await post(http.url, initialize, { "content-type": "text/plain" });
    expect(badType.status).toBe(415);
    await badType.arrayBuffer();
    const getStateless = await fetch(http.url, { headers: { accept: "text/event-stream" } });
    expect(getStateless.status).toBe(405);
    await getStateless.arrayBuffer();
    const unknown = await fetch(`http://127.0.0.1:${http.port}/nope`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { code: string }).code).toBe("NOT_FOUND");
  });
});

describe("Streamable HTTP transport: probes, metrics, CORS, streaming, sessions", () => {
  it("serves /healthz and /readyz without auth, /metrics with it", async () => {
    const backend = createFakeBackend({ id: "f", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }] });
    const { http, gateway } = await startGateway({ http: { authTokens: [TOKEN] } }, {}, [backend]);
    const base = `http://127.0.0.1:${http.port}`;
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: "ok" });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { ready: boolean }).ready).toBe(true);
    backend.behavior.health = "down";
    await gateway.router.checkHealth();
    const notReady = await fetch(`${base}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toMatchObject({ ready: false, checks: expect.arrayContaining([expect.objectContaining({ name: "backend:f", ok: false, status: "down", message: expect.stringMatching(/^f unreachable/) })]) });

    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    const client = await connect(http, TOKEN);
    await client.callTool({ name: "universal_query", arguments: { question: "hi" } });
    await client.callTool({ name: "universal_query", arguments: { question: "hi" } });
    const metrics = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(metrics).toMatch(/afw_tool_calls_total\{tool="universal_query",outcome="success",code=""\} 2/);
    expect(metrics).toMatch(/afw_cache_hits_total\{kind="exact"\} 1/);
    expect(metrics).toMatch(/afw_http_requests_total\{route="\/mcp",method="POST",status="200"\}/);
    expect(metrics).toMatch(/afw_tool_call_duration_seconds_bucket/);
    expect(metrics).toMatch(/afw_http_rejected_total\{reason="unauthorized"\} 1/);
  });

  it("answers CORS preflights only for configured origins", async () => {
    const { http } = await startGateway({ http: { authTokens: [TOKEN], cors: { origins: ["https://app.example"] } } });
    const preflight = await fetch(http.url, { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "POST" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/Mcp-Session-Id/);
    const allowed = await post(http.url, initialize, { origin: "https://app.example", authorization: `Bearer ${TOKEN}` });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example");
    await allowed.arrayBuffer();
    const denied = await fetch(http.url, { method: "OPTIONS", headers: { origin: "https://other.example" } });
    expect(denied.status).toBe(403);
  });

  it("streams progress notifications over SSE in stateless mode", async () => {
    const { http } = await startGateway();
    const client = await connect(http);
    const messages: string[] = [];
    const raw = await client.callTool({ name: "universal_query", arguments: { question: "stream me please", parameters: { stream: true } } }, undefined, {
      onprogress: (p) => messages.push(p.message ?? ""),
    });
    expect(parseResult<UniversalQueryResult>(raw).body.result).toBe("f/chat: stream me please");
    expect(messages.join("")).toBe("f/chat: stream me please");
  });

  it("serves stateless POSTs one after another on pooled servers, and leaves Error.stackTraceLimit as it was", async () => {
    const { http } = await startGateway();
    const client = await connect(http);
    const limit = Error.stackTraceLimit;
    for (let i = 0; i < 5; i++) {
      const raw = await client.callTool({ name: "universal_query", arguments: { question: `pooled question ${i}` } });
      expect(parseResult<UniversalQueryResult>(raw).body.result).toBe(`f/chat: pooled question ${i}`);
    }
    expect(Error.stackTraceLimit).toBe(limit);
  });

  it("supports stateful sessions when configured", async () => {
    const { http } = await startGateway({ http: { stateless: false } });
    const transport = new StreamableHTTPClientTransport(new URL(http.url));
    const client = new Client({ name: "stateful", version: "1.0.0" });
    await client.connect(transport);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(http.sessionCount).toBe(1);
    const { body } = parseResult<UniversalQueryResult>(await client.callTool({ name: "universal_query", arguments: { question: "hi there" } }));
    expect(body.result).toBe("f/chat: hi there");
    const unknownSession = await post(http.url, JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/list" }), { "mcp-session-id": "00000000-0000-0000-0000-000000000000" });
    expect(unknownSession.status).toBe(404);
    await unknownSession.arrayBuffer();
    await transport.terminateSession();
    await client.close();
    expect(http.sessionCount).toBe(0);
  });
});

describe("Streamable HTTP transport: stateless exchanges on pooled MCP servers", () => {
  const headers = { accept: "application/json, text/event-stream", "content-type": "application/json" };
  const call = (id: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

  it("answers JSON, batches, notifications and protocol errors", async () => {
    const { http } = await startGateway();
    const single = await fetch(http.url, { method: "POST", headers, body: JSON.stringify(call(7, "universal_query", { question: "hello" })) });
    expect(single.status).toBe(200);
    expect(single.headers.get("content-type")).toBe("application/json");
    const answer = (await single.json()) as { id: number; result: { content: { text: string }[] } };
    expect(answer.id).toBe(7);
    expect(JSON.parse(answer.result.content[0]!.text).result).toBe("f/chat: hello");

    const batch = await fetch(http.url, { method: "POST", headers, body: JSON.stringify([call(1, "list_flows", {}), { jsonrpc: "2.0", id: "two", method: "tools/list" }]) });
    const batchBody = (await batch.json()) as { id: number | string }[];
    expect(batchBody.map((m) => m.id).sort()).toEqual([1, "two"]);

    const notification = await fetch(http.url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
    expect(notification.status).toBe(202);
    await notification.arrayBuffer();

    const notAcceptable = await fetch(http.url, { method: "POST", headers: { ...headers, accept: "application/json" }, body: JSON.stringify(call(1, "list_flows", {})) });
    expect(notAcceptable.status).toBe(406);
    await notAcceptable.arrayBuffer();
    const badVersion = await fetch(http.url, { method: "POST", headers: { ...headers, "mcp-protocol-version": "1999-01-01" }, body: JSON.stringify(call(1, "list_flows", {})) });
    expect(badVersion.status).toBe(400);
    await badVersion.arrayBuffer();
    const notJsonRpc = await fetch(http.url, { method: "POST", headers, body: JSON.stringify({ hello: "world" }) });
    expect(notJsonRpc.status).toBe(400);
    expect(((await notJsonRpc.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const twoInits = await fetch(http.url, { method: "POST", headers, body: JSON.stringify([JSON.parse(initialize), { ...JSON.parse(initialize), id: 2 }]) });
    expect(twoInits.status).toBe(400);
    await twoInits.arrayBuffer();
  });

  it("reuses pooled MCP servers across requests without mixing their answers", async () => {
    const { http } = await startGateway();
    const client = await connect(http);
    const questions = Array.from({ length: 24 }, (_, i) => `parallel question ${i}`);
    const answers = await Promise.all(questions.map((question) => client.callTool({ name: "universal_query", arguments: { question } })));
    expect(answers.map((a) => parseResult<UniversalQueryResult>(a).body.result)).toEqual(questions.map((q) => `f/chat: ${q}`));
  });

  it("aborts the tool call when the client goes away", async () => {
    const hanging = createFakeBackend({ id: "h", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }], behavior: { hang: true } });
    const { http, gateway } = await startGateway({}, {}, [hanging]);
    const controller = new AbortController();
    const pending = fetch(http.url, { method: "POST", headers, body: JSON.stringify(call(1, "universal_query", { question: "hang", timeout: 60 })), signal: controller.signal }).catch(() => undefined);
    await new Promise<void>((resolve) => {
      const off = gateway.traces!.subscribe((event) => {
        if (event.type === "backend-call-start") {
          off();
          resolve();
        }
      });
    });
    controller.abort();
    await pending;
    const failed = await new Promise<{ code: string }>((resolve) => {
      const off = gateway.traces!.subscribe((event) => {
        if (event.type === "query-failed") {
          off();
          resolve(event);
        }
      });
    });
    expect(failed.code).toBe("ABORTED");
  });
});

