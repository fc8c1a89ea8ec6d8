import type { UniversalQueryError, UniversalQueryResult } from "@afw/contracts";
import { UniversalQueryErrorSchema, UniversalQueryResultSchema } from "@afw/contracts";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeBackend, type FakeBackend } from "../test/fake-backend.js";
import { callTool, parseResult, startTestGateway } from "../test/helpers.js";

type Started = Awaited<ReturnType<typeof startTestGateway>>;
let current: Started | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

function twoBackends(): { flowise: FakeBackend; langflow: FakeBackend } {
  return {
    flowise: createFakeBackend({
      id: "flowise",
      kind: "flowise",
      flows: [
        { id: "chat", name: "Chat", intents: ["conversation"], generalPurpose: true, cacheClass: "conversation" },
        { id: "docs", name: "Docs QA", intents: ["rag-retrieval"] },
      ],
    }),
    langflow: createFakeBackend({
      id: "langflow",
      kind: "langflow",
      flows: [
        { id: "code", name: "Code doctor", intents: ["technical-analysis"], cacheClass: "technical" },
        { id: "etl", name: "ETL helper", intents: ["data-processing"] },
      ],
    }),
  };
}

async function start(parts: Parameters<typeof startTestGateway>[0] = {}) {
  current = await startTestGateway(parts);
  return current;
}

describe("universal_query", () => {
  it("answers a minimal question with routing metadata", async () => {
    const { flowise, langflow } = twoBackends();
    const { client } = await start({ backends: [flowise, langflow] });
    const { isError, body } = await callTool<UniversalQueryResult>(client, "universal_query", { question: "Why does this TypeError stack trace appear in my function?" });
    expect(isError).toBe(false);
    expect(() => UniversalQueryResultSchema.parse(body)).not.toThrow();
    expect(body.result).toBe("langflow/code: Why does this TypeError stack trace appear in my function?");
    const meta = body._mcp_metadata;
    expect(meta).toMatchObject({
      backend_used: "langflow",
      backend_kind: "langflow",
      flow_id: "langflow:code",
      flow_name: "Code doctor",
      intent_classified: "technical-analysis",
      intent_method: "pattern",
      fallback_used: false,
      attempt: 1,
      backends_tried: ["langflow"],
      cache_hit: false,
    });
    expect(meta.routing_breakdown.flow_match).toBe(1);
    expect(meta.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(langflow.calls).toHaveLength(1);
    expect(flowise.calls).toHaveLength(0);
  });

  it("with classifierEmbedder: cascade, says which stage of the cascade decided the intent", async () => {
    const { flowise, langflow } = twoBackends();
    // threshold 1: every question the patterns leave open goes to the USE model (on the embedding worker thread).
    const { client } = await start({ backends: [flowise, langflow], config: { routing: { classifierEmbedder: "cascade", cascade: { threshold: 1, timeoutMs: 60_000 } } } });
    const open = await callTool<UniversalQueryResult>(client, "universal_query", { question: "Could you help me think through what to do next with it?" });
    expect(open.body._mcp_metadata).toMatchObject({ intent_cascade: "escalated", intent_method: "semantic" });
    const explicit = await callTool<UniversalQueryResult>(client, "universal_query", { question: "Could you help me think it through again?", intent: "conversation" });
    expect(explicit.body._mcp_metadata.intent_cascade).toBeUndefined();
  }, 60_000);

  it("honours every argument: intent, backend, flow_id, session_id, parameters, timeout", async () => {
    const { flowise, langflow } = twoBackends();
    const { client } = await start({ backends: [flowise, langflow] });
    const { isError, body } = await callTool<UniversalQueryResult>(client, "universal_query", {
      question: "Summarise our travel policy",
      intent: "rag-retrieval",
      backend: "flowise",
      flow_id: "flowise:docs",
      session_id: "s-full.1",
      parameters: { temperature: 0.2, max_tokens: 128, stream: false },
      timeout: 10,
    });
    expect(isError).toBe(false);
    expect(body.session_id).toBe("s-full.1");
    expect(body._mcp_metadata).toMatchObject({ backend_used: "flowise", flow_id: "flowise:docs", intent_classified: "rag-retrieval", intent_method: "explicit", intent_confidence: 1 });
    expect(body._mcp_metadata.routing_reason).toMatch(/user override \(backend=flowise, flow=flowise:docs\)/);
    expect(flowise.calls[0]).toMatchObject({ flowId: "docs", sessionId: "s-full.1", parameters: { temperature: 0.2, maxTokens: 128 } });
  });

  it("rejects invalid arguments with a typed INVALID_INPUT error", async () => {
    const { flowise } = twoBackends();
    const { client } = await start({ backends: [flowise] });
    const cases: Record<string, unknown>[] = [
      {},
      { question: "   " },
      { question: "hi", intent: "astrology" },
      { question: "hi", timeout: 500 },
      { question: "hi", session_id: "has spaces" },
      { question: "hi", parameters: { temperature: 3 } },
      { question: "hi", unexpected: true },
      { question: "x".repeat(32_001) },
    ];
    for (const args of cases) {
      const { isError, body } = await callTool<UniversalQueryError>(client, "universal_query", args);
      expect(isError, JSON.stringify(args).slice(0, 80)).toBe(true);
      expect(body.code).toBe("INVALID_INPUT");
      expect(() => UniversalQueryErrorSchema.parse(body)).not.toThrow();
      expect(body.attempts).toBe(0);
    }
    expect(flowise.calls).toHaveLength(0);
    const missing = await callTool<UniversalQueryError>(client, "universal_query", {});
    expect(missing.body.error).toMatch(/question/);
  });

  it("serves a repeated question from the cache without calling the backend", async () => {
    const { flowise, langflow } = twoBackends();
    const { client, gateway } = await start({ backends: [flowise, langflow] });
    const first = await callTool<UniversalQueryResult>(client, "universal_query", { question: "How do I debug this exception?" });
    const second = await callTool<UniversalQueryResult>(client, "universal_query", { question: "how do I debug this exception" });
    expect(first.body._mcp_metadata.cache_hit).toBe(false);
    expect(second.body._mcp_metadata.cache_hit).toBe(true);
    expect(second.body.result).toBe(first.body.result);
    expect(second.body._mcp_metadata.trace_id).not.toBe(first.body._mcp_metadata.trace_id);
    expect(langflow.calls).toHaveLength(1);
    const events = gateway.traces!.byTraceId(second.body._mcp_metadata.trace_id).map((e) => e.type);
    expect(events).toEqual(["query-received", "cache-hit", "query-answered"]);
    const stats = await gateway.stores.cache.stats();
    expect(stats.hits).toBe(1);
  });

  it("does not cache flows marked non-cacheable and disables caching by config", async () => {
    const backend = createFakeBackend({ id: "f", flows: [{ id: "live", intents: ["conversation"], generalPurpose: true, cacheable: false }] });
    const { client } = await start({ backends: [backend] });
    await callTool(client, "universal_query", { question: "hello there" });
    const again = await callTool<UniversalQueryResult>(client, "universal_query", { question: "hello there" });
    expect(again.body._mcp_metadata.cache_hit).toBe(false);
    expect(backend.calls).toHaveLength(2);
  });

  it("propagates sessions: history reaches the backend and turns are stored", async () => {
    const { flowise, langflow } = twoBackends();
    const { client } = await start({ backends: [flowise, langflow] });
    await callTool(client, "universal_query", { question: "hello, I am Ada", session_id: "sess-42" });
    const second = await callTool<UniversalQueryResult>(client, "universal_query", { question: "what is my name?", session_id: "sess-42" });
    expect(second.body.session_id).toBe("sess-42");
    const lastCall = [...flowise.calls, ...langflow.calls].at(-1)!;
    expect(lastCall.sessionId).toBe("sess-42");
    expect(lastCall.history).toEqual([
      { role: "user", content: "hello, I am Ada" },
      { role: "assistant", content: expect.stringContaining("hello, I am Ada") },
    ]);
    const session = await callTool<{ turns: number; history: { question: string }[] }>(client, "get_session", { session_id: "sess-42" });
    expect(session.body.turns).toBe(2);
    expect(session.body.history.map((t) => t.question)).toEqual(["hello, I am Ada", "what is my name?"]);
    // a session-scoped answer is not served to another session
    const other = await callTool<UniversalQueryResult>(client, "universal_query", { question: "what is my name?", session_id: "sess-43" });
    expect(other.body._mcp_metadata.cache_hit).toBe(false);
  });

  it("falls back to the next candidate and shows it in the metadata", async () => {
    const primary = createFakeBackend({
      id: "primary",
      capabilities: { "technical-analysis": 1 },
      flows: [{ id: "code", intents: ["technical-analysis"] }],
      behavior: { fail: "BACKEND_UNAVAILABLE" },
    });
    const secondary = createFakeBackend({ id: "secondary", kind: "langflow", flows: [{ id: "code2", intents: ["technical-analysis"] }] });
    const { client, gateway } = await start({ backends: [primary, secondary] });
    const { isError, body } = await callTool<UniversalQueryResult>(client, "universal_query", { question: "debug this exception", intent: "technical-analysis" });
    expect(isError).toBe(false);
    expect(body._mcp_metadata).toMatchObject({ backend_used: "secondary", fallback_used: true, attempt: 3, backends_tried: ["primary", "secondary"] });
    expect(primary.calls).toHaveLength(2); // first try + one retry
    const types = gateway.traces!.byTraceId(body._mcp_metadata.trace_id).map((e) => e.type);
    expect(types).toContain("retry-scheduled");
    expect(types).toContain("fallback-triggered");
    const metrics = await gateway.metrics.render();
    expect(metrics).toMatch(/afw_fallbacks_total\{from_backend="primary",to_backend="secondary"\} 1/);
    expect(metrics).toMatch(/afw_backend_errors_total\{backend="primary",code="BACKEND_UNAVAILABLE"\} 2/);
  });

  it("does not retry a non-retryable error and reports ALL_BACKENDS_FAILED with details", async () => {
    const only = createFakeBackend({ id: "only", flows: [{ id: "x", intents: ["conversation"], generalPurpose: true }], behavior: { fail: "BACKEND_AUTH_FAILED" } });
    const { client } = await start({ backends: [only] });
    const { isError, body } = await callTool<UniversalQueryError>(client, "universal_query", { question: "hello" });
    expect(isError).toBe(true);
    expect(() => UniversalQueryErrorSchema.parse(body)).not.toThrow();
    expect(body).toMatchObject({ code: "ALL_BACKENDS_FAILED", attempts: 1, backends_tried: ["only"] });
    expect(body.last_error).toMatch(/^BACKEND_AUTH_FAILED/);
    expect(body._mcp_metadata.trace_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it("reports NO_BACKENDS_AVAILABLE when nothing matches", async () => {
    const { client } = await start({ backends: [] });
    const { isError, body } = await callTool<UniversalQueryError>(client, "universal_query", { question: "hello" });
    expect(isError).toBe(true);
    expect(body.code).toBe("NO_BACKENDS_AVAILABLE");
    const unknown = await start({ backends: [twoBackends().flowise] });
    const result = await callTool<UniversalQueryError>(unknown.client, "universal_query", { question: "hello", backend: "nope" });
    expect(result.body.code).toBe("NO_BACKENDS_AVAILABLE");
    expect(result.body.error).toMatch(/no configured backend matches 'nope'/);
    await unknown.close();
  });

  it("respects timeout: a hanging backend ends in a BACKEND_TIMEOUT failure", async () => {
    const slow = createFakeBackend({ id: "slow", flows: [{ id: "x", intents: ["conversation"], generalPurpose: true }], behavior: { hang: true } });
    const { client } = await start({ backends: [slow] });
    const started = Date.now();
    const { isError, body } = await callTool<UniversalQueryError>(client, "universal_query", { question: "hello", timeout: 1 });
    const elapsed = Date.now() - started;
    expect(isError).toBe(true);
    expect(body.code).toBe("ALL_BACKENDS_FAILED");
    expect(body.error).toMatch(/overall timeout reached/);
    expect(body["last_error"]).toMatch(/^BACKEND_TIMEOUT: slow did not answer/);
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(5_000);
  });

  it("opens the circuit of a failing backend so later queries skip it", async () => {
    const bad = createFakeBackend({ id: "bad", flows: [{ id: "x", intents: ["conversation"] }], behavior: { fail: "BACKEND_UNAVAILABLE" } });
    const good = createFakeBackend({ id: "good", flows: [{ id: "y", intents: ["conversation"] }] });
    const { client } = await start({
      backends: [bad, good],
      config: { routing: { retries: 0, circuitBreaker: { failureThreshold: 2, cooldownMs: 60_000 } } },
    });
    // Make "bad" rank first through its capability score.
    for (let i = 0; i < 2; i++) await callTool(client, "universal_query", { question: `hello ${i}`, intent: "conversation", backend: "bad" });
    const explained = await callTool<{ decision: { candidates: { backendId: string; excluded?: string }[] } }>(client, "explain_routing", { question: "hello", intent: "conversation" });
    expect(explained.body.decision.candidates.find((c) => c.backendId === "bad")?.excluded).toBe("circuit open");
    const status = await callTool<{ backends: { id: string; circuit: { state: string } }[] }>(client, "backend_status", { backend: "bad" });
    expect(status.body.backends[0]!.circuit.state).toBe("open");
    const callsBefore = bad.calls.length;
    const answered = await callTool<UniversalQueryResult>(client, "universal_query", { question: "hello again", intent: "conversation" });
    expect(answered.body._mcp_metadata.backend_used).toBe("good");
    expect(bad.calls.length).toBe(callsBefore);
  });

  it("streams tokens as progress notifications and still returns the full answer", async () => {
    const streaming = createFakeBackend({ id: "s", stream: true, flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }], answer: () => "one two three four" });
    const { client } = await start({ backends: [streaming] });
    const progress: { progress: number; message?: string }[] = [];
    const raw = await client.callTool(
      { name: "universal_query", arguments: { question: "hello", parameters: { stream: true } } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    const { body } = parseResult<UniversalQueryResult>(raw);
    expect(body.result).toBe("one two three four");
    expect(progress.map((p) => p.message).join("")).toBe("one two three four");
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3, 4]);
    // without a progress token, no notification and the same answer
    const plain = await callTool<UniversalQueryResult>(client, "universal_query", { question: "hello!", parameters: { stream: true } });
    expect(plain.body.result).toBe("one two three four");
  });
});

describe("flowise_query (legacy)", () => {
  it("routes only to Flowise backends, minimal and full", async () => {
    const { flowise, langflow } = twoBackends();
    const { client } = await start({ backends: [flowise, langflow] });
    const minimal = await callTool<UniversalQueryResult>(client, "flowise_query", { question: "debug this stack trace exception" });
    expect(minimal.isError).toBe(false);
    expect(minimal.body._mcp_metadata.backend_kind).toBe("flowise");
    const full = await callTool<UniversalQueryResult>(client, "flowise_query", { question: "what does the policy say", chatflow_id: "docs", session_id: "legacy-1", timeout: 5 });
    expect(full.body._mcp_metadata.flow_id).toBe("flowise:docs");
    expect(full.body.session_id).toBe("legacy-1");
    expect(langflow.calls).toHaveLength(0);
    const bad = await callTool<UniversalQueryError>(client, "flowise_query", { question: "hi", chatflow_id: "" });
    expect(bad.body.code).toBe("INVALID_INPUT");
    const unknownFlow = await callTool<UniversalQueryError>(client, "flowise_query", { question: "hi", chatflow_id: "code" });
    expect(unknownFlow.body.code).toBe("FLOW_NOT_FOUND");
    expect(unknownFlow.body.error).toMatch(/no flow 'code' on 'flowise'/);
    expect(flowise.calls.filter((call) => call.flowId === "code")).toHaveLength(0);
  });
});

describe("explain_routing", () => {
  it("returns the full decision without executing anything", async () => {
    const { flowise, langflow } = twoBackends();
    const { client } = await start({ backends: [flowise, langflow] });
    const minimal = await callTool<{ classification: { intent: string }; decision: { candidates: { flowId: string; rank: number; score: number; breakdown: Record<string, number> }[]; chosen: { flowId: string } } }>(
      client,
      "explain_routing",
      { question: "Convert this CSV to JSON and aggregate the rows" },
    );
    expect(minimal.body.classification.intent).toBe("data-processing");
    expect(minimal.body.decision.chosen.flowId).toBe("langflow:etl");
    expect(minimal.body.decision.candidates).toHaveLength(4);
    expect(minimal.body.decision.candidates.map((c) => c.rank)).toEqual([1, 2, 3, 4]);
    for (const candidate of minimal.body.decision.candidates) expect(Object.keys(candidate.breakdown).sort()).toEqual(["capability", "flow_match", "health", "performance"]);
    const scores = minimal.body.decision.candidates.map((c) => c.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const full = await callTool<{ decision: { strategy: string; reason: string; chosen: unknown; candidates: unknown[] } }>(client, "explain_routing", {
      question: "anything",
      intent: "conversation",
      backend: "flowise",
      flow_id: "flowise:chat",
    });
    expect(full.body.decision.strategy).toBe("override");
    // The requested flow comes first; the rest stay ranked behind it as fallbacks.
    expect(full.body.decision.chosen).toMatchObject({ backendId: "flowise", flowId: "flowise:chat" });
    expect(full.body.decision.candidates[0]).toMatchObject({ flowId: "flowise:chat", rank: 1 });
    expect(full.body.decision.reason).toBe("user override (backend=flowise, flow=flowise:chat)");
    expect(flowise.calls.length + langflow.calls.length).toBe(0);
    const invalid = await callTool(client, "explain_routing", { question: "" });
    expect(invalid.body["code"]).toBe("INVALID_INPUT");
  });
});
