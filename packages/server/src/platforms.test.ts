/**
 * End-to-end through the real `@afw/backends` adapters against the local Flowise and Langflow
 * reproductions of `@afw/backends/test/servers`, over Streamable HTTP.
 */
import type { UniversalQueryResult } from "@afw/contracts";
import { demoFlows, startFlowiseServer, startLangflowServer, type MockPlatformServer } from "@afw/backends/test/servers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closeAfter, parseResult, testConfig } from "../test/helpers.js";
import { parseGatewayConfig } from "./config-loader.js";
import { createGatewayServer, type GatewayServer } from "./gateway-server.js";
import { startHttpTransport, type HttpTransportHandle } from "./http-transport.js";

const FLOWISE_KEY = "afw-test-secret-flowise-platform-key-0001";
const LANGFLOW_KEY = "afw-test-secret-langflow-platform-key-0002";
const TOKEN = "afw-test-secret-gateway-token-0123456789";

let flowise: MockPlatformServer;
let langflow: MockPlatformServer;
let gateway: GatewayServer;
let http: HttpTransportHandle;
let client: Client;
const flowiseFlows = demoFlows("f");
const langflowFlows = demoFlows("a");
const fid = (name: string) => flowiseFlows.find((f) => f.name === name)!.id;
const lid = (name: string) => langflowFlows.find((f) => f.name === name)!.id;

const track = closeAfter(afterAll);
beforeAll(async () => {
  flowise = track(await startFlowiseServer({ flows: flowiseFlows, apiKey: FLOWISE_KEY }));
  langflow = track(await startLangflowServer({ flows: langflowFlows, apiKey: LANGFLOW_KEY }));
  // Environment overrides feed the backends, as `afw serve` would.
  const config = parseGatewayConfig(
    testConfig({
      backends: [{ id: "flowise", kind: "flowise", baseURL: "http://127.0.0.1:1", flows: [{ id: fid("Docs QA"), intents: ["rag-retrieval"], cacheClass: "technical" }] }],
      http: { authTokens: [TOKEN] },
      backendConnect: { allowedHosts: ["127.0.0.1"] },
    }),
    { env: { FLOWISE_BASE_URL: flowise.url, FLOWISE_API_KEY: FLOWISE_KEY, LANGFLOW_BASE_URL: langflow.url, LANGFLOW_API_KEY: LANGFLOW_KEY } },
  );
  gateway = track(await createGatewayServer(config));
  http = track(await startHttpTransport(gateway, { port: 0 }));
  client = track(new Client({ name: "platforms-test", version: "1.0.0" }));
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
});


afterEach(() => {
  flowise.clearFaults();
  langflow.clearFaults();
});

async function ask(args: Record<string, unknown>, onprogress?: (message: string) => void) {
  const raw = await client.callTool({ name: "universal_query", arguments: args }, undefined, onprogress ? { onprogress: (p) => onprogress(p.message ?? "") } : undefined);
  return parseResult<UniversalQueryResult & { code?: string }>(raw);
}

describe("against the local Flowise and Langflow reproductions", () => {
  it("discovers both platforms' flows, merged with the configured registry", async () => {
    const { body } = parseResult<{ count: number; flows: { id: string; backend_kind: string; intents: string[]; cache_class?: string }[] }>(
      await client.callTool({ name: "list_flows", arguments: {} }),
    );
    expect(body.count).toBe(flowiseFlows.length + langflowFlows.length);
    const docs = body.flows.find((f) => f.id === `flowise:${fid("Docs QA")}`)!;
    expect(docs.intents[0]).toBe("rag-retrieval");
    expect(docs.cache_class).toBe("technical");
    expect(new Set(body.flows.map((f) => f.backend_kind))).toEqual(new Set(["flowise", "langflow"]));
  });

  it("answers through the routed platform with the platform's key, and never shows the keys", async () => {
    const { isError, body, text } = await ask({ question: "What does the documentation say about routing? cite sources", intent: "rag-retrieval", backend: "flowise" });
    expect(isError).toBe(false);
    expect(body.result).toContain("[Docs QA]");
    expect(body._mcp_metadata.flow_id).toBe(`flowise:${fid("Docs QA")}`);
    expect(body.sources?.length).toBeGreaterThan(0);
    const run = flowise.runs.at(-1)!;
    expect(run.flowId).toBe(fid("Docs QA"));
    expect(flowise.authKeyOf(flowise.requests.at(-1)!)).toBe(FLOWISE_KEY);
    expect(text).not.toContain(FLOWISE_KEY);
    const status = parseResult(await client.callTool({ name: "backend_status", arguments: {} }));
    expect(status.text).not.toContain(FLOWISE_KEY);
    expect(status.text).not.toContain(LANGFLOW_KEY);
  });

  it("keeps a session across turns on the platform", async () => {
    const first = await ask({ question: "Let's debug a stack trace", flow_id: `langflow:${lid("Code Assistant")}`, session_id: "platform-session" });
    expect(first.body.result).toContain("(turn 1)");
    const second = await ask({ question: "And the next exception?", flow_id: `langflow:${lid("Code Assistant")}`, session_id: "platform-session" });
    expect(second.body.result).toContain("(turn 2)");
  });

  it("streams tokens from a streaming Flowise flow as progress notifications", async () => {
    const tokens: string[] = [];
    const { body } = await ask({ question: "Tell me a story about a lighthouse", flow_id: `flowise:${fid("Creative Writer")}`, parameters: { stream: true } }, (m) => tokens.push(m));
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.join("")).toBe(body.result);
  });

  it("falls back to the other platform when one fails, visible in the metadata", async () => {
    flowise.setFaults([{ route: "run", status: 503, message: "overloaded" }]);
    const { isError, body } = await ask({ question: "hello, how are you today?", intent: "conversation" });
    expect(isError).toBe(false);
    expect(body._mcp_metadata.backends_tried).toEqual(["flowise", "langflow"]);
    expect(body._mcp_metadata).toMatchObject({ backend_used: "langflow", fallback_used: true });
    expect(body.result).toContain("[General Chat]");
  });

  it("classifies with @afw/router and explains the ranking without running anything", async () => {
    const runsBefore = flowise.runs.length + langflow.runs.length;
    const { body } = parseResult<{ classification: { intent: string; method: string }; decision: { candidates: { backendId: string; score: number }[]; chosen: { backendId: string } | null } }>(
      await client.callTool({ name: "explain_routing", arguments: { question: "Why does my TypeScript build throw TS2345 and a stack trace?" } }),
    );
    expect(body.classification.intent).toBe("technical-analysis");
    expect(body.decision.chosen).not.toBeNull();
    expect(body.decision.candidates.length).toBeGreaterThan(1);
    expect(flowise.runs.length + langflow.runs.length).toBe(runsBefore);
  });

  it("adds a platform at run time with backend_connect and routes to it", async () => {
    const extra = await startLangflowServer({ flows: demoFlows("b") });
    try {
      const connected = parseResult(await client.callTool({ name: "backend_connect", arguments: { id: "langflow-extra", kind: "langflow", baseURL: extra.url } }));
      expect(connected.isError).toBe(false);
      expect(connected.body["flows"]).toBe(7);
      const { body } = await ask({ question: "hello from the new platform", backend: "langflow-extra" });
      expect(body._mcp_metadata.backend_used).toBe("langflow-extra");
      expect(extra.runs).toHaveLength(1);
    } finally {
      await extra.close();
    }
  });

  it("reports a typed error when every platform fails", async () => {
    flowise.setFaults([{ route: "run", reset: true }]);
    langflow.setFaults([{ route: "run", status: 500, message: "boom" }]);
    const { isError, body } = await ask({ question: "a question nobody can answer right now", intent: "conversation" });
    expect(isError).toBe(true);
    expect(body.code).toBe("ALL_BACKENDS_FAILED");
  });
});
