/**
 * Stateful Streamable HTTP behind a round-robin balancer: two gateway instances, each with its own
 * `startHttpTransport`, share MCP sessions through the Redis session registry. A real SDK client
 * sends each request to the instance the test picks (a fetch that rewrites the host), so a
 * session opened on one instance is used, and deleted, on the other. Real Redis (key prefix per
 * file, deleted afterwards); the outage test stops and restarts a private redis-server.
 */
import type { McpSessionRegistry, UniversalQueryResult } from "@afw/contracts";
import { createRedisStores, MemoryMcpSessionRegistry, RedisMcpSessionRegistry, type RedisStores } from "@afw/cache";
import { deleteRedisKeys, getTestRedis, startRedisServer, type RedisServerHandle, type TestRedis } from "@afw/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { parseResult, testConfig } from "../test/helpers.js";
import type { GatewayConfigInput } from "./config-schema.js";
import { createGatewayServer, type GatewayServer } from "./gateway-server.js";
import { startHttpTransport, type HttpTransportHandle } from "./http-transport.js";

const ALICE = "afw-test-secret-alice-token-0123456789abcdef";
const BOB = "afw-test-secret-bob-token-0123456789abcdef0";

let redis: TestRedis;
let prefix: string;
let counter = 0;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  redis = await getTestRedis();
  prefix = redis.prefix();
});
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});
afterAll(async () => {
  if (!redis) return;
  await deleteRedisKeys(redis.url, prefix);
  await redis.dispose();
});

interface Instance {
  gateway: GatewayServer;
  http: HttpTransportHandle;
}

/**
 * Two gateways (A = 0, B = 1) in stateful mode. `registries` builds each one's session registry
 * (default: the gateway's own, i.e. Redis from `config.redis`).
 */
async function startPair(options: { config?: GatewayConfigInput; registries?: () => McpSessionRegistry } = {}): Promise<Instance[]> {
  const keyPrefix = `${prefix}${++counter}:`;
  const instances: Instance[] = [];
  for (let i = 0; i < 2; i++) {
    const backend = createFakeBackend({ id: "f", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }] });
    const gateway = await createGatewayServer({
      backends: [backend],
      config: testConfig({ redis: { url: redis.url, keyPrefix }, ...options.config, http: { stateless: false, ...options.config?.http } }),
      ...(options.registries ? { mcpSessions: options.registries() } : {}),
    });
    cleanups.push(() => gateway.close());
    const http = await startHttpTransport(gateway, { port: 0 });
    cleanups.push(() => http.close());
    instances.push({ gateway, http });
  }
  return instances;
}

/** Shared registries on one Redis prefix, with a generous bound so a loaded machine does not turn slow replies into outages. */
function sharedRegistries(): () => McpSessionRegistry {
  const keyPrefix = `${prefix}${++counter}:`;
  return () => {
    const stores: RedisStores = createRedisStores({ url: redis.url, keyPrefix, operationTimeoutMs: 2_000 });
    cleanups.push(() => stores.close());
    return stores.mcpSessionRegistry;
  };
}

interface Exchange {
  instance: number;
  method: string;
  rpc: string | undefined;
  status: number;
}

/**
 * A client whose every HTTP request goes to `router.target` (an instance index), or alternates
 * between the instances when `router.target` is `"round-robin"`.
 */
async function connectRouted(instances: Instance[], router: { target: number | "round-robin" }, token?: string) {
  const exchanges: Exchange[] = [];
  let turn = 0;
  const routedFetch: FetchLike = async (url, init) => {
    const index = router.target === "round-robin" ? turn++ % instances.length : router.target;
    const target = new URL(url);
    target.port = String(instances[index]!.http.port);
    const response = await fetch(target, init);
    let rpc: string | undefined;
    if (typeof init?.body === "string") rpc = (JSON.parse(init.body) as { method?: string }).method;
    exchanges.push({ instance: index, method: init?.method ?? "GET", rpc, status: response.status });
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(instances[0]!.http.url), {
    fetch: routedFetch,
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  });
  const client = new Client({ name: "routed-client", version: "2.0.0" });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport, exchanges };
}

/** A raw `tools/list` POST with a session id to one instance. */
async function listWithSession(instance: Instance, sessionId: string, token?: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(instance.http.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-06-18",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }),
  });
  const text = await response.text();
  return { status: response.status, body: text.startsWith("{") ? JSON.parse(text) : text };
}

/** Polls `condition` until it holds (reconnection has no event to await); throws after `timeoutMs`. */
async function waitFor(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const ask = async (client: Client, question: string) => parseResult<UniversalQueryResult>(await client.callTool({ name: "universal_query", arguments: { question } }));

describe("stateful HTTP: MCP sessions shared through the registry", () => {
  it("uses the Redis registry when redis is configured, memory otherwise", async () => {
    const [a] = await startPair();
    expect(a!.gateway.stores.mcpSessions).toBeInstanceOf(RedisMcpSessionRegistry);
    const alone = await createGatewayServer({ backends: [createFakeBackend({ id: "f", flows: [{ id: "chat" }] })], config: testConfig({ http: { stateless: false } }) });
    cleanups.push(() => alone.close());
    expect(alone.stores.mcpSessions).toBeInstanceOf(MemoryMcpSessionRegistry);
  });

  it("opens a session on A, serves tools/list and universal_query on B, and a DELETE on A ends it on B", async () => {
    const instances = await startPair({ registries: sharedRegistries() });
    const [a, b] = instances as [Instance, Instance];
    const router: { target: number | "round-robin" } = { target: 0 };
    const { client, transport, exchanges } = await connectRouted(instances, router);
    const sessionId = transport.sessionId!;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.http.sessionCount).toBe(1);
    const registered = await b.gateway.stores.mcpSessions.get(sessionId);
    expect(registered).toMatchObject({ status: "found", record: { sessionId, owner: "", protocolVersion: "2025-11-25", clientInfo: { name: "routed-client", version: "2.0.0" } } });

    router.target = 1;
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("universal_query");
    const { isError, body } = await ask(client, "hello from instance B");
    expect(isError).toBe(false);
    expect(body.result).toBe("f/chat: hello from instance B");
    const onB = exchanges.filter((exchange) => exchange.instance === 1);
    expect(onB.map((exchange) => [exchange.rpc, exchange.status])).toEqual([
      ["tools/list", 200],
      ["tools/call", 200],
    ]);
    // B served the session without holding it; lastSeenAt moved on.
    expect(b.http.sessionCount).toBe(0);
    const touched = await a.gateway.stores.mcpSessions.get(sessionId);
    expect(touched.status === "found" && registered.status === "found" && touched.record.lastSeenAt >= registered.record.lastSeenAt).toBe(true);

    router.target = 0;
    await transport.terminateSession();
    expect(exchanges.at(-1)).toMatchObject({ instance: 0, method: "DELETE", status: 200 });
    expect(a.http.sessionCount).toBe(0);
    const rejected = await listWithSession(b, sessionId);
    expect(rejected).toEqual({ status: 404, body: { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null } });
    expect((await listWithSession(a, sessionId)).status).toBe(404);
  });

  it("serves a client whose requests alternate between the instances (round robin), GET included", async () => {
    const instances = await startPair({ registries: sharedRegistries() });
    const router: { target: number | "round-robin" } = { target: "round-robin" };
    const { client, transport, exchanges } = await connectRouted(instances, router);
    const sessionId = transport.sessionId!;
    for (let i = 0; i < 4; i++) expect((await ask(client, `question ${i}`)).body.result).toBe(`f/chat: question ${i}`);
    const calls = exchanges.filter((exchange) => exchange.rpc === "tools/call");
    expect(new Set(calls.map((exchange) => exchange.instance))).toEqual(new Set([0, 1]));
    expect(calls.every((exchange) => exchange.status === 200)).toBe(true);
    // The standalone SSE stream: served by the instance holding the session, 405 (tolerated by the SDK client) elsewhere.
    for (const get of exchanges.filter((exchange) => exchange.method === "GET")) expect(get.status).toBe(get.instance === 0 ? 200 : 405);
    await transport.terminateSession();
    for (const instance of instances) expect((await listWithSession(instance, sessionId)).status).toBe(404);
  });

  it("a DELETE on the instance that does not hold the session ends it on the one that does", async () => {
    const instances = await startPair({ registries: sharedRegistries() });
    const [a, b] = instances as [Instance, Instance];
    const router: { target: number | "round-robin" } = { target: 0 };
    const { transport, exchanges } = await connectRouted(instances, router);
    const sessionId = transport.sessionId!;
    router.target = 1;
    await transport.terminateSession();
    expect(exchanges.at(-1)).toMatchObject({ instance: 1, method: "DELETE", status: 200 });
    expect(await b.gateway.stores.mcpSessions.get(sessionId)).toEqual({ status: "absent" });
    expect(a.http.sessionCount).toBe(1);
    expect((await listWithSession(a, sessionId)).status).toBe(404);
    expect(a.http.sessionCount).toBe(0);
  });

  it("refuses another token's session id on every instance with 404", async () => {
    const instances = await startPair({
      registries: sharedRegistries(),
      config: { http: { authTokens: [{ token: ALICE, name: "alice", tenant: "t-a" }, { token: BOB, name: "bob" }] } },
    });
    const [a, b] = instances as [Instance, Instance];
    const { transport } = await connectRouted(instances, { target: 0 }, ALICE);
    const sessionId = transport.sessionId!;
    expect(await b.gateway.stores.mcpSessions.get(sessionId)).toMatchObject({ status: "found", record: { owner: "alice", tenant: "t-a" } });
    expect((await listWithSession(b, sessionId, BOB)).status).toBe(404);
    expect((await listWithSession(a, sessionId, BOB)).status).toBe(404);
    expect((await listWithSession(b, sessionId, ALICE)).status).toBe(200);
    expect((await listWithSession(b, "not-a-session", ALICE)).status).toBe(404);
  });
});

describe("stateful HTTP: session registry outage", () => {
  let server: RedisServerHandle;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it("keeps sessions held in memory working while Redis is down, refuses others with 503, and re-registers them once it is back", async () => {
    const registries = () => {
      const stores = createRedisStores({ url: server.url, keyPrefix: "outage:", operationTimeoutMs: 100, reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
      cleanups.push(() => stores.close());
      return stores.mcpSessionRegistry;
    };
    const instances = await startPair({ registries });
    const [a, b] = instances as [Instance, Instance];
    const router: { target: number | "round-robin" } = { target: 0 };
    const { client, transport } = await connectRouted(instances, router);
    const sessionId = transport.sessionId!;
    expect((await listWithSession(b, sessionId)).status).toBe(200);

    await server.stop();
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect((await ask(client, "still here while redis is down")).body.result).toBe("f/chat: still here while redis is down");
    const refused = await fetch(b.http.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": sessionId },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toMatchObject({ error: { message: "Session registry unavailable: retry shortly" } });

    // Redis comes back empty (no persistence): A's next request registers the session again.
    await server.restart();
    const registry = registries();
    for (const store of [a.gateway.stores.mcpSessions, b.gateway.stores.mcpSessions, registry]) await waitFor(async () => (await store.get("probe")).status !== "unavailable");
    expect((await registry.get(sessionId)).status).toBe("absent");
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(await registry.get(sessionId)).toMatchObject({ status: "found", record: { sessionId } });
    expect((await listWithSession(b, sessionId)).status).toBe(200);
    expect(a.http.sessionCount).toBe(1);
  });
});
