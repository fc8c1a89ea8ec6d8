import { connect as netConnect, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { testConfig } from "../test/helpers.js";
import { createGatewayServer, type GatewayServer } from "./gateway-server.js";
import { startHttpTransport, type HttpTransportHandle } from "./http-transport.js";

// Malformed and hostile HTTP on /mcp: every answer is a clean HTTP error with a JSON body and no
// stack trace, and the process keeps serving (a valid request afterwards succeeds).

const TOKEN = "afw-test-secret-bearer-hostile-01";
let gateway: GatewayServer;
let http: HttpTransportHandle;
/** The slow-client guards' transport: short header and body timeouts, used only by the slow-loris tests (a busy machine can take 400 ms to parse a well-formed request). */
let strict: HttpTransportHandle;
const unexpected: unknown[] = [];
const onUnexpected = (error: unknown) => unexpected.push(error);

beforeAll(async () => {
  process.on("unhandledRejection", onUnexpected);
  process.on("uncaughtException", onUnexpected);
  const backend = createFakeBackend({ id: "f", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }] });
  gateway = await createGatewayServer({ backends: [backend], config: testConfig({ http: { authTokens: [TOKEN], rateLimit: { requestsPerMinute: 60_000, burst: 1_000 } } }) });
  http = await startHttpTransport(gateway, { port: 0 });
  strict = await startHttpTransport(gateway, { port: 0, headersTimeoutMs: 400, bodyTimeoutMs: 400 });
});
afterAll(async () => {
  await http.close();
  await strict.close();
  await gateway.close();
  process.off("unhandledRejection", onUnexpected);
  process.off("uncaughtException", onUnexpected);
  expect(unexpected).toEqual([]);
});

const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
const toolCall = (id: number, args: Record<string, unknown>, name = "universal_query") => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

async function post(body: string | Buffer, extra: Record<string, string> = {}, drop: string[] = []) {
  const sent: Record<string, string> = { ...headers, ...extra };
  for (const name of drop) delete sent[name];
  const response = await fetch(http.url, { method: "POST", headers: sent, body });
  const text = await response.text();
  return { status: response.status, text, contentType: response.headers.get("content-type") ?? "" };
}

function expectCleanJson(result: { status: number; text: string; contentType: string }, status: number) {
  expect(result.status, result.text).toBe(status);
  expect(result.contentType).toMatch(/^application\/json/);
  expect(() => JSON.parse(result.text)).not.toThrow();
  expect(result.text).not.toMatch(/\n\s+at |node_modules|\.ts:\d+|\.js:\d+/);
}

/** The process stays healthy: a normal tool call still answers. */
async function expectHealthy() {
  const ok = await post(JSON.stringify(toolCall(99, { question: "still alive?" })));
  expect(ok.status).toBe(200);
  const body = JSON.parse(ok.text) as { result: { isError?: boolean } };
  expect(body.result.isError ?? false).toBe(false);
}

/** Sends raw bytes and collects everything the server answers until it closes the connection. */
function raw(chunks: string[], { gapMs = 0, keepOpen = false, target = http } = {}): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket: Socket = netConnect(target.port, "127.0.0.1");
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (data: string) => (text += data));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve({ text, closed: true }));
    socket.on("connect", async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) break;
        socket.write(chunk);
        if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      }
      if (!keepOpen) socket.end();
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`server never closed the connection; got ${JSON.stringify(text.slice(0, 200))}`));
    }, 10_000).unref();
  });
}

const jsonBodyOf = (rawResponse: string) => JSON.parse(rawResponse.slice(rawResponse.indexOf("\r\n\r\n") + 4)) as Record<string, unknown>;

describe("malformed JSON-RPC and HTTP on /mcp", () => {
  afterEach(async () => {
    await expectHealthy();
  });

  it.each([
    ["bad JSON", "{not json", 400],
    ["truncated JSON", '{"jsonrpc":"2.0","id":1,"method":"tools/ca', 400],
    ["JSON that is not JSON-RPC", '{"hello":"world"}', 400],
    ["a JSON string", '"just a string"', 400],
    ["JSON null", "null", 400],
    ["an empty batch", "[]", 400],
    ["a batch of garbage", "[1,2,3]", 400],
    ["invalid UTF-8", Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), 400],
    ["two initialize requests in a batch", JSON.stringify([1, 2].map((id) => ({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } }))), 400],
  ] as const)("%s: a clean JSON error", async (_name, body, status) => {
    expectCleanJson(await post(body as string | Buffer), status);
  });

  it("wrong content type -> 415, missing Accept -> 406, unsupported protocol version -> 400", async () => {
    expectCleanJson(await post(JSON.stringify(toolCall(1, { question: "hi" })), { "content-type": "text/plain" }), 415);
    expectCleanJson(await post(JSON.stringify(toolCall(1, { question: "hi" })), { "content-type": "application/x-www-form-urlencoded" }), 415);
    expectCleanJson(await post(JSON.stringify(toolCall(1, { question: "hi" })), {}, ["accept"]), 406);
    expectCleanJson(await post(JSON.stringify(toolCall(1, { question: "hi" })), { accept: "text/html" }), 406);
    expectCleanJson(await post(JSON.stringify(toolCall(1, { question: "hi" })), { "mcp-protocol-version": "1999-01-01" }), 400);
  });

  it("parses the media type exactly: application/json-seq and application/jsonp -> 415, parameters and case allowed", async () => {
    const body = JSON.stringify(toolCall(1, { question: "hi" }));
    expectCleanJson(await post(body, { "content-type": "application/json-seq" }), 415);
    expectCleanJson(await post(body, { "content-type": "application/jsonp; charset=utf-8" }), 415);
    expect((await post(body, { "content-type": "Application/JSON ; charset=utf-8" })).status).toBe(200);
  });

  it("GET and DELETE in stateless mode -> 405; unknown paths -> 404 JSON", async () => {
    const get = await fetch(http.url, { headers });
    expect(get.status).toBe(405);
    expect(await get.json()).toMatchObject({ error: { code: -32000 } });
    const del = await fetch(http.url, { method: "DELETE", headers });
    expect(del.status).toBe(405);
    const other = await fetch(new URL("/mcp/../../etc/passwd%00", http.url), { headers });
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ code: "NOT_FOUND" });
  });

  it("a 10 MB question is refused with 413 before it is parsed", async () => {
    const body = JSON.stringify(toolCall(1, { question: "x".repeat(10 * 1024 * 1024) }));
    expectCleanJson(await post(body), 413);
    const rejected = await gateway.metrics.render();
    expect(rejected).toMatch(/too_large/);
  });

  it("a question just over the contract's limit (under the body limit) is a typed INVALID_INPUT", async () => {
    const result = await post(JSON.stringify(toolCall(1, { question: "y".repeat(40_000) })));
    expect(result.status).toBe(200);
    const body = JSON.parse(result.text) as { result: { isError: boolean; content: { text: string }[] } };
    expect(body.result.isError).toBe(true);
    expect(JSON.parse(body.result.content[0]!.text)).toMatchObject({ code: "INVALID_INPUT" });
  });

  it("deeply nested arguments (within the body limit) give typed INVALID_INPUT errors for every tool", async () => {
    const depth = 100_000;
    const deep = `${"[".repeat(depth)}${"]".repeat(depth)}`;
    const tools = ["universal_query", "explain_routing", "search_tools", "search_workflow_catalog", "clear_cache", "list_sessions", "backend_connect"];
    for (const [index, name] of tools.entries()) {
      const body = `{"jsonrpc":"2.0","id":${index + 1},"method":"tools/call","params":{"name":"${name}","arguments":{"question":"q","query":"q","parameters":${deep},"filters":${deep}}}}`;
      const result = await post(body);
      expect(result.status, name).toBe(200);
      const parsed = JSON.parse(result.text) as { result: { isError: boolean; content: { text: string }[] } };
      expect(parsed.result.isError, name).toBe(true);
      expect(JSON.parse(parsed.result.content[0]!.text), name).toMatchObject({ code: "INVALID_INPUT" });
    }
    // Deep nesting where the protocol itself carries it (the JSON-RPC params and _meta).
    const meta = await post(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"x":${deep}}}}`);
    expect([200, 400]).toContain(meta.status);
    expect(() => JSON.parse(meta.text)).not.toThrow();
  });

  it("batches over 100 messages -> 400; a batch costs one rate-limit token per message", async () => {
    const big = JSON.stringify(Array.from({ length: 101 }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "tools/list" })));
    expectCleanJson(await post(big), 400);

    const limitedGateway = await createGatewayServer({
      backends: [createFakeBackend({ id: "f", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }] })],
      config: testConfig({ http: { authTokens: [TOKEN], rateLimit: { requestsPerMinute: 60, burst: 10 } } }),
    });
    const limited = await startHttpTransport(limitedGateway, { port: 0 });
    try {
      const batch = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "tools/list" })));
      const first = await fetch(limited.url, { method: "POST", headers, body: batch(8) });
      expect(first.status).toBe(200);
      expect((await first.json()) as unknown[]).toHaveLength(8);
      const second = await fetch(limited.url, { method: "POST", headers, body: batch(8) });
      expect(second.status).toBe(429);
      expect(second.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(await second.json()).toMatchObject({ code: "RATE_LIMITED" });
    } finally {
      await limited.close();
      await limitedGateway.close();
    }
  });

  it("a malformed request line or oversized headers -> JSON 400/431 and the connection closed", async () => {
    const garbage = await raw(["GARBAGE / HTTP/1.1\r\n\r\n"]);
    expect(garbage.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(jsonBodyOf(garbage.text)).toMatchObject({ code: "INVALID_INPUT" });
    const huge = await raw([`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(64 * 1024)}\r\n\r\n`]);
    expect(huge.text).toMatch(/^HTTP\/1\.1 431 /);
    expect(jsonBodyOf(huge.text)).toMatchObject({ code: "INVALID_INPUT" });
  });

  it("slow-loris headers: a client dripping its headers gets a JSON 408 and is disconnected", async () => {
    const drip = ["POST /mcp HTTP/1.1\r\n", "Host: 127.0.0.1\r\n", ...Array.from({ length: 40 }, (_, i) => `X-Slow-${i}: 1\r\n`)];
    const slow = await raw(drip, { gapMs: 100, keepOpen: true, target: strict });
    expect(slow.closed).toBe(true);
    expect(slow.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(jsonBodyOf(slow.text)).toMatchObject({ code: "ABORTED" });
  });

  it("slow body: a client that stops sending its body gets a JSON 408 and is disconnected", async () => {
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n`;
    const slow = await raw([head, '{"jsonrpc":'], { keepOpen: true, target: strict });
    expect(slow.closed).toBe(true);
    expect(slow.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(jsonBodyOf(slow.text)).toMatchObject({ code: "ABORTED" });
  });
});
