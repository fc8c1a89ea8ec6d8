import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AfwError, parseTraceEvent, type Embedder, type ToolDescriptorInput, type TraceEvent } from "@afw/contracts";
import { createHashingEmbedder } from "@afw/embeddings";
import { afterAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { createToolIndex } from "./tool-index.js";
import { toolFilter } from "./tool-records.js";
import { affordanceSummary } from "./tool-document.js";
import { ToolDescriptorSchema } from "@afw/contracts";

const tool = (server: string, name: string, description: string, extra: Partial<ToolDescriptorInput> = {}): ToolDescriptorInput => ({
  server,
  name,
  description,
  inputSchema: { type: "object", properties: { id: { type: "string", description: "Identifier" } }, required: ["id"] },
  ...extra,
});

const TOOLS: ToolDescriptorInput[] = [
  tool("github", "merge_pull_request", "Merge a pull request in a GitHub repository.", { tags: ["write"] }),
  tool("github", "list_pull_requests", "List pull requests in a GitHub repository.", { tags: ["read"] }),
  tool("github", "create_issue", "Create a new issue in a GitHub repository.", { tags: ["write"] }),
  tool("github", "close_issue", "Close an issue in a GitHub repository.", { tags: ["write"] }),
  tool("github", "get_issue", "Get details of an issue in a GitHub repository.", { tags: ["read"] }),
  tool("gitlab", "create_merge_request", "Create a merge request in a GitLab project.", { tags: ["write"] }),
  tool("gitlab", "create_issue", "Create a new issue in a GitLab project.", { tags: ["write"] }),
  tool("slack", "post_message", "Post a message to a Slack channel.", { tags: ["write"] }),
  tool("slack", "list_channels", "List the channels of the Slack workspace.", { tags: ["read"] }),
  tool("filesystem", "read_file", "Read the complete contents of a file from the local file system.", { tags: ["read"] }),
  tool("filesystem", "write_file", "Create a new file or overwrite a file on the local file system.", { tags: ["write"] }),
  tool("kubernetes", "kubectl_delete", "Delete Kubernetes resources such as pods or deployments.", { tags: ["write", "admin"] }),
  tool("kubernetes", "kubectl_logs", "Get logs from a pod's containers.", { tags: ["read"] }),
];

function recordingSink() {
  const events: TraceEvent[] = [];
  return { events, trace: { traceId: "trace-1", requestId: "req-1", sink: { emit: (e: TraceEvent) => events.push(parseTraceEvent(e)) } } };
}

async function build(options: Parameters<typeof createToolIndex>[0] = {}) {
  const index = createToolIndex({ embedder: createHashingEmbedder({ dimensions: 256 }), ...options });
  await index.add(TOOLS);
  return index;
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("createToolIndex", () => {
  it("indexes tools and finds the obvious one in every mode", async () => {
    const index = await build();
    expect(index.size).toBe(TOOLS.length);
    for (const mode of ["keyword", "semantic", "hybrid"] as const) {
      const result = await index.search({ query: "merge pull request", mode, top_k: 3 });
      expect(result.mode).toBe(mode);
      expect(result.results[0]?.id).toBe("github/merge_pull_request");
      expect(result.fallback).toBe(false);
    }
  });

  it("returns hits with affordance summaries and input schemas", async () => {
    const index = await build();
    const { results } = await index.search({ query: "post a message to a slack channel", top_k: 1 });
    expect(results[0]).toMatchObject({ id: "slack/post_message", server: "slack", name: "post_message" });
    expect(results[0]!.affordance).toBe("Use when: Post a message to a Slack channel | Inputs: id* | Output: text content");
    expect(results[0]!.inputSchema).toEqual(TOOLS[7]!.inputSchema);
  });

  it("summarises required and optional inputs and the output", () => {
    const summary = affordanceSummary(
      ToolDescriptorSchema.parse({
        server: "s",
        name: "t",
        description: "Searches things. Returns a list of matches.",
        inputSchema: { properties: { query: {}, limit: {} }, required: ["query"] },
      }),
    );
    expect(summary).toBe("Use when: Searches things | Inputs: query*, limit | Output: Returns a list of matches");
  });

  it("filters by server and by tags (and both)", async () => {
    const index = await build();
    const byServer = await index.search({ query: "create issue", servers: ["gitlab"], top_k: 10 });
    expect(byServer.results.map((r) => r.server)).toEqual(expect.arrayContaining(["gitlab"]));
    expect(new Set(byServer.results.map((r) => r.server))).toEqual(new Set(["gitlab"]));
    const byTag = await index.search({ query: "issue", tags: ["read"], top_k: 10 });
    expect(byTag.results.length).toBeGreaterThan(0);
    for (const hit of byTag.results) expect(TOOLS.find((t) => `${t.server}/${t.name}` === hit.id)?.tags).toContain("read");
    const both = await index.search({ query: "delete pods", servers: ["kubernetes"], tags: ["admin"], top_k: 10 });
    expect(both.results.map((r) => r.id)).toEqual(["kubernetes/kubectl_delete"]);
    const none = await index.search({ query: "delete pods", servers: ["nope"], top_k: 10 });
    expect(none.results).toEqual([]);
  });

  it("builds metadata filters for the store", () => {
    expect(toolFilter()).toBeUndefined();
    expect(toolFilter(["a"], ["x", "y"])).toEqual({ $and: [{ server: { $in: ["a"] } }, { $or: [{ "tag:x": true }, { "tag:y": true }] }] });
  });

  it("limits results per server, moving the overflow to the end", async () => {
    const index = await build();
    const { results } = await index.search({ query: "issue pull request", top_k: 5 });
    expect(results.map((r) => r.server)).toEqual(["github", "github", "github", "gitlab", "gitlab"]);
    // the overflow (two more github tools) follows the other servers' tools
    const all = await index.search({ query: "issue pull request", top_k: 13 });
    expect(all.results.filter((r) => r.server === "github")).toHaveLength(5);
    expect(all.results.findIndex((r) => r.server !== "github")).toBeLessThan(all.results.findLastIndex((r) => r.server === "github"));
    // with a single server filter the limit does not apply
    const single = await index.search({ query: "issue", servers: ["github"], top_k: 5 });
    expect(single.results).toHaveLength(5);
  });

  it("does not limit a server the query names outright", async () => {
    const exempt = await build();
    const named = await exempt.search({ query: "github repository issue pull request", top_k: 5 });
    expect(named.results.filter((r) => r.server === "github").length).toBeGreaterThan(3);
  });

  it("returns the safe fallback set below the confidence threshold, and says so", async () => {
    const { events, trace } = recordingSink();
    const index = await build({ confidence: { fallbackToolIds: ["filesystem/read_file"] }, trace });
    const result = await index.search({ query: "zebra quantum", top_k: 3 });
    expect(result.fallback).toBe(true);
    expect(result.confidence).toBeLessThan(0.3);
    expect(result.results[0]!.id).toBe("filesystem/read_file");
    const low = events.find((e) => e.type === "tool-search-low-confidence");
    expect(low).toMatchObject({ threshold: 0.3, fallbackIds: ["filesystem/read_file"] });
    const confident = await index.search({ query: "merge pull request", top_k: 3 });
    expect(confident.fallback).toBe(false);
    expect(confident.results[0]!.id).toBe("github/merge_pull_request");
  });

  it("scores a clear query with more confidence than gibberish", async () => {
    const index = await build();
    const clear = await index.search({ query: "merge pull request github", top_k: 3 });
    const vague = await index.search({ query: "zebra quantum", top_k: 3 });
    expect(clear.confidence).toBeGreaterThan(vague.confidence);
    expect(clear.confidence).toBeGreaterThan(0.5);
  });

  it("boosts the server the query names", async () => {
    const index = await build();
    expect((await index.search({ query: "create an issue in gitlab", top_k: 1 })).results[0]!.id).toBe("gitlab/create_issue");
    expect((await index.search({ query: "create an issue on github", top_k: 1 })).results[0]!.id).toBe("github/create_issue");
  });

  it("emits an audit event for each search", async () => {
    const { events, trace } = recordingSink();
    const index = await build();
    await index.search({ query: "list slack channels", top_k: 2, tags: ["read"] }, { trace });
    const audit = events.find((e) => e.type === "tool-search-performed");
    expect(audit).toMatchObject({ target: "tools", query: "list slack channels", mode: "hybrid", traceId: "trace-1" });
    if (audit?.type !== "tool-search-performed") throw new Error("no audit event");
    expect(audit.results[0]!.id).toBe("slack/list_channels");
    expect(audit.filters).toEqual({ top_k: 2, tags: ["read"] });
  });

  it("reports indexing failures and runs keyword-only without an embedder", async () => {
    const failing: Embedder = { id: "broken", dimensions: 8, embed: async () => { throw new Error("model gone"); } };
    const { events, trace } = recordingSink();
    const broken = createToolIndex({ embedder: failing, trace });
    await expect(broken.add(TOOLS)).rejects.toThrow(/model gone/);
    const keywordOnly = createToolIndex({ trace });
    await keywordOnly.add(TOOLS);
    const result = await keywordOnly.search({ query: "merge pull request", top_k: 2 });
    expect(result.mode).toBe("keyword");
    expect(result.results[0]!.id).toBe("github/merge_pull_request");
    const audit = events.filter((e) => e.type === "tool-search-performed").at(-1);
    expect(audit).toMatchObject({ mode: "keyword", degraded: true });
  });

  it("degrades to keyword when the embedder fails at query time", async () => {
    let fail = false;
    const inner = createHashingEmbedder({ dimensions: 64 });
    const flaky: Embedder = { id: inner.id, dimensions: 64, embed: async (texts, signal) => { if (fail) throw new Error("down"); return inner.embed(texts, signal); } };
    const index = createToolIndex({ embedder: flaky });
    await index.add(TOOLS);
    fail = true;
    const result = await index.search({ query: "read a local file", top_k: 1 });
    expect(result.mode).toBe("keyword");
    expect(result.results[0]!.id).toBe("filesystem/read_file");
  });

  it("re-adds changed tools, skips unchanged ones and removes tools", async () => {
    let embedded = 0;
    const inner = createHashingEmbedder({ dimensions: 64 });
    const counting: Embedder = { id: inner.id, dimensions: 64, embed: async (texts, signal) => { embedded += texts.length; return inner.embed(texts, signal); } };
    const index = createToolIndex({ embedder: counting });
    await index.add(TOOLS);
    const first = embedded;
    await index.add(TOOLS);
    expect(embedded).toBe(first);
    await index.add([tool("slack", "post_message", "Send a chat message to a Slack channel or person.")]);
    expect(embedded).toBeGreaterThan(first);
    expect(index.get("slack/post_message")?.description).toMatch(/chat message/);
    await index.remove(["slack/post_message"]);
    expect(index.get("slack/post_message")).toBeUndefined();
    const { results } = await index.search({ query: "post message slack", top_k: 5 });
    expect(results.map((r) => r.id)).not.toContain("slack/post_message");
  });

  it("persists embeddings by content hash so a restart does not re-embed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "afw-tz-"));
    dirs.push(dir);
    const path = join(dir, "vectors.json");
    let embedded = 0;
    const inner = createHashingEmbedder({ dimensions: 64 });
    const counting: Embedder = { id: inner.id, dimensions: 64, embed: async (texts, signal) => { embedded += texts.length; return inner.embed(texts, signal); } };
    await createToolIndex({ embedder: counting, embeddingCachePath: path }).add(TOOLS);
    expect(existsSync(path)).toBe(true);
    const afterFirst = embedded;
    expect(afterFirst).toBe(TOOLS.length * 2);
    const restarted = createToolIndex({ embedder: counting, embeddingCachePath: path });
    await restarted.add(TOOLS);
    expect(embedded).toBe(afterFirst);
    expect((await restarted.search({ query: "merge pull request", mode: "semantic", top_k: 1 })).results[0]!.id).toBe("github/merge_pull_request");
  });

  it("learns from recorded usage (the flywheel)", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: 1_000_000 });
    onTestFinished(() => void vi.useRealTimers());
    const index = await build();
    const before = await index.search({ query: "open a ticket", top_k: 3 });
    expect(before.results[0]!.id).not.toBe("gitlab/create_issue");
    for (let i = 0; i < 5; i++) await index.recordUsage("open a ticket for the bug", "gitlab/create_issue", true);
    const after = await index.search({ query: "open a ticket", top_k: 3 });
    expect(after.results[0]!.id).toBe("gitlab/create_issue");
    vi.setSystemTime(1_000_000 + 365 * 24 * 3600 * 1000); // a year later the evidence has decayed away
    const later = await index.search({ query: "open a ticket", top_k: 3 });
    expect(later.results[0]!.id).toBe(before.results[0]!.id);
  });

  it("rejects invalid input and invalid tools with INVALID_INPUT", async () => {
    const index = await build();
    await expect(index.search({ query: "" })).rejects.toSatisfy((e: unknown) => AfwError.isInstance(e) && e.code === "INVALID_INPUT");
    await expect(index.search({ query: "x", top_k: 0 })).rejects.toSatisfy((e: unknown) => AfwError.isInstance(e) && e.code === "INVALID_INPUT");
    await expect(index.add([{ server: "", name: "x" }])).rejects.toSatisfy((e: unknown) => AfwError.isInstance(e) && e.code === "INVALID_INPUT");
  });
});

describe("multi-step tasks", () => {
  it("searches each step and says which step each result serves", async () => {
    const index = await build();
    const result = await index.search({ query: "list the open pull requests of acme/api, write a summary to a local file and post it to the Slack channel", top_k: 5, mode: "keyword" });
    expect(result.steps).toEqual(["list the open pull requests of acme/api", "write a summary to a local file", "post it to the Slack channel"]);
    const ids = result.results.map((hit) => hit.id);
    for (const needed of ["github/list_pull_requests", "filesystem/write_file", "slack/post_message"]) expect(ids).toContain(needed);
    const posting = result.results.find((hit) => hit.id === "slack/post_message")!;
    if (posting.step !== undefined) expect(posting.step_text).toBe(result.steps![posting.step]);
    expect(result.results.filter((hit) => hit.step !== undefined).length).toBeGreaterThanOrEqual(2);
  });

  it("searches a single-step task whole, and context sentences are no steps", async () => {
    const index = await build();
    const result = await index.search({ query: "merge PR 12 and close issue 3", top_k: 5, mode: "keyword" });
    expect(result.steps).toEqual(["merge PR 12", "close issue 3"]);
    const single = await index.search({ query: "list the pull requests and issues", top_k: 5, mode: "keyword" });
    expect(single.steps).toBeUndefined();
    expect(single.results.every((hit) => hit.step === undefined)).toBe(true);
    // a context sentence is not a step
    const context = await index.search({ query: "Our team ships every Friday. Merge PR 12 and close issue 3.", top_k: 5, mode: "keyword" });
    expect(context.steps).toEqual(["Merge PR 12", "close issue 3"]);
    expect((await index.search({ query: "Our team ships every Friday. Merge PR 12.", top_k: 5, mode: "keyword" })).steps).toBeUndefined();
  });

  it("ranks a step that names no server by the servers the whole task points at", async () => {
    const index = await build();
    const result = await index.search({ query: "Create a merge request in GitLab for my branch. Then create an issue for the follow-up.", top_k: 5, mode: "keyword" });
    expect(result.steps).toEqual(["Create a merge request in GitLab for my branch", "create an issue for the follow-up"]);
    const ids = result.results.map((hit) => hit.id);
    expect(ids.slice(0, 2)).toEqual(expect.arrayContaining(["gitlab/create_merge_request", "gitlab/create_issue"]));
    expect(ids.indexOf("gitlab/create_issue")).toBeLessThan(ids.indexOf("github/create_issue") >>> 0);
  });
});

describe("usage guidance in tool descriptions", () => {
  const keywordIds = async (tools: ToolDescriptorInput[], query: string) => {
    const index = createToolIndex();
    await index.add(tools);
    return (await index.rank(query, { mode: "keyword" })).tools.map((t) => t.id);
  };

  it("weighs the words of a guidance clause less than the same words saying what a tool does", async () => {
    // without the guidance treatment the shorter first tool ranks first for "know"
    const ids = await keywordIds(
      [
        tool("records", "get_alpha", "Get an alpha record, if you know its owner pass the owner."),
        tool("records", "get_beta", "Get a beta record, which owner you know is the owner of the record and its history."),
      ],
      "know",
    );
    expect(ids[0]).toBe("records/get_beta");
  });

  it("ranks a knowledge tool above a tool whose guidance says 'if you don't know'", async () => {
    const ids = await keywordIds(
      [
        tool(
          "github",
          "get_notification_details",
          "Get detailed information for a specific GitHub notification, always call this tool when the user asks for details about a specific notification, if you don't know the ID list notifications first.",
        ),
        tool("github", "list_notifications", "Lists all GitHub notifications for the authenticated user."),
        tool("aws-kb-retrieval", "retrieve_from_aws_kb", "Performs retrieval from the AWS Knowledge Base using the Bedrock Agent Runtime."),
        tool("memory", "read_graph", "Read the entire knowledge graph"),
        tool("memory", "create_entities", "Create multiple new entities in the knowledge graph"),
        tool("filesystem", "read_file", "Read the complete contents of a file from the local file system."),
      ],
      "what do you know about Alice?",
    );
    // without the guidance treatment the notification tool comes first ("know" in its short first sentence)
    expect(["memory/read_graph", "aws-kb-retrieval/retrieve_from_aws_kb"]).toContain(ids[0]);
    expect(ids.indexOf("aws-kb-retrieval/retrieve_from_aws_kb")).toBeLessThan(ids.indexOf("github/get_notification_details") >>> 0);
  });
});
