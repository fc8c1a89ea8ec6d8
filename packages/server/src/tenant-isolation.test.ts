import type { UniversalQueryResult } from "@afw/contracts";
import { deleteRedisKeys, getTestRedis, type TestRedis } from "@afw/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFakeBackend, type FakeBackend } from "../test/fake-backend.js";
import { parseResult, testConfig } from "../test/helpers.js";
import type { GatewayConfigInput } from "./config-schema.js";
import { createGatewayServer } from "./gateway-server.js";
import { startHttpTransport, type HttpTransportHandle } from "./http-transport.js";

// Two tenants (and an operator token without a tenant) on one gateway, through the Streamable
// HTTP transport: cached answers, sessions, session listings and cache clearing never cross
// tenants, with the in-memory stores and with Redis.

const ALICE = "afw-test-secret-tenant-alice-0001";
const BOB = "afw-test-secret-tenant-bob-000001";
const OPERATOR = "afw-test-secret-tenant-operator-1";

let redis: TestRedis;
const prefixes: string[] = [];
beforeAll(async () => {
  redis = await getTestRedis();
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteRedisKeys(redis.url, prefix);
  await redis?.dispose();
});
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function start(storeConfig: GatewayConfigInput): Promise<{ http: HttpTransportHandle; backend: FakeBackend }> {
  const backend = createFakeBackend({ id: "f", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }] });
  const gateway = await createGatewayServer({
    backends: [backend],
    config: testConfig({
      ...storeConfig,
      routing: { classifierEmbedder: "hashing" },
      http: {
        authTokens: [
          { token: ALICE, name: "alice", tenant: "acme" },
          { token: BOB, name: "bob", tenant: "globex" },
          { token: OPERATOR, name: "operator" },
        ],
      },
    }),
  });
  cleanups.push(() => gateway.close());
  const http = await startHttpTransport(gateway, { port: 0 });
  cleanups.push(() => http.close());
  return { http, backend };
}

async function connect(http: HttpTransportHandle, token: string) {
  const client = new Client({ name: "tenant-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  cleanups.push(() => client.close());
  return async <T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}) => parseResult<T>(await client.callTool({ name, arguments: args }));
}

type Query = UniversalQueryResult;

describe.each([
  ["in-memory stores", () => ({})],
  [
    "Redis",
    () => {
      const keyPrefix = redis.prefix();
      prefixes.push(keyPrefix);
      return { redis: { url: redis.url, keyPrefix } };
    },
  ],
] as const)("tenant isolation over HTTP (%s)", (_name, stores) => {
  it("never serves one tenant's cached answer to another", async () => {
    const { http, backend } = await start(stores());
    const [alice, bob, operator] = await Promise.all([connect(http, ALICE), connect(http, BOB), connect(http, OPERATOR)]);
    const question = { question: "What is the weather like in Paris today?" };

    expect((await alice<Query>("universal_query", question)).body._mcp_metadata.cache_hit).toBe(false);
    expect((await alice<Query>("universal_query", question)).body._mcp_metadata.cache_hit).not.toBe(false);
    const callsAfterAlice = backend.calls.length;

    expect((await bob<Query>("universal_query", question)).body._mcp_metadata.cache_hit).toBe(false);
    expect((await operator<Query>("universal_query", question)).body._mcp_metadata.cache_hit).toBe(false);
    expect(backend.calls.length).toBe(callsAfterAlice + 2);

    // Clearing everything clears only the caller's tenant.
    const cleared = await bob<{ removed: number }>("clear_cache", { all: true });
    expect(cleared.isError).toBe(false);
    expect((await alice<Query>("universal_query", question)).body._mcp_metadata.cache_hit).not.toBe(false);
    expect((await bob<Query>("universal_query", question)).body._mcp_metadata.cache_hit).toBe(false);
    await alice("clear_cache", { scope: "shared" });
    expect((await operator<Query>("universal_query", question)).body._mcp_metadata.cache_hit).not.toBe(false);
  });

  it("scopes clear_cache {flow_id} to the caller's tenant: another tenant's and the operator's answers stay cached", async () => {
    const { http } = await start(stores());
    const [alice, bob, operator] = await Promise.all([connect(http, ALICE), connect(http, BOB), connect(http, OPERATOR)]);
    const question = { question: "How do I bake sourdough bread at home?" };
    for (const who of [alice, bob, operator]) await who<Query>("universal_query", question);
    const flowId = (await alice<Query>("universal_query", question)).body._mcp_metadata.flow_id;

    // Bob invalidates the flow that answered everyone: only Bob's answers go stale.
    expect((await bob("clear_cache", { flow_id: flowId })).isError).toBe(false);
    expect((await alice<Query>("universal_query", question)).body._mcp_metadata.cache_hit).not.toBe(false);
    expect((await operator<Query>("universal_query", question)).body._mcp_metadata.cache_hit).not.toBe(false);
    expect((await bob<Query>("universal_query", question)).body._mcp_metadata.cache_hit).toBe(false);

    // The operator's invalidation spans every tenant.
    await operator("clear_cache", { flow_id: flowId });
    expect((await alice<Query>("universal_query", question)).body._mcp_metadata.cache_hit).toBe(false);
    expect((await operator<Query>("universal_query", question)).body._mcp_metadata.cache_hit).toBe(false);
  });

  it("keeps sessions (history, listing, lookup, session cache) per tenant even under the same session id", async () => {
    const { http, backend } = await start(stores());
    const [alice, bob, operator] = await Promise.all([connect(http, ALICE), connect(http, BOB), connect(http, OPERATOR)]);
    await alice("universal_query", { question: "my secret plan is alpha", session_id: "shared-id" });
    await alice("universal_query", { question: "and the second step is beta", session_id: "shared-id" });
    await alice("universal_query", { question: "alice only", session_id: "alice-only" });

    const own = await alice<{ turns: number; history: { question: string }[] }>("get_session", { session_id: "shared-id" });
    expect(own.body.turns).toBe(2);
    for (const other of [bob, operator]) {
      expect((await other("get_session", { session_id: "shared-id" })).body["code"]).toBe("NOT_FOUND");
      expect((await other("get_session", { session_id: "alice-only" })).body["code"]).toBe("NOT_FOUND");
      const listed = await other<{ sessions: { session_id: string }[] }>("list_sessions", { pattern: "*" });
      expect(listed.body.sessions.map((s) => s.session_id)).not.toContain("alice-only");
      expect((await other<{ count: number }>("search_history", { text: "secret plan alpha" })).body.count).toBe(0);
      expect((await other<{ count: number }>("search_history", { session_id: "shared-id" })).body.count).toBe(0);
    }
    const found = await alice<{ hits: { session_id: string; question: string }[] }>("search_history", { text: "secret plan alpha" });
    expect(found.body.hits.map((h) => [h.session_id, h.question])).toEqual([["shared-id", "my secret plan is alpha"]]);

    // Bob's own "shared-id" starts empty: Alice's turns are not given to his backend call as history.
    const before = backend.calls.length;
    await bob("universal_query", { question: "what was the plan?", session_id: "shared-id" });
    const bobCall = backend.calls[before]!;
    expect(JSON.stringify(bobCall)).not.toContain("alpha");
    const bobs = await bob<{ turns: number; history: { question: string }[] }>("get_session", { session_id: "shared-id" });
    expect(bobs.body.turns).toBe(1);
    expect(JSON.stringify(bobs.body)).not.toContain("secret plan");
    expect((await alice<{ turns: number }>("get_session", { session_id: "shared-id" })).body.turns).toBe(2);

    // Bob clearing "his" session's cache leaves Alice's session cache alone.
    await bob("clear_cache", { session_id: "shared-id" });
    expect((await alice<Query>("universal_query", { question: "alice only", session_id: "alice-only" })).isError).toBe(false);
  });

  it("refuses tenant tokens the cross-tenant tools and the dashboard API; the operator token keeps them", async () => {
    const { http } = await start(stores());
    const [alice, operator] = await Promise.all([connect(http, ALICE), connect(http, OPERATOR)]);
    await alice("universal_query", { question: "a private question from acme" });
    for (const name of ["pattern_analysis", "analytics_dashboard", "export_metrics", "sync_flow_registry"]) {
      const refused = await alice(name, {});
      expect(refused.body["code"], name).toBe("FORBIDDEN");
      expect((await operator(name, {})).body["code"], name).not.toBe("FORBIDDEN");
    }
    expect((await alice("backend_connect", { id: "x", kind: "flowise", baseURL: "https://example.com" })).body["code"]).toBe("FORBIDDEN");
    const base = new URL("/api/overview", http.url);
    const tenantView = await fetch(base, { headers: { authorization: `Bearer ${ALICE}` } });
    expect(tenantView.status).toBe(403);
    expect(await tenantView.json()).toMatchObject({ code: "FORBIDDEN" });
    const operatorView = await fetch(base, { headers: { authorization: `Bearer ${OPERATOR}` } });
    expect(operatorView.status).toBe(200);
  });
});
