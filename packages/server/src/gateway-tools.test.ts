import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AfwError, type FlowBackendV1 } from "@afw/contracts";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createFakeBackend, type FakeBackend } from "../test/fake-backend.js";
import { callTool, startTestGateway } from "../test/helpers.js";

type Started = Awaited<ReturnType<typeof startTestGateway>>;
let current: Started | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});
async function start(parts: Parameters<typeof startTestGateway>[0] = {}) {
  current = await startTestGateway(parts);
  return current;
}

const dir = mkdtempSync(join(tmpdir(), "afw-server-tools-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const toolCatalog = join(dir, "tools.json");
writeFileSync(
  toolCatalog,
  JSON.stringify({
    tools: [
      { server: "github", name: "merge_pull_request", description: "Merge a pull request in a GitHub repository.", inputSchema: { type: "object", properties: { owner: { type: "string" }, repo: { type: "string" }, pullNumber: { type: "number" } } } },
      { server: "github", name: "create_issue", description: "Create a new issue in a GitHub repository.", inputSchema: { type: "object", properties: { title: { type: "string" } } } },
      { server: "filesystem", name: "read_text_file", description: "Read the complete contents of a file from the file system as text.", inputSchema: { type: "object", properties: { path: { type: "string" } } } },
      { server: "slack", name: "slack_post_message", description: "Post a new message to a Slack channel.", inputSchema: { type: "object", properties: { channel_id: { type: "string" }, text: { type: "string" } } } },
    ],
  }),
);

const workflowCatalog = join(dir, "workflows.yaml");
writeFileSync(
  workflowCatalog,
  `workflows:
  - workflow_id: oom-remediation
    version: 1.0.0
    title: Restart pods killed for memory
    description: Raise the memory limit of a pod that was OOMKilled and restart it.
    labels: { severity: [critical, high], environment: [production] }
    signal_types: [OOMKilled]
    keywords: [memory, limit]
    steps: [{ name: inspect, action: kubectl describe pod }]
    estimated_duration: 10m
    risk_level: medium
    success_rate: 0.9
  - workflow_id: oom-remediation
    version: 1.2.0
    title: Restart pods killed for memory (v1.2)
    description: Raise the memory limit of a pod that was OOMKilled, roll it out and watch it.
    labels: { severity: [critical, high], environment: [production] }
    signal_types: [OOMKilled]
    keywords: [memory, limit]
    steps: [{ name: inspect, action: kubectl describe pod }, { name: patch, action: kubectl set resources }]
    rollback_steps: [{ name: revert, action: kubectl rollout undo }]
    estimated_duration: 15m
    risk_level: medium
    success_rate: 0.95
  - workflow_id: disk-pressure
    version: 2.0.0
    title: Free disk space on a node
    description: Clean images and logs on a node under disk pressure.
    labels: { severity: [medium], environment: [] }
    signal_types: [NodeDiskPressure]
    keywords: [disk, cleanup]
    steps: [{ name: prune, action: crictl rmi --prune }]
    estimated_duration: 5m
    risk_level: low
    success_rate: 0.97
`,
);

function backends() {
  return [
    createFakeBackend({ id: "flowise-a", kind: "flowise", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true, keywords: ["weather"], memory: false }, { id: "rag", intents: ["rag-retrieval"] }] }),
    createFakeBackend({ id: "langflow-a", kind: "langflow", flows: [{ id: "etl", intents: ["data-processing"] }] }),
  ];
}

describe("tools/list", () => {
  it("lists every gateway tool with a JSON Schema of its input", async () => {
    const { client } = await start({ backends: backends() });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "universal_query",
      "flowise_query",
      "list_flows",
      "backend_status",
      "health_check",
      "backend_performance_compare",
      "backend_connect",
      "list_sessions",
      "search_history",
      "get_session",
      "clear_cache",
      "search_tools",
      "search_workflow_catalog",
      "get_playbook_details",
      "explain_routing",
      "analytics_dashboard",
      "analyze_flow",
      "pattern_analysis",
      "export_metrics",
      "sync_flow_registry",
      "record_feedback",
    ]);
    const universal = tools.find((t) => t.name === "universal_query")!;
    expect(universal.inputSchema.required).toEqual(["question"]);
    expect(Object.keys(universal.inputSchema.properties ?? {})).toEqual(["question", "intent", "backend", "flow_id", "allow_fallback", "session_id", "tags", "parameters", "timeout"]);
    expect(tools.find((t) => t.name === "clear_cache")!.annotations?.destructiveHint).toBe(true);
    for (const tool of tools) expect(tool.description?.length ?? 0).toBeGreaterThan(40);
  });

  it("answers an unknown tool with a typed TOOL_NOT_FOUND error", async () => {
    const { client } = await start();
    const { isError, body } = await callTool(client, "no_such_tool", {});
    expect(isError).toBe(true);
    expect(body["code"]).toBe("TOOL_NOT_FOUND");
  });
});

describe("list_flows", () => {
  it("lists all flows, or filters by backend id, kind and intent", async () => {
    const { client } = await start({ backends: backends() });
    const all = await callTool<{ count: number; flows: { id: string; backend_kind: string; intents: string[] }[] }>(client, "list_flows");
    expect(all.body.count).toBe(3);
    expect(all.body.flows.map((f) => f.id).sort()).toEqual(["flowise-a:chat", "flowise-a:rag", "langflow-a:etl"]);
    const byKind = await callTool<{ flows: { id: string }[] }>(client, "list_flows", { backend: "langflow" });
    expect(byKind.body.flows.map((f) => f.id)).toEqual(["langflow-a:etl"]);
    const full = await callTool<{ flows: { id: string }[] }>(client, "list_flows", { backend: "flowise-a", intent: "rag-retrieval", refresh: true });
    expect(full.body.flows.map((f) => f.id)).toEqual(["flowise-a:rag"]);
    const unknown = await callTool(client, "list_flows", { backend: "nope" });
    expect(unknown.isError).toBe(true);
    expect(unknown.body["code"]).toBe("NOT_FOUND");
    const invalid = await callTool(client, "list_flows", { intent: "poetry" });
    expect(invalid.body["code"]).toBe("INVALID_INPUT");
  });

  it("merges the configured flow registry and reports discovery problems", async () => {
    const flaky = createFakeBackend({ id: "flaky", flows: [{ id: "a" }], behavior: { discoveryFails: true } });
    const { client } = await start({
      backends: [flaky],
      config: { backends: [{ id: "flaky", kind: "flowise", baseURL: "http://127.0.0.1:1", flows: [{ id: "configured", intents: ["technical-analysis"], cacheClass: "technical" }] }] },
    });
    const { body } = await callTool<{ flows: { id: string; source: string; cache_class?: string }[]; discovery_problems: { backend_id: string; code: string }[] }>(client, "list_flows");
    expect(body.flows).toEqual([expect.objectContaining({ id: "flaky:configured", source: "configured", cache_class: "technical" })]);
    expect(body.discovery_problems).toEqual([expect.objectContaining({ backend_id: "flaky", code: "BACKEND_UNAVAILABLE" })]);
  });
});

describe("backend_status and health_check", () => {
  it("shows status without credentials, and probes health on demand", async () => {
    const [flowise, langflow] = backends() as [FakeBackend, FakeBackend];
    const { client } = await start({
      backends: [flowise, langflow],
      config: { backends: [{ id: "flowise-a", kind: "flowise", baseURL: "http://user:pw-secret-xyz@127.0.0.1:3000/?token=abc", apiKey: "afw-test-secret-flowise-key-123456" }] },
    });
    const before = await callTool<{ backends: { id: string; health: unknown; base_url?: string; flows: number }[] }>(client, "backend_status");
    expect(before.body.backends.map((b) => b.id)).toEqual(["flowise-a", "langflow-a"]);
    expect(before.body.backends[0]!.health).toBeNull();
    expect(before.body.backends[0]!.base_url).toBe("http://127.0.0.1:3000");
    expect(before.body.backends[0]!.flows).toBe(2);
    expect(JSON.stringify(before.body)).not.toMatch(/pw-secret-xyz|afw-test-secret-flowise-key-123456|token=abc/);

    flowise.behavior.health = "down";
    const health = await callTool<{ status: string; backends: { backendId: string; status: string }[]; stores: { cache: { ok: boolean } } }>(client, "health_check");
    expect(health.body.status).toBe("degraded");
    expect(health.body.backends.map((b) => [b.backendId, b.status])).toEqual([
      ["flowise-a", "down"],
      ["langflow-a", "healthy"],
    ]);
    expect(health.body.stores.cache.ok).toBe(true);
    const one = await callTool<{ backends: unknown[] }>(client, "health_check", { backend: "langflow" });
    expect(one.body.backends).toHaveLength(1);
    const after = await callTool<{ backends: { health: { status: string } | null }[] }>(client, "backend_status", { backend: "flowise-a" });
    expect(after.body.backends[0]!.health?.status).toBe("down");
    expect((await callTool(client, "backend_status", { backend: "ghost" })).body["code"]).toBe("NOT_FOUND");
    expect((await callTool(client, "health_check", { backend: 42 })).body["code"]).toBe("INVALID_INPUT");
  });
});

describe("backend_performance_compare", () => {
  it("reports p50/p95, success rate and counts per backend and flow, with a recommendation", async () => {
    const good = createFakeBackend({ id: "good", flows: [{ id: "g", intents: ["conversation"] }] });
    const flaky = createFakeBackend({ id: "flaky", kind: "langflow", flows: [{ id: "f", intents: ["conversation"] }] });
    const { client, gateway } = await start({ backends: [good, flaky] });
    const now = Date.now();
    for (let i = 0; i < 10; i++) {
      await gateway.stores.performance.record({ backendId: "good", flowId: "good:g", latencyMs: 100 + i * 10, success: true, timestamp: now });
      await gateway.stores.performance.record({ backendId: "flaky", flowId: "flaky:f", latencyMs: 50, success: i % 2 === 0, timestamp: now, ...(i % 2 ? { errorCode: "BACKEND_TIMEOUT" } : {}) });
    }
    type Row = { backend_id: string; requests: number; success_rate: number; latency_p50_ms: number; latency_p95_ms: number; errors: Record<string, number>; flows: { flow_id: string; requests: number }[] };
    const { body } = await callTool<{ backends: Row[]; recommendation: { backend_id: string | null; reason: string } }>(client, "backend_performance_compare");
    const goodRow = body.backends.find((b) => b.backend_id === "good")!;
    expect(goodRow).toMatchObject({ requests: 10, success_rate: 1, latency_p50_ms: 140, latency_p95_ms: 190 });
    expect(goodRow.flows).toEqual([expect.objectContaining({ flow_id: "good:g", requests: 10 })]);
    expect(body.backends.find((b) => b.backend_id === "flaky")).toMatchObject({ success_rate: 0.5, errors: { BACKEND_TIMEOUT: 5 } });
    expect(body.recommendation.backend_id).toBe("good");
    expect(body.recommendation.reason).toMatch(/100%/);

    const filtered = await callTool<{ backends: Row[]; recommendation: { backend_id: string | null } }>(client, "backend_performance_compare", { backend: "langflow", flow_id: "flaky:f", min_samples: 50 });
    expect(filtered.body.backends.map((b) => b.backend_id)).toEqual(["flaky"]);
    expect(filtered.body.recommendation.backend_id).toBeNull();
  });

  it("records performance of real queries", async () => {
    const { client } = await start({ backends: backends() });
    await callTool(client, "universal_query", { question: "hello there, how are you?" });
    const { body } = await callTool<{ backends: { backend_id: string; requests: number }[] }>(client, "backend_performance_compare", { min_samples: 1 });
    expect(body.backends).toEqual([expect.objectContaining({ backend_id: "flowise-a", requests: 1 })]);
  });
});

describe("backend_connect", () => {
  const factory = (config: { id: string; kind: string }) => createFakeBackend({ id: config.id, kind: config.kind, flows: [{ id: "new", intents: ["conversation"] }] });

  it("is denied by default", async () => {
    const { client } = await start({ backendFactory: factory });
    const { isError, body } = await callTool(client, "backend_connect", { id: "x", kind: "flowise", baseURL: "http://127.0.0.1:3000" });
    expect(isError).toBe(true);
    expect(body["code"]).toBe("FORBIDDEN");
  });

  it("adds a backend on an allowed host, never echoing its key, and refuses other hosts", async () => {
    const { client } = await start({ backendFactory: factory, config: { backendConnect: { allowedHosts: ["127.0.0.1:3000", "*.flows.internal"] } } });
    const minimal = await callTool(client, "backend_connect", { id: "added", kind: "flowise", baseURL: "http://127.0.0.1:3000" });
    expect(minimal.isError).toBe(false);
    expect(minimal.body).toMatchObject({ connected: true, id: "added", flows: 1 });
    const full = await callTool(client, "backend_connect", {
      id: "added2",
      kind: "langflow",
      baseURL: "https://lf.flows.internal/base",
      apiKey: "afw-test-secret-lf-very-secret-key",
      requestTimeoutMs: 5000,
      flows: [{ id: "new", intents: ["data-processing"] }],
    });
    expect(full.isError).toBe(false);
    expect(full.text).not.toContain("afw-test-secret-lf-very-secret-key");
    const flows = await callTool<{ flows: { id: string }[] }>(client, "list_flows");
    expect(flows.body.flows.map((f) => f.id).sort()).toEqual(["added2:new", "added:new"]);
    const answered = await callTool<{ _mcp_metadata: { backend_used: string } }>(client, "universal_query", { question: "hi", backend: "added" });
    expect(answered.body._mcp_metadata.backend_used).toBe("added");

    for (const baseURL of ["http://127.0.0.1:3001", "http://169.254.169.254/latest", "http://flows.internal.evil.com", "http://127.0.0.1:3000@evil.com/"]) {
      const denied = await callTool(client, "backend_connect", { id: "evil", kind: "flowise", baseURL });
      expect(denied.body["code"], baseURL).toBe("FORBIDDEN");
    }
    const duplicate = await callTool(client, "backend_connect", { id: "added", kind: "flowise", baseURL: "http://127.0.0.1:3000" });
    expect(duplicate.body["code"]).toBe("INVALID_INPUT");
    const badUrl = await callTool(client, "backend_connect", { id: "b", kind: "flowise", baseURL: "file:///etc/passwd" });
    expect(badUrl.body["code"]).toBe("INVALID_INPUT");
    const badKind = await callTool(client, "backend_connect", { id: "c", kind: "custom", baseURL: "http://127.0.0.1:3000" });
    expect(badKind.body["code"]).toBe("FORBIDDEN");
  });
});

describe("sessions and cache tools", () => {
  it("lists sessions by pattern and returns NOT_FOUND for an unknown one", async () => {
    const { client } = await start({ backends: backends() });
    for (const id of ["team-a.1", "team-a.2", "team-b.1"]) await callTool(client, "universal_query", { question: `hello from ${id}`, session_id: id });
    const all = await callTool<{ count: number; sessions: { session_id: string; turns: number }[] }>(client, "list_sessions");
    expect(all.body.count).toBe(3);
    const teamA = await callTool<{ sessions: { session_id: string }[] }>(client, "list_sessions", { pattern: "team-a.*", limit: 10 });
    expect(teamA.body.sessions.map((s) => s.session_id).sort()).toEqual(["team-a.1", "team-a.2"]);
    const limited = await callTool<{ sessions: unknown[] }>(client, "list_sessions", { pattern: "*", limit: 1 });
    expect(limited.body.sessions).toHaveLength(1);
    const one = await callTool<{ history: unknown[] }>(client, "get_session", { session_id: "team-b.1", turns: 1 });
    expect(one.body.history).toHaveLength(1);
    const missing = await callTool(client, "get_session", { session_id: "nobody" });
    expect(missing.isError).toBe(true);
    expect(missing.body["code"]).toBe("NOT_FOUND");
    expect((await callTool(client, "get_session", {})).body["code"]).toBe("INVALID_INPUT");
    expect((await callTool(client, "list_sessions", { limit: 0 })).body["code"]).toBe("INVALID_INPUT");
  });

  it("stores the tags of universal_query and flowise_query turns and lists sessions by tag", async () => {
    const { client } = await start({ backends: backends() });
    await callTool(client, "universal_query", { question: "status of falcon", session_id: "s-1", tags: ["project:falcon", "team:platform"] });
    await callTool(client, "flowise_query", { question: "falcon deadline", session_id: "s-2", tags: ["project:falcon"], allow_fallback: true });
    await callTool(client, "universal_query", { question: "lunch menu", session_id: "s-3" });
    const falcon = await callTool<{ sessions: { session_id: string; tags?: string[] }[] }>(client, "list_sessions", { tag: "project:falcon" });
    expect(falcon.body.sessions.map((s) => s.session_id).sort()).toEqual(["s-1", "s-2"]);
    expect(falcon.body.sessions.find((s) => s.session_id === "s-1")?.tags).toEqual(["project:falcon", "team:platform"]);
    const session = await callTool<{ tags?: string[]; history: { tags?: string[] }[] }>(client, "get_session", { session_id: "s-1" });
    expect(session.body.tags).toEqual(["project:falcon", "team:platform"]);
    expect(session.body.history[0]?.tags).toEqual(["project:falcon", "team:platform"]);
    expect((await callTool<{ count: number }>(client, "list_sessions", { tag: "project:none" })).body.count).toBe(0);
    const badTag = await callTool(client, "universal_query", { question: "q", session_id: "s-4", tags: ["has space"] });
    expect(badTag.isError).toBe(true);
    expect(badTag.body["code"]).toBe("INVALID_INPUT");
    expect(String(badTag.body["error"])).toContain("a tag may contain only letters");
    const tooMany = await callTool(client, "universal_query", { question: "q", tags: Array.from({ length: 17 }, (_, i) => `t${i}`) });
    expect(String(tooMany.body["error"])).toContain("at most 16 tags");
    expect((await callTool(client, "list_sessions", { tag: "x".repeat(65) })).body["code"]).toBe("INVALID_INPUT");
  });

  it("search_history finds past turns by keyword and tag, paged, with snippets", async () => {
    const { client } = await start({ backends: backends() });
    await callTool(client, "universal_query", { question: "How do we deploy falcon?", session_id: "s-1", tags: ["project:falcon"] });
    await callTool(client, "universal_query", { question: "Where is the canteen?", session_id: "s-2" });
    await callTool(client, "universal_query", { question: "Falcon deployment failed again", session_id: "s-3", tags: ["project:falcon"] });
    type Page = { count: number; hits: { session_id: string; question: string; answer: string; tags?: string[]; matched_words?: number; asked_at: string }[]; next_cursor?: string };
    const found = await callTool<Page>(client, "search_history", { text: "falcon deployments" });
    expect(found.body.hits.map((h) => h.session_id)).toEqual(["s-3", "s-1"]);
    expect(found.body.hits[0]).toMatchObject({ question: "Falcon deployment failed again", tags: ["project:falcon"], matched_words: 2 });
    expect(found.body.hits[0]?.answer.length).toBeGreaterThan(0);
    const byTag = await callTool<Page>(client, "search_history", { tag: "project:falcon", limit: 1 });
    expect(byTag.body.hits).toHaveLength(1);
    const next = await callTool<Page>(client, "search_history", { tag: "project:falcon", limit: 1, cursor: byTag.body.next_cursor });
    expect([...byTag.body.hits, ...next.body.hits].map((h) => h.session_id).sort()).toEqual(["s-1", "s-3"]);
    expect(next.body.next_cursor).toBeUndefined();
    expect((await callTool<Page>(client, "search_history", { session_id: "s-2" })).body.hits.map((h) => h.question)).toEqual(["Where is the canteen?"]);
    expect((await callTool<Page>(client, "search_history", { text: "canteen", from: "2999-01-01T00:00:00Z" })).body.count).toBe(0);
    const badCursor = await callTool(client, "search_history", { cursor: "nope" });
    expect(badCursor.body["code"]).toBe("INVALID_INPUT");
    expect((await callTool(client, "search_history", { from: "yesterday" })).body["code"]).toBe("INVALID_INPUT");
  });

  it("answers an adversarial session glob at once and rejects an over-long one with a typed error", async () => {
    const { client } = await start({ backends: backends() });
    const longId = "a".repeat(128);
    await callTool(client, "universal_query", { question: "hello there", session_id: longId });
    // A backtracking matcher needs ~20^7 steps here (the process froze for seconds before the fix).
    const hostile = await callTool<{ count: number }>(client, "list_sessions", { pattern: "*a*a*a*a*a*a*a*ab" });
    expect(hostile.isError).toBe(false);
    expect(hostile.body.count).toBe(0);
    expect((await callTool<{ count: number }>(client, "list_sessions", { pattern: "*a*a*a*a" })).body.count).toBe(1);
    const tooLong = await callTool(client, "list_sessions", { pattern: "*a".repeat(200) });
    expect(tooLong.isError).toBe(true);
    expect(tooLong.body["code"]).toBe("INVALID_INPUT");
    expect(tooLong.body["error"]).toBe(`Invalid arguments for tool list_sessions: "pattern": pattern must be at most 256 characters`);
  });

  it("clears the cache by flow, session, scope or all, and counts removals", async () => {
    const [flowise] = backends() as [ReturnType<typeof createFakeBackend>];
    const { client } = await start({ backends: [flowise] });
    const ask = (args: Record<string, unknown>) => callTool<{ _mcp_metadata: { cache_hit: boolean } }>(client, "universal_query", args);
    await ask({ question: "what's the weather like", flow_id: "flowise-a:chat" });
    await ask({ question: "hello there friend" });
    await ask({ question: "hello there friend", session_id: "s1" });
    expect((await ask({ question: "hello there friend" })).body._mcp_metadata.cache_hit).toBe(true);

    const byFlow = await callTool<{ removed: number }>(client, "clear_cache", { flow_id: "flowise-a:chat" });
    expect(byFlow.body.removed).toBe(1); // the entry keyed by the explicit flow
    // answers cached through automatic routing by that flow are stale too
    expect((await ask({ question: "hello there friend" })).body._mcp_metadata.cache_hit).toBe(false);
    const bySession = await callTool<{ removed: number }>(client, "clear_cache", { session_id: "s1" });
    expect(bySession.body.removed).toBe(1);
    const byScope = await callTool<{ removed: number }>(client, "clear_cache", { scope: "shared" });
    expect(byScope.body.removed).toBeGreaterThanOrEqual(1);
    await ask({ question: "hello there friend" });
    const all = await callTool<{ removed: number }>(client, "clear_cache", { all: true });
    expect(all.body.removed).toBe(1);
    expect((await ask({ question: "hello there friend" })).body._mcp_metadata.cache_hit).toBe(false);

    for (const args of [{}, { all: false }, { flow_id: "x", all: true }, { scope: "global" }]) {
      const invalid = await callTool(client, "clear_cache", args);
      expect(invalid.body["code"], JSON.stringify(args)).toBe("INVALID_INPUT");
    }
  });
});

describe("search_tools, search_workflow_catalog, get_playbook_details", () => {
  it("searches configured tool catalogs", async () => {
    const { client } = await start({ config: { tools: { catalogs: [toolCatalog] } } });
    const minimal = await callTool<{ results: { id: string; affordance: string }[]; mode: string }>(client, "search_tools", { query: "merge a pull request" });
    expect(minimal.isError).toBe(false);
    expect(minimal.body.results[0]!.id).toBe("github/merge_pull_request");
    expect(minimal.body.results[0]!.affordance).toMatch(/Use when/);
    const full = await callTool<{ results: { id: string }[] }>(client, "search_tools", { query: "send a message to the team", top_k: 2, mode: "keyword", servers: ["slack"], tags: undefined });
    expect(full.body.results.map((r) => r.id)).toEqual(["slack/slack_post_message"]);
    expect((await callTool(client, "search_tools", { query: "x", top_k: 0 })).body["code"]).toBe("INVALID_INPUT");
    expect((await callTool(client, "search_tools", { query: "x", mode: "magic" })).body["code"]).toBe("INVALID_INPUT");
  });

  it("reports an unreadable tool catalog as CONFIG_INVALID at start", async () => {
    await expect(startTestGateway({ config: { tools: { catalogs: [join(dir, "missing.json")] } } })).rejects.toMatchObject({ code: "CONFIG_INVALID" });
  });

  it("searches workflows with label filters and exclusions, and returns playbooks", async () => {
    const { client } = await start({ config: { workflows: { catalogs: [workflowCatalog] } } });
    const minimal = await callTool<{ count: number; results: { workflow_id: string; version: string; confidence: number }[] }>(client, "search_workflow_catalog", { query: "pod OOMKilled memory" });
    expect(minimal.body.results[0]).toMatchObject({ workflow_id: "oom-remediation", version: "1.2.0" });
    expect(minimal.body.results[0]!.confidence).toBeGreaterThan(0);
    const filtered = await callTool<{ results: { workflow_id: string }[] }>(client, "search_workflow_catalog", {
      query: "node problem",
      "label.severity": "medium",
      "label.environment": "staging",
      exclude_keywords: ["kubectl"],
      top_k: 5,
    });
    expect(filtered.body.results.map((r) => r.workflow_id)).toEqual(["disk-pressure"]);
    const excluded = await callTool<{ results: { workflow_id: string }[] }>(client, "search_workflow_catalog", { query: "OOMKilled", exclude_keywords: ["memory"] });
    expect(excluded.body.results.map((r) => r.workflow_id)).not.toContain("oom-remediation");
    expect((await callTool(client, "search_workflow_catalog", { query: "x", "label.severity": "apocalyptic" })).body["code"]).toBe("INVALID_INPUT");

    const latest = await callTool<{ version: string; rollback_steps: unknown[] }>(client, "get_playbook_details", { workflow_id: "oom-remediation" });
    expect(latest.body.version).toBe("1.2.0");
    expect(latest.body.rollback_steps).toHaveLength(1);
    const pinned = await callTool<{ version: string }>(client, "get_playbook_details", { workflow_id: "oom-remediation", version: "1.0.0" });
    expect(pinned.body.version).toBe("1.0.0");
    const missing = await callTool(client, "get_playbook_details", { workflow_id: "oom-remediation", version: "9.9.9" });
    expect(missing.body["code"]).toBe("NOT_FOUND");
    // The same playbooks as resources.
    const resource = await client.readResource({ uri: "afw://playbooks/oom-remediation" });
    expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({ workflow_id: "oom-remediation", version: "1.2.0" });
    await expect(client.readResource({ uri: "afw://playbooks/no-such-playbook" })).rejects.toMatchObject({ code: -32002 });
  });
});

describe("failure containment and redaction", () => {
  it("turns an unexpected exception into INTERNAL without its message", async () => {
    const { client } = await start({
      workflowCatalog: {
        searchWorkflowCatalog: async () => {
          throw new TypeError("cannot read properties of undefined (reading 'secretThing')");
        },
        getPlaybookDetails: () => {
          throw new TypeError("not called");
        },
      },
    });
    const { isError, body, text } = await callTool(client, "search_workflow_catalog", { query: "anything" });
    expect(isError).toBe(true);
    expect(body["code"]).toBe("INTERNAL");
    expect(text).not.toContain("secretThing");
  });

  it("redacts configured secrets from every tool output", async () => {
    const leaky = createFakeBackend({
      id: "leaky",
      flows: [{ id: "x", intents: ["conversation"], generalPurpose: true }],
      answer: (request) => `echo ${request.question}`,
    });
    const secret = "sk-live-0123456789abcdef";
    const { client, gateway } = await start({ backends: [leaky], secrets: [secret] });
    const answer = await callTool(client, "universal_query", { question: `my key is ${secret}` });
    expect(answer.text).not.toContain(secret);
    expect(answer.text).toContain("[REDACTED]");
    const events = gateway.traces!.recent({ limit: 1000 });
    expect(JSON.stringify(events)).not.toContain(secret);
  });

  it("redacts a key that a backend error message leaks", async () => {
    const secret = "flowise-api-key-abcdef123456";
    const leaky: FlowBackendV1 = {
      ...createFakeBackend({ id: "leaky", flows: [{ id: "x", intents: ["conversation"], generalPurpose: true }] }),
      execute: async () => {
        throw new AfwError("BACKEND_AUTH_FAILED", `rejected key ${secret} with Bearer ${secret}`);
      },
    };
    const { client } = await start({ backends: [leaky], secrets: [secret] });
    const { isError, text } = await callTool(client, "universal_query", { question: "hello" });
    expect(isError).toBe(true);
    expect(text).not.toContain(secret);
  });
});
