import { TrainingExampleSchema } from "@afw/analytics";
import type { UniversalQueryResult } from "@afw/contracts";
import { deleteRedisKeys, getTestRedis, type TestRedis } from "@afw/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { parseResult, testConfig } from "../test/helpers.js";
import type { GatewayConfigInput } from "./config-schema.js";
import { createGatewayServer, type GatewayServer } from "./gateway-server.js";
import { startHttpTransport } from "./http-transport.js";
import { exportTraining } from "./training-export.js";

const ALICE = "afw-test-secret-export-alice-0001";
const OPERATOR = "afw-test-secret-export-operator-1";
const LEAKED = "sk-live-0123456789abcdefghijklmnop";

/** Started on first use by the Redis case; its keys are deleted at the end. */
let redis: TestRedis | undefined;
const keyPrefixes: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});
afterAll(async () => {
  for (const keyPrefix of keyPrefixes) await deleteRedisKeys(redis!.url, keyPrefix);
  await redis?.dispose();
});

async function start(stores: GatewayConfigInput): Promise<{ gateway: GatewayServer; url: string }> {
  const backends = [
    createFakeBackend({ id: "flowise", kind: "flowise", flows: [{ id: "chat", name: "Chat", intents: ["conversation"], generalPurpose: true }, { id: "docs", name: "Docs QA", intents: ["rag-retrieval"] }] }),
    createFakeBackend({ id: "langflow", kind: "langflow", flows: [{ id: "code", name: "Code doctor", intents: ["technical-analysis"] }] }),
  ];
  const gateway = await createGatewayServer({
    backends,
    config: testConfig({
      ...stores,
      cache: { enabled: false },
      routing: { elicitation: { direct: 1, confirm: 0, clarify: 0 } },
      http: { stateless: false, authTokens: [{ token: ALICE, name: "alice", tenant: "acme" }, { token: OPERATOR, name: "operator" }] },
    }),
  });
  cleanups.push(() => gateway.close());
  const http = await startHttpTransport(gateway, { port: 0 });
  cleanups.push(() => http.close());
  return { gateway, url: http.url };
}

/** A client declaring elicitation that always chooses `flow`. */
async function connect(url: string, token: string, flow: string) {
  const client = new Client({ name: "export-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { flow } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  cleanups.push(() => client.close());
  return async <T = Record<string, unknown>>(name: string, args: Record<string, unknown>) => {
    const { isError, body } = parseResult<T>(await client.callTool({ name, arguments: args }));
    expect(isError, JSON.stringify(body)).toBe(false);
    return body;
  };
}

const inMemory = async (): Promise<GatewayConfigInput> => ({});
const onRedis = async (): Promise<GatewayConfigInput> => {
  redis ??= await getTestRedis();
  const keyPrefix = redis.prefix();
  keyPrefixes.push(keyPrefix);
  return { redis: { url: redis.url, keyPrefix } };
};

describe.each([
  ["in-memory stores", inMemory],
  ["Redis", onRedis],
] as const)("training export (%s)", (_name, stores) => {
  it("round-trips decisions, elicited answers and feedback as JSONL, tenant-scoped and without secrets", async () => {
    const { gateway, url } = await start(await stores());
    const alice = await connect(url, ALICE, "flowise:docs");
    const operator = await connect(url, OPERATOR, "langflow:code");
    const elicited = await alice<UniversalQueryResult>("universal_query", { question: `Why does my function throw a TypeError with key ${LEAKED}?`, session_id: "alice-1" });
    expect(elicited._mcp_metadata.flow_id).toBe("flowise:docs");
    await alice("universal_query", { question: "Why does this stack trace mention a null pointer?", session_id: "alice-1", flow_id: "langflow:code" });
    await alice("record_feedback", { session_id: "alice-1", turn: 2, rating: 5 });
    await operator("universal_query", { question: "Why does the operator build fail?", session_id: "ops-1", backend: "langflow" });

    const lines = (await exportTraining(gateway, { tenant: "acme" })).map((example) => JSON.stringify(example)).join("\n");
    const examples = lines.split("\n").map((line) => TrainingExampleSchema.parse(JSON.parse(line)));
    expect(lines).not.toContain(LEAKED);
    expect(lines).not.toContain("operator build");
    const byLabel = Object.fromEntries(examples.map((example) => [example.label_source, example]));
    expect(examples).toHaveLength(2);
    expect(byLabel["elicitation"]).toMatchObject({ label_flow_id: "flowise:docs", flow_id: "flowise:docs", outcome: "answered", session_id: "alice-1", trace_id: elicited._mcp_metadata.trace_id });
    expect(byLabel["elicitation"]!.question).toContain("[REDACTED]");
    expect(byLabel["feedback"]).toMatchObject({ flow_id: "langflow:code", feedback_score: 1, intent: "technical-analysis" });

    const operatorExamples = await exportTraining(gateway, {});
    expect(operatorExamples.map((example) => example.question)).toEqual(["Why does the operator build fail?"]);
    expect(operatorExamples[0]!.label_source).toBe("router");
    expect(await exportTraining(gateway, { tenant: "acme", limit: 1 })).toHaveLength(1);
    expect(await exportTraining(gateway, { tenant: "acme", from: Date.now() + 60_000 })).toEqual([]);
  });
});

describe("training export options", () => {
  it.each([[{ limit: 0 }], [{ from: "yesterday" }], [{ tenant: "" }], [{ extra: true }], [{ from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z" }]])(
    "rejects %j with INVALID_INPUT",
    async (options) => {
      const { gateway } = await start({});
      await expect(exportTraining(gateway, options as never)).rejects.toMatchObject({ code: "INVALID_INPUT" });
    },
  );
});
