import { describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  BackendHealthSchema,
  FlowExecutionRequestSchema,
  SearchToolsInputSchema,
  SearchWorkflowCatalogInputSchema,
  ToolDescriptorSchema,
  UniversalFlowSchema,
  UniversalQueryErrorSchema,
  UniversalQueryInputSchema,
  UniversalQueryResultSchema,
  WorkflowDescriptorSchema,
  CacheEntrySchema,
  SessionTurnSchema,
  formatZodError,
  MAX_QUESTION_LENGTH,
} from "./index.js";
import { FlowStreamChunkSchema } from "./backend.js";
import { IntentClassificationSchema } from "./intent.js";
import { RoutingDecisionSchema } from "./routing.js";

type Case = { name: string; value: unknown; ok: boolean; message?: RegExp };

function runTable(schema: z.ZodType, cases: Case[]) {
  it.each(cases)("$name", ({ value, ok, message }) => {
    const result = schema.safeParse(value);
    expect(result.success).toBe(ok);
    if (!ok && message) {
      expect(formatZodError(result.error!)).toMatch(message);
    }
  });
}

const now = new Date().toISOString();
const breakdown = { flow_match: 1, health: 1, performance: 0.5, capability: 0.7 };
const metadata = {
  backend_used: "flowise",
  flow_id: "flowise:abc",
  flow_name: "Support bot",
  routing_score: 0.87,
  routing_breakdown: breakdown,
  intent_classified: "conversation",
  intent_confidence: 0.9,
  execution_time_ms: 120,
  fallback_used: false,
  attempt: 1,
  cache_hit: false,
  trace_id: "t-1",
};

describe("UniversalQueryInputSchema", () => {
  runTable(UniversalQueryInputSchema, [
    { name: "minimal question", value: { question: "hi" }, ok: true },
    {
      name: "all fields",
      value: {
        question: "why?",
        intent: "technical-analysis",
        backend: "langflow",
        flow_id: "lf:1",
        session_id: "user-1:2026",
        parameters: { temperature: 0.2, max_tokens: 100, stream: true },
        timeout: 120,
      },
      ok: true,
    },
    { name: "intent auto", value: { question: "x", intent: "auto" }, ok: true },
    { name: "missing question", value: {}, ok: false, message: /question/ },
    { name: "blank question", value: { question: "   " }, ok: false, message: /must not be empty/ },
    { name: "question too long", value: { question: "a".repeat(MAX_QUESTION_LENGTH + 1) }, ok: false, message: /at most/ },
    { name: "unknown intent", value: { question: "x", intent: "poetry" }, ok: false, message: /intent/ },
    { name: "temperature above 2", value: { question: "x", parameters: { temperature: 2.5 } }, ok: false, message: /parameters\.temperature/ },
    { name: "max_tokens 0", value: { question: "x", parameters: { max_tokens: 0 } }, ok: false, message: /max_tokens/ },
    { name: "fractional max_tokens", value: { question: "x", parameters: { max_tokens: 1.5 } }, ok: false },
    { name: "timeout 0", value: { question: "x", timeout: 0 }, ok: false, message: /timeout/ },
    { name: "timeout 121", value: { question: "x", timeout: 121 }, ok: false, message: /timeout/ },
    { name: "session id with spaces", value: { question: "x", session_id: "a b" }, ok: false, message: /session_id/ },
    { name: "unknown parameter", value: { question: "x", parameters: { top_p: 1 } }, ok: false, message: /top_p/ },
    { name: "unknown field", value: { question: "x", foo: 1 }, ok: false, message: /foo/ },
    { name: "question not a string", value: { question: 42 }, ok: false, message: /question/ },
  ]);

  it("applies defaults", () => {
    expect(UniversalQueryInputSchema.parse({ question: "hi" })).toEqual({ question: "hi", intent: "auto", backend: "auto", timeout: 30 });
  });
});

describe("UniversalQueryResultSchema / UniversalQueryErrorSchema", () => {
  runTable(UniversalQueryResultSchema, [
    { name: "result with metadata", value: { result: "hello", session_id: "s", _mcp_metadata: metadata }, ok: true },
    { name: "semantic cache hit", value: { result: "x", _mcp_metadata: { ...metadata, cache_hit: "semantic", cache_similarity: 0.97 } }, ok: true },
    { name: "missing metadata", value: { result: "x" }, ok: false, message: /_mcp_metadata/ },
    { name: "attempt 0", value: { result: "x", _mcp_metadata: { ...metadata, attempt: 0 } }, ok: false, message: /attempt/ },
    { name: "breakdown out of range", value: { result: "x", _mcp_metadata: { ...metadata, routing_breakdown: { ...breakdown, health: 2 } } }, ok: false, message: /health/ },
  ]);
  runTable(UniversalQueryErrorSchema, [
    {
      name: "all backends failed",
      value: { error: "all failed", code: "ALL_BACKENDS_FAILED", attempts: 3, backends_tried: ["a", "b"], last_error: "timeout", _mcp_metadata: { trace_id: "t", execution_time_ms: 3 } },
      ok: true,
    },
    { name: "unknown code", value: { error: "x", code: "OOPS", attempts: 0, backends_tried: [], _mcp_metadata: { trace_id: "t", execution_time_ms: 0 } }, ok: false, message: /code/ },
  ]);
});

describe("backend schemas", () => {
  runTable(BackendHealthSchema, [
    { name: "healthy", value: { backendId: "f", kind: "flowise", status: "healthy", latencyMs: 3, checkedAt: now }, ok: true },
    { name: "custom kind", value: { backendId: "d", kind: "dify", status: "down", latencyMs: 0, checkedAt: now, message: "refused" }, ok: true },
    { name: "bad status", value: { backendId: "f", kind: "flowise", status: "meh", latencyMs: 3, checkedAt: now }, ok: false, message: /status/ },
    { name: "upper-case kind", value: { backendId: "f", kind: "Flowise", status: "healthy", latencyMs: 3, checkedAt: now }, ok: false, message: /lower-case/ },
    { name: "not a date", value: { backendId: "f", kind: "flowise", status: "healthy", latencyMs: 3, checkedAt: "yesterday" }, ok: false, message: /checkedAt/ },
  ]);
  runTable(UniversalFlowSchema, [
    { name: "minimal flow", value: { id: "f:1", backendId: "f", backendKind: "flowise", backendFlowId: "1", name: "Bot", intents: [] }, ok: true },
    { name: "bad intent", value: { id: "f:1", backendId: "f", backendKind: "flowise", backendFlowId: "1", name: "Bot", intents: ["x"] }, ok: false, message: /intents/ },
    { name: "empty id", value: { id: "", backendId: "f", backendKind: "flowise", backendFlowId: "1", name: "Bot", intents: [] }, ok: false, message: /id/ },
  ]);
  it("fills flow defaults", () => {
    const flow = UniversalFlowSchema.parse({ id: "f:1", backendId: "f", backendKind: "flowise", backendFlowId: "1", name: "Bot", intents: [] });
    expect(flow).toMatchObject({ cacheable: true, generalPurpose: false, tags: [], source: "discovered" });
  });
  runTable(FlowExecutionRequestSchema, [
    { name: "with history", value: { flowId: "1", question: "q", history: [{ role: "user", content: "a" }, { role: "assistant", content: "b" }] }, ok: true },
    { name: "bad role", value: { flowId: "1", question: "q", history: [{ role: "bot", content: "a" }] }, ok: false, message: /history\.0\.role/ },
    { name: "empty question", value: { flowId: "1", question: "" }, ok: false, message: /question/ },
  ]);
  runTable(FlowStreamChunkSchema, [
    { name: "token", value: { type: "token", text: "He" }, ok: true },
    { name: "end", value: { type: "end", result: { text: "Hello", backendId: "f", flowId: "1", raw: {} } }, ok: true },
    { name: "token without text", value: { type: "token" }, ok: false, message: /text/ },
    { name: "unknown type", value: { type: "error", message: "x" }, ok: false },
  ]);
});

describe("routing schemas", () => {
  const decision = {
    intent: "rag-retrieval",
    confidence: 0.8,
    confidenceLevel: "high",
    method: "hybrid",
    weights: { flow_match: 0.4, health: 0.3, performance: 0.2, capability: 0.1 },
    candidates: [
      { backendId: "lf", backendKind: "langflow", flowId: "lf:1", backendFlowId: "1", flowName: "Docs", score: 0.9, breakdown, rank: 1 },
    ],
    chosen: { backendId: "lf", flowId: "lf:1", backendFlowId: "1" },
    strategy: "direct",
    reason: "best score",
  };
  runTable(RoutingDecisionSchema, [
    { name: "decision", value: decision, ok: true },
    { name: "nothing chosen", value: { ...decision, candidates: [], chosen: null }, ok: true },
    { name: "confidence above 1", value: { ...decision, confidence: 1.2 }, ok: false, message: /confidence/ },
    { name: "rank 0", value: { ...decision, candidates: [{ ...decision.candidates[0], rank: 0 }] }, ok: false, message: /rank/ },
    {
      name: "adjusted candidate in an experiment arm",
      value: {
        ...decision,
        candidates: [
          {
            ...decision.candidates[0],
            adjustment: { source: "learned-prior", original: { flow_match: 1, performance: 0.5 }, delta: { flow_match: -0.1, performance: -0.05 }, reason: "fails often" },
          },
        ],
        experiment: { experimentId: "hedge-rag", arm: "variant", label: "hedged" },
      },
      ok: true,
    },
    {
      name: "adjustment delta above 1",
      value: { ...decision, candidates: [{ ...decision.candidates[0], adjustment: { source: "x", original: { flow_match: 1, performance: 0.5 }, delta: { flow_match: 2, performance: 0 }, reason: "" } }] },
      ok: false,
      message: /adjustment\.delta\.flow_match/,
    },
    { name: "unknown arm", value: { ...decision, experiment: { experimentId: "x", arm: "treatment" } }, ok: false, message: /experiment\.arm/ },
  ]);
  runTable(IntentClassificationSchema, [
    { name: "classification", value: { intent: "conversation", confidence: 0.5, method: "semantic", alternatives: [{ intent: "rag-retrieval", confidence: 0.3 }] }, ok: true },
    { name: "bad method", value: { intent: "conversation", confidence: 0.5, method: "guess", alternatives: [] }, ok: false, message: /method/ },
  ]);
});

describe("catalog schemas", () => {
  runTable(ToolDescriptorSchema, [
    { name: "tool", value: { server: "github", name: "merge_pull_request", description: "Merge a PR", inputSchema: { type: "object" } }, ok: true },
    { name: "no server", value: { name: "x" }, ok: false, message: /server/ },
  ]);
  const workflow = {
    workflow_id: "oomkilled-raise-memory",
    version: "1.0.0",
    title: "Raise memory limit",
    description: "Pod killed for exceeding its memory limit",
    signal_types: ["OOMKilled"],
    labels: { severity: ["critical", "high"], environment: ["production"] },
    steps: [{ name: "inspect", action: "kubectl describe pod" }],
    estimated_duration: "10m",
    risk_level: "medium",
    success_rate: 0.92,
  };
  runTable(WorkflowDescriptorSchema, [
    { name: "workflow", value: workflow, ok: true },
    { name: "bad version", value: { ...workflow, version: "v1" }, ok: false, message: /semver/ },
    { name: "bad severity label", value: { ...workflow, labels: { severity: ["urgent"] } }, ok: false, message: /labels\.severity/ },
    { name: "no steps", value: { ...workflow, steps: [] }, ok: false, message: /steps/ },
    { name: "success rate above 1", value: { ...workflow, success_rate: 1.5 }, ok: false, message: /success_rate/ },
  ]);
  runTable(SearchWorkflowCatalogInputSchema, [
    { name: "natural language", value: { query: "pod keeps getting killed for memory" }, ok: true },
    { name: "with labels", value: { query: "OOMKilled", "label.severity": "critical", "label.environment": "production", top_k: 50 }, ok: true },
    { name: "top_k 0", value: { query: "x", top_k: 0 }, ok: false, message: /top_k/ },
    { name: "top_k 51", value: { query: "x", top_k: 51 }, ok: false, message: /top_k/ },
    { name: "bad priority", value: { query: "x", "label.priority": "urgent" }, ok: false, message: /label\.priority/ },
    { name: "unknown label", value: { query: "x", "label.color": "red" }, ok: false, message: /label\.color/ },
    { name: "empty query", value: { query: "" }, ok: false, message: /query/ },
  ]);
  it("defaults top_k to 10", () => {
    expect(SearchWorkflowCatalogInputSchema.parse({ query: "x" }).top_k).toBe(10);
  });
  runTable(SearchToolsInputSchema, [
    { name: "query", value: { query: "merge a PR" }, ok: true },
    { name: "bad mode", value: { query: "x", mode: "fuzzy" }, ok: false, message: /mode/ },
  ]);
});

describe("store schemas", () => {
  runTable(SessionTurnSchema, [
    { name: "turn", value: { question: "q", answer: "a", askedAt: 1, answeredAt: 2 }, ok: true },
    { name: "negative time", value: { question: "q", answer: "a", askedAt: -1, answeredAt: 2 }, ok: false, message: /askedAt/ },
  ]);
  runTable(CacheEntrySchema, [
    {
      name: "entry",
      value: { version: 1, result: { result: "a", _mcp_metadata: metadata }, question: "q", flowId: "f:1", scope: "shared", createdAt: 1, ttlSeconds: 60 },
      ok: true,
    },
    { name: "foreign value", value: { hello: "world" }, ok: false },
    {
      name: "future version",
      value: { version: 2, result: { result: "a", _mcp_metadata: metadata }, question: "q", flowId: "f:1", scope: "shared", createdAt: 1, ttlSeconds: 60 },
      ok: false,
      message: /version/,
    },
  ]);
});
