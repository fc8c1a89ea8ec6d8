/**
 * Through the MCP SDK client, against the local Flowise and Langflow reproductions: an explicit
 * backend or flow is binding unless `allow_fallback` is set, every fallback says so and why, and a
 * hung first choice leaves the fallback a turn inside the caller's timeout (issue 16, items 3-4).
 */
import { startFlowiseServer, startLangflowServer, type MockPlatformServer } from "@afw/backends/test/servers";
import type { UniversalQueryError, UniversalQueryResult } from "@afw/contracts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { callTool, startTestGateway } from "../test/helpers.js";

const id = (prefix: string, n: number) => `${prefix}0000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const CHAT = id("f", 1);
const DOCS = id("f", 2);
const TALK = id("a", 1);

let flowise: MockPlatformServer;
let langflow: MockPlatformServer;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  flowise = await startFlowiseServer({
    flows: [
      { id: CHAT, name: "Support Chat", streaming: false, answer: (input) => `[flowise chat] ${input.question}` },
      { id: DOCS, name: "Docs QA", streaming: false, answer: (input) => `[flowise docs] ${input.question}` },
    ],
  });
  langflow = await startLangflowServer({ flows: [{ id: TALK, name: "Talk", streaming: false, answer: (input) => `[langflow] ${input.question}` }] });
  gateway = await startTestGateway({
    config: {
      // Default timeouts (requestTimeoutMs 30 s) on purpose: the per-attempt budget must leave the fallback a turn.
      backends: [
        { id: "flowise", kind: "flowise", baseURL: flowise.url, flows: [{ id: CHAT, intents: ["conversation"] }, { id: DOCS, intents: ["rag-retrieval"] }] },
        { id: "langflow", kind: "langflow", baseURL: langflow.url, flows: [{ id: TALK, intents: ["technical-analysis"] }] },
      ],
      routing: { hedge: false, circuitBreaker: { failureThreshold: 2, cooldownMs: 600_000 } },
      cache: { enabled: false },
    },
  });
  await gateway.gateway.warmUp();
}, 60_000);

afterEach(() => {
  flowise.clearFaults();
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([flowise?.close(), langflow?.close()]);
});

type Meta = UniversalQueryResult["_mcp_metadata"] & { fallback_reason?: string };
const query = (args: Record<string, unknown>) => callTool<UniversalQueryResult & UniversalQueryError>(gateway.client, "universal_query", args);

describe("a hung first choice with default timeouts", () => {
  it("still yields the secondary's answer inside a 2 s query timeout", async () => {
    flowise.setFaults([{ route: "run", hang: true }]);
    const reply = await query({ question: "hello there", intent: "conversation", timeout: 2 });
    expect(reply.isError, reply.text).toBe(false);
    expect(reply.body.result).toBe("[langflow] hello there");
    const meta = reply.body._mcp_metadata as Meta;
    expect(meta).toMatchObject({ backend_used: "langflow", fallback_used: true, fallback_reason: "BACKEND_TIMEOUT", backends_tried: ["flowise", "langflow"] });
    // The timeout was not retried on the hung flow before the other backend got its turn.
    expect(flowise.requests.filter((r) => r.route === "run")).toHaveLength(1);
  });
});

describe("an explicit flow that fails", () => {
  it("is refused with FLOW_NOT_FOUND, and no other flow answers", async () => {
    flowise.setFaults([{ route: "run", flowId: DOCS, status: 404, message: "chatflow not found" }]);
    const langflowRuns = langflow.runs.length;
    const reply = await query({ question: "binding flow", flow_id: DOCS });
    expect(reply.isError).toBe(true);
    expect(reply.body.code, reply.text).toBe("FLOW_NOT_FOUND");
    expect(reply.body.backends_tried).toEqual(["flowise"]);
    expect(flowise.runs.filter((r) => r.flowId === CHAT)).toHaveLength(0);
    expect(langflow.runs.length).toBe(langflowRuns);
  });

  it("with allow_fallback is answered by another flow, with fallback_used and the reason", async () => {
    flowise.setFaults([{ route: "run", flowId: DOCS, status: 404, message: "chatflow not found" }]);
    const reply = await query({ question: "fallback flow", flow_id: DOCS, allow_fallback: true });
    expect(reply.isError, reply.text).toBe(false);
    const meta = reply.body._mcp_metadata as Meta;
    expect(meta.flow_id).not.toBe(`flowise:${DOCS}`);
    expect(meta).toMatchObject({ fallback_used: true, fallback_reason: "FLOW_NOT_FOUND" });
    expect(meta.backends_tried[0]).toBe("flowise");
  });
});

describe("an explicit backend whose circuit is open", () => {
  it("is refused with CIRCUIT_OPEN (universal_query and flowise_query), or answered elsewhere with allow_fallback and said so", async () => {
    flowise.setFaults([{ route: "run", status: 500, message: "boom" }]);
    // Binding failures open the circuit (threshold 2: the attempt and its retry).
    const failed = await query({ question: "opening the circuit", backend: "flowise" });
    expect(failed.isError).toBe(true);
    expect(failed.body.code).not.toBe("ALL_BACKENDS_FAILED");
    expect(failed.body.backends_tried).toEqual(["flowise"]);
    const runs = flowise.requests.filter((r) => r.route === "run").length;

    const refused = await query({ question: "binding backend", backend: "flowise" });
    expect(refused.isError).toBe(true);
    expect(refused.body.code).toBe("CIRCUIT_OPEN");
    expect(refused.body.error).toContain("allow_fallback");
    const legacy = await callTool<UniversalQueryError>(gateway.client, "flowise_query", { question: "legacy binding" });
    expect(legacy.isError).toBe(true);
    expect(legacy.body.code).toBe("CIRCUIT_OPEN");

    const fallback = await query({ question: "may fall back", backend: "flowise", allow_fallback: true });
    expect(fallback.isError, fallback.text).toBe(false);
    expect(fallback.body._mcp_metadata as Meta).toMatchObject({
      backend_used: "langflow",
      fallback_used: true,
      fallback_reason: "CIRCUIT_OPEN",
      backends_tried: ["flowise", "langflow"],
    });
    const legacyFallback = await callTool<UniversalQueryResult>(gateway.client, "flowise_query", { question: "legacy may fall back", allow_fallback: true });
    expect(legacyFallback.isError, legacyFallback.text).toBe(false);
    expect(legacyFallback.body._mcp_metadata).toMatchObject({ backend_used: "langflow", fallback_used: true });
    // The open circuit kept every one of these away from Flowise.
    expect(flowise.requests.filter((r) => r.route === "run").length).toBe(runs);
  });
});
