/**
 * With Redis configured, HTTP rate limits are shared by every gateway instance: two instances on
 * one Redis allow the limit once in total (per token, and for failed-auth guesses per client
 * address). With Redis killed (a private redis-server), each instance falls back to its own
 * in-process limiter: answers still come, 429s still come, and the log says so once.
 */
import { startRedisServer, type RedisServerHandle } from "@afw/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { testConfig, useTestRedis } from "../test/helpers.js";
import { createGatewayServer, type GatewayServer } from "./gateway-server.js";
import { startHttpTransport, type HttpTransportHandle } from "./http-transport.js";

const TOKEN = "afw-test-secret-bearer-shared-limit-01";
const BURST = 5;
const backend = createFakeBackend({ id: "f", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }] });
// One request per minute: no refill worth counting during a test.
const httpConfig = { authTokens: [{ token: TOKEN, name: "ops" }], rateLimit: { requestsPerMinute: 1, burst: BURST } };

type Instance = { gateway: GatewayServer; http: HttpTransportHandle };
const open = async (redisUrl: string, keyPrefix: string, logDestination?: { write(line: string): void }, operationTimeoutMs?: number): Promise<Instance> => {
  const gateway = await createGatewayServer({
    backends: [backend],
    config: testConfig({
      http: httpConfig,
      redis: { url: redisUrl, keyPrefix, ...(operationTimeoutMs ? { operationTimeoutMs } : {}) },
      ...(logDestination ? { logging: { level: "info" } } : {}),
    }),
    ...(logDestination ? { logDestination } : {}),
  });
  return { gateway, http: await startHttpTransport(gateway, { port: 0 }) };
};
const closeAll = async (instances: Instance[]) => {
  for (const { gateway, http } of instances) {
    await http.close();
    await gateway.close();
  }
};
const ping = async (instance: Instance, token: string) => {
  const response = await fetch(instance.http.url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  await response.body?.cancel();
  return { status: response.status, retryAfter: response.headers.get("retry-after") };
};

describe("two gateway instances on one Redis", () => {
  const redis = useTestRedis();
  const instances: Instance[] = [];
  beforeAll(async () => {
    instances.push(await open(redis.url, redis.prefix), await open(redis.url, redis.prefix));
  });
  afterAll(async () => {
    await closeAll(instances);
  });

  it("allow a token's burst once in total, not once per instance", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4 * BURST; i++) statuses.push((await ping(instances[i % 2]!, TOKEN)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(BURST);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3 * BURST);
  });

  it("count failed-auth guesses from one address together", async () => {
    const answers = [];
    for (let i = 0; i < 4 * BURST; i++) answers.push(await ping(instances[i % 2]!, `wrong-guess-${i}-000000000000000`));
    expect(answers.filter((a) => a.status === 401)).toHaveLength(BURST);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(3 * BURST);
    expect(Number(limited[0]!.retryAfter)).toBeGreaterThan(1);
  });
});

describe("an instance whose Redis is killed", () => {
  let server: RedisServerHandle;
  let instance: Instance;
  const lines: string[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
    // A generous bound while Redis is up: on a loaded machine the first take (connecting, loading the script) can pass the
    // default 100 ms, fall back to the local bucket and leave it one short. After the kill a client that was ready fails at once.
    instance = await open(server.url, "limit-outage:", { write: (line: string) => void lines.push(line) }, 5_000);
  }, 30_000);
  afterAll(async () => {
    if (instance) await closeAll([instance]);
    await server?.dispose();
  });

  it("falls back to its in-process limiter: still answers, still sends 429s, logs the switch once", async () => {
    // Three of the five taken from the shared bucket while Redis is up.
    for (let i = 0; i < 3; i++) expect((await ping(instance, TOKEN)).status).toBe(200);
    await server.stop({ kill: true });
    const answers = [];
    for (let i = 0; i < 3 * BURST; i++) answers.push(await ping(instance, TOKEN));
    // The local bucket was never drawn from (takes went to Redis): a full burst, then 429s.
    expect(answers.map((a) => a.status)).toEqual([...Array<number>(BURST).fill(200), ...Array<number>(2 * BURST).fill(429)]);
    expect(Number(answers.at(-1)!.retryAfter)).toBeGreaterThanOrEqual(1);
    const warnings = lines.filter((line) => (JSON.parse(line) as { level: number; msg: string }).level >= 40);
    expect(warnings.filter((line) => line.includes("Redis unavailable"))).toHaveLength(1);
  });
});
