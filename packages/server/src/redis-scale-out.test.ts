/**
 * Two stateless gateway instances on one Redis (the scale-out setup): a session started on one
 * continues on the other, an answer cached by one is a hit on the other, and `/readyz` reports
 * Redis. Uses a private redis-server (or REDIS_URL); keys are deleted afterwards.
 */
import type { UniversalQueryResult } from "@afw/contracts";
import { countRedisKeys, deleteRedisKeys, getTestRedis, type TestRedis } from "@afw/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { parseResult, testConfig } from "../test/helpers.js";
import { createGatewayServer, type GatewayServer } from "./gateway-server.js";
import { startHttpTransport, type HttpTransportHandle } from "./http-transport.js";

let redis: TestRedis;
let prefix: string;
const instances: { gateway: GatewayServer; http: HttpTransportHandle; client: Client }[] = [];
const backend = createFakeBackend({ id: "f", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }] });

beforeAll(async () => {
  redis = await getTestRedis();
  prefix = redis.prefix();
  for (let i = 0; i < 2; i++) {
    const gateway = await createGatewayServer({ backends: [backend], config: testConfig({ redis: { url: redis.url, keyPrefix: prefix } }) });
    const http = await startHttpTransport(gateway, { port: 0 });
    const client = new Client({ name: `instance-${i}`, version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    instances.push({ gateway, http, client });
  }
});

afterAll(async () => {
  for (const { gateway, http, client } of instances) {
    await client.close();
    await http.close();
    await gateway.close();
  }
  if (redis) {
    await deleteRedisKeys(redis.url, prefix);
    await redis.dispose();
  }
});

const ask = async (instance: number, args: Record<string, unknown>) =>
  parseResult<UniversalQueryResult>(await instances[instance]!.client.callTool({ name: "universal_query", arguments: args })).body;

describe("two gateway instances on one Redis", () => {
  it("continue a session and share cached answers across instances", async () => {
    await ask(0, { question: "hello, I am on instance zero", session_id: "roaming" });
    const second = await ask(1, { question: "and now instance one", session_id: "roaming" });
    expect(second._mcp_metadata.cache_hit).toBe(false);
    expect(backend.calls.at(-1)!.history?.[0]).toEqual({ role: "user", content: "hello, I am on instance zero" });
    const session = parseResult<{ turns: number }>(await instances[0]!.client.callTool({ name: "get_session", arguments: { session_id: "roaming" } }));
    expect(session.body.turns).toBe(2);

    const first = await ask(0, { question: "a shared question for everyone" });
    expect(first._mcp_metadata.cache_hit).toBe(false);
    const calls = backend.calls.length;
    const shared = await ask(1, { question: "a shared question for everyone" });
    expect(shared._mcp_metadata.cache_hit).toBe(true);
    expect(shared.result).toBe(first.result);
    expect(backend.calls.length).toBe(calls);
    expect(await countRedisKeys(redis.url, prefix)).toBeGreaterThan(0);
  });

  it("record to one audit stream: either instance reports and rates the other's queries", async () => {
    const dashboard = async (instance: number) =>
      parseResult<{ totals: { queries: number; answered: number } }>(await instances[instance]!.client.callTool({ name: "analytics_dashboard", arguments: { range: "1h" } })).body.totals;
    await Promise.all(instances.map(({ gateway }) => gateway.auditLog.flush()));
    const before = await dashboard(1);
    await ask(0, { question: "audited on instance zero", session_id: "audited" });
    await ask(0, { question: "and audited again on instance zero", session_id: "audited" });
    await instances[0]!.gateway.auditLog.flush();
    const after = await dashboard(1);
    expect(after.queries - before.queries).toBe(2);
    expect(after.answered - before.answered).toBe(2);
    const rated = parseResult<{ linked: boolean; stored: boolean; record: { flowId: string } }>(
      await instances[1]!.client.callTool({ name: "record_feedback", arguments: { session_id: "audited", turn: 2, rating: -1 } }),
    );
    expect(rated.isError).toBe(false);
    expect(rated.body).toMatchObject({ linked: true, stored: true, record: { flowId: "f:chat" } });
    const flow = await instances[0]!.gateway.analytics.analyzeFlow({ flow_id: "f:chat", range: "1h" });
    expect(flow.feedback.count).toBe(1);
  });

  it("reports Redis in /readyz", async () => {
    const { http } = instances[0]!;
    const ready = (await (await fetch(`http://127.0.0.1:${http.port}/readyz`)).json()) as { ready: boolean; checks: { name: string; ok: boolean }[] };
    expect(ready.ready).toBe(true);
    expect(ready.checks).toContainEqual(expect.objectContaining({ name: "redis", ok: true }));
  });
});
