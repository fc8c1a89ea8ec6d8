/**
 * The dashboard's analytics endpoints through the gateway's HTTP transport, with real gateway
 * data: queries sent over MCP (Streamable HTTP) are routed to the local Flowise and Langflow
 * reproductions (one Flowise flow fails half its runs), then the endpoints report them.
 */
import { createLearnedRoutingPrior } from "@afw/analytics";
import { parseCsv } from "@afw/analytics/test";
import { startFlowiseServer, startLangflowServer, type MockFlowDefinition, type MockPlatformServer } from "@afw/backends/test/servers";
import { flowKey, type UniversalQueryResult } from "@afw/contracts";
import { renderIntentPatternsYaml } from "@afw/dashboard";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, testConfig } from "../test/helpers.js";
import { GatewayConfigSchema } from "./config-schema.js";
import { createGatewayServer, type GatewayServer } from "./gateway-server.js";
import { startHttpTransport, type HttpTransportHandle } from "./http-transport.js";

const TOKEN = "afw-test-secret-dashboard-analytics-0123456789";
const TENANT_TOKEN = "afw-test-secret-dashboard-tenant-0123456789ab";
const id = (prefix: string, n: number) => `${prefix}0000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const FLAKY = id("f", 1);
const CHAT = id("f", 2);
const STEADY = id("a", 1);
const key = { flaky: flowKey("flowise", FLAKY), chat: flowKey("flowise", CHAT), steady: flowKey("langflow", STEADY) };
const TECHNICAL_QUERIES = 16;
const CHAT_QUERIES = 6;

const answer = (name: string) => (input: { question: string }) => `[${name}] ${input.question}`;
const flowiseFlows: MockFlowDefinition[] = [
  { id: FLAKY, name: "Code Reviewer", description: "Reviews code", tags: ["code"], streaming: false, answer: answer("Code Reviewer") },
  { id: CHAT, name: "Support Chat", description: "Everyday conversation", tags: ["chat"], streaming: false, answer: answer("Support Chat") },
];
const langflowFlows: MockFlowDefinition[] = [{ id: STEADY, name: "Engineering Helper", description: "Helps engineers", tags: ["helper"], streaming: false, answer: answer("Engineering Helper") }];

let flowise: MockPlatformServer;
let langflow: MockPlatformServer;
let gateway: GatewayServer;
let http: HttpTransportHandle;
let client: Client;
let base: string;
/** What the queries observed, to check the reports against. */
const seen = { queries: 0, answered: 0, fallbacks: 0, flakyFallbacks: 0, flakyFirst: 0, byFlow: new Map<string, number>(), experiment: { control: 0, variant: 0 } };

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** The response, with its text and (for a JSON response) the parsed body. */
async function get(path: string, token = TOKEN): Promise<{ status: number; body: any; text: string; headers: Headers }> {
  const response = await fetch(`${base}${path}`, { headers: bearer(token) });
  const text = await response.text();
  const json = response.headers.get("content-type")?.includes("json") === true;
  return { status: response.status, body: json ? JSON.parse(text) : undefined, text, headers: response.headers };
}

beforeAll(async () => {
  flowise = await startFlowiseServer({ flows: flowiseFlows, seed: 11 });
  langflow = await startLangflowServer({ flows: langflowFlows });
  flowise.setFaults([{ route: "run", flowId: FLAKY, status: 503, message: "upstream overloaded", probability: 0.5 }]);
  gateway = await createGatewayServer({
    config: testConfig({
      backends: [
        { id: "flowise", kind: "flowise", baseURL: flowise.url, flows: [{ id: FLAKY, intents: ["technical-analysis"] }, { id: CHAT, intents: ["conversation"] }] },
        { id: "langflow", kind: "langflow", baseURL: langflow.url, flows: [{ id: STEADY, intents: ["structural-thinking", "technical-analysis"] }] },
      ],
      routing: { retries: 0, hedge: false, circuitBreaker: { failureThreshold: 1_000, cooldownMs: 1_000 } },
      cache: { enabled: false },
      tools: { embedder: "hashing" },
      http: { authTokens: [TOKEN, { token: TENANT_TOKEN, name: "acme-ci", tenant: "acme" }] },
      analytics: {
        experiments: [{ id: "hedge-chat", intent: "conversation", share: 0.5, variant: { strategy: "hedge", label: "hedged" } }],
      },
    }),
    // Learns from a handful of outcomes (the gateway's own prior waits for 20).
    learnedPrior: createLearnedRoutingPrior({ minSamples: 4 }),
  });
  http = await startHttpTransport(gateway, { port: 0 });
  base = new URL(http.url).origin;
  client = new Client({ name: "dashboard-analytics-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: bearer(TOKEN) } }));

  const ask = async (args: Record<string, unknown>) => {
    const result = await callTool<UniversalQueryResult>(client, "universal_query", args);
    seen.queries++;
    if (result.isError) return undefined;
    const meta = result.body._mcp_metadata;
    seen.answered++;
    if (meta.fallback_used) seen.fallbacks++;
    seen.byFlow.set(meta.flow_id, (seen.byFlow.get(meta.flow_id) ?? 0) + 1);
    return meta;
  };
  for (let i = 0; i < TECHNICAL_QUERIES; i++) {
    const meta = await ask({ question: `Review this function, attempt ${i}: why does it throw a null pointer?`, intent: "technical-analysis" });
    if (meta && (meta.flow_id === key.flaky || meta.fallback_used)) seen.flakyFirst++;
    // Only technical queries fall back from the flaky flow. (A hedged chat query of the experiment's
    // variant arm also reports a fallback when its hedge answers first: a race, not a failure.)
    if (meta?.fallback_used) seen.flakyFallbacks++;
  }
  for (let i = 0; i < CHAT_QUERIES; i++) {
    const meta = await ask({ question: `Hello there, how is your day going, friend number ${i}?`, intent: "conversation", session_id: `chat-session-${i}` });
    const arm = (meta as { routing_experiment?: { arm?: string } } | undefined)?.routing_experiment?.arm;
    if (arm === "control" || arm === "variant") seen.experiment[arm]++;
  }
}, 60_000);

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await http?.close();
  await gateway?.close();
  await Promise.all([flowise?.close(), langflow?.close()]);
});

describe("dashboard analytics endpoints over the gateway's HTTP transport", () => {
  it("lists the analytics sections in the overview", async () => {
    const { status, body } = await get("/api/overview");
    expect(status).toBe(200);
    expect(body.sections).toMatchObject({ analytics: true, flowAnalysis: true, patterns: true, learnedPrior: true, metricsExport: true });
  });

  it("summarises the queries that went through the gateway", async () => {
    const { status, body } = await get("/api/analytics/summary?range=1h");
    expect(status).toBe(200);
    const { totals, topFlows, intents, experiments } = body.summary;
    expect(totals.queries).toBe(seen.queries);
    expect(totals.answered).toBe(seen.answered);
    expect(totals.fallbackQueries).toBe(seen.fallbacks);
    expect(seen.flakyFallbacks).toBeGreaterThan(0);
    expect(totals.successRate).toBeCloseTo(seen.answered / seen.queries, 4);
    const flaky = topFlows.find((flow: { flowId: string }) => flow.flowId === key.flaky);
    expect(flaky.queries).toBe(seen.flakyFirst);
    expect(flaky.failures).toBe(seen.flakyFallbacks);
    expect(flaky.fallbacksFrom).toBe(seen.flakyFallbacks);
    expect(flaky.answered).toBe(seen.byFlow.get(key.flaky) ?? 0);
    expect(flaky.latency.p50Ms).toEqual(expect.any(Number));
    expect(intents.map((intent: { intent: string; queries: number }) => [intent.intent, intent.queries])).toEqual([
      ["technical-analysis", TECHNICAL_QUERIES],
      ["conversation", CHAT_QUERIES],
    ]);
    // the A/B arms as the answers reported them
    expect(experiments).toHaveLength(1);
    expect(experiments[0]).toMatchObject({ experimentId: "hedge-chat", control: { queries: seen.experiment.control }, variant: { queries: seen.experiment.variant } });
    expect(seen.experiment.control + seen.experiment.variant).toBe(CHAT_QUERIES);
    const top = await get("/api/analytics/summary?range=1h&top=1");
    expect(top.body.summary.topFlows).toHaveLength(1);
  });

  it("analyses the flaky flow with its fallbacks and a recommendation", async () => {
    const { status, body } = await get(`/api/analytics/flows/${encodeURIComponent(key.flaky)}?range=1h`);
    expect(status).toBe(200);
    const analysis = body.analysis;
    expect(analysis.flowId).toBe(key.flaky);
    expect(analysis.fallback.asSource.queries).toBe(seen.flakyFallbacks);
    expect(analysis.fallback.asSource.share).toBeCloseTo(seen.flakyFallbacks / seen.flakyFirst, 3);
    expect(analysis.recommendations.map((r: { kind: string }) => r.kind)).toEqual(expect.arrayContaining(["fallback-source"]));
    expect(analysis.recommendations.every((r: { message: string }) => typeof r.message === "string" && r.message.length > 0)).toBe(true);
  });

  it("shows the learned prior's adjustments, the flaky flow demoted for technical-analysis", async () => {
    const { status, body } = await get("/api/analytics/learned?intent=technical-analysis");
    expect(status).toBe(200);
    expect(body.learned.maxAdjustment).toBe(0.15);
    const flaky = body.learned.adjustments.find((entry: { flowId: string }) => entry.flowId === key.flaky);
    expect(flaky).toMatchObject({ intent: "technical-analysis" });
    expect(flaky.samples).toBeCloseTo(seen.flakyFirst, 0);
    expect(flaky.flowMatch).toBeLessThan(0);
    expect(flaky.flowMatch).toBeGreaterThanOrEqual(-0.15);
    expect(flaky.reason).toMatch(/^learned prior for technical-analysis on flowise:/);
    // the same numbers explain_routing would use
    const adjustment = gateway.learning.prior!.adjust("technical-analysis", key.flaky);
    expect(flaky.flowMatch).toBe(adjustment.flow_match);
    const other = await get("/api/analytics/learned?intent=conversation");
    expect(other.body.learned.adjustments.every((entry: { intent: string }) => entry.intent === "conversation")).toBe(true);
  });

  it("runs the pattern analysis over the gateway's questions, with a YAML fragment the configuration accepts", async () => {
    const { status, body } = await get("/api/analytics/patterns?range=1h");
    expect(status).toBe(200);
    const patterns = body.patterns;
    expect(patterns.queries).toBe(seen.queries);
    expect(patterns.questionsAnalysed).toBe(seen.queries);
    // the repeated technical question forms a cluster
    expect(patterns.clusters[0].size).toBeGreaterThanOrEqual(3);
    expect(patterns.clusters[0].representative).toMatch(/Review this function|Hello there/);
    expect(body.intentPatternsYaml).toBe(renderIntentPatternsYaml(patterns.proposals, { label: "the last 1h" }));
    const yaml = renderIntentPatternsYaml([{ kind: "intent-pattern", intent: "technical-analysis", keywords: patterns.clusters[0].keywords, support: 3, reason: "test" }]);
    expect(yaml).toBeDefined();
    // what the operator pastes is a valid `routing.intentPatterns`
    const parsed = GatewayConfigSchema.parse({ ...(parseYaml(yaml!) as object) });
    expect(Object.keys(parsed.routing.intentPatterns)).toEqual(["technical-analysis"]);
  });

  it("exports metrics as JSON and CSV that parse, with the same numbers", async () => {
    const json = await get("/api/analytics/export?range=1h&format=json&groupBy=flow");
    expect(json.status).toBe(200);
    expect(json.headers.get("content-disposition")).toBe('attachment; filename="afw-metrics-flow-1h.json"');
    const flakyRow = json.body.rows.find((row: { group: string }) => row.group === key.flaky);
    expect(flakyRow).toMatchObject({ queries: seen.flakyFirst, fallbacks_from: seen.flakyFallbacks, attempt_failures: seen.flakyFallbacks });
    const csv = await get("/api/analytics/export?range=1h&format=csv&groupBy=intent");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const [header, ...rows] = parseCsv(csv.text);
    expect(header).toEqual(json.body.columns);
    const queriesColumn = header!.indexOf("queries");
    expect(Object.fromEntries(rows.map((row) => [row[0], Number(row[queriesColumn])]))).toEqual({ "technical-analysis": TECHNICAL_QUERIES, conversation: CHAT_QUERIES });
  });

  it("validates parameters and keeps the analytics behind the bearer token, refused to tenant tokens", async () => {
    const bad = await get("/api/analytics/summary?range=30d");
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("INVALID_INPUT");
    expect((await fetch(`${base}/api/analytics/summary`)).status).toBe(401);
    const tenant = await get("/api/analytics/summary", TENANT_TOKEN);
    expect(tenant.status).toBe(403);
    expect(tenant.text).not.toContain("queries");
    expect((await get("/api/analytics/export?format=csv", TENANT_TOKEN)).status).toBe(403);
  });
});

describe("dashboard history search over the gateway's HTTP transport", () => {
  it("searches the store search_history reads, within the token's tenant only", async () => {
    const tenantClient = new Client({ name: "dashboard-history-tenant", version: "1.0.0" });
    await tenantClient.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: bearer(TENANT_TOKEN) } }));
    try {
      const asked = await callTool<UniversalQueryResult>(tenantClient, "universal_query", {
        question: "Hello there, which runbook covers the falcon rollout?",
        intent: "conversation",
        session_id: "acme-falcon-1",
        tags: ["project:falcon"],
      });
      expect(asked.isError).toBeFalsy();
    } finally {
      await tenantClient.close().catch(() => undefined);
    }
    // the untenanted token sees its own chat sessions, not the tenant's turn
    const own = await get("/api/history?q=hello%20friend&limit=50");
    expect(own.status).toBe(200);
    expect(own.body.configured).toBe(true);
    const ownSessions = new Set(own.body.hits.map((hit: { sessionId: string }) => hit.sessionId));
    expect([...ownSessions].every((sessionId) => String(sessionId).startsWith("chat-session-"))).toBe(true);
    expect(ownSessions.size).toBe(CHAT_QUERIES);
    // the tenant token finds its turn by tag and text, and nothing of the other tenant
    const tenant = await get("/api/history?q=hello&tag=project%3Afalcon", TENANT_TOKEN);
    expect(tenant.status).toBe(200);
    expect(tenant.body.hits).toHaveLength(1);
    expect(tenant.body.hits[0]).toMatchObject({ sessionId: "acme-falcon-1", turn: { tags: ["project:falcon"], question: "Hello there, which runbook covers the falcon rollout?" } });
    expect((await get("/api/history?q=hello&limit=50", TENANT_TOKEN)).body.hits.map((hit: { sessionId: string }) => hit.sessionId)).toEqual(["acme-falcon-1"]);
    // other dashboard endpoints still span every tenant: refused to the tenant token
    expect((await get("/api/queries", TENANT_TOKEN)).status).toBe(403);
    expect((await get("/api/history?tag=not%20a%20tag", TENANT_TOKEN)).status).toBe(400);
  });
});
