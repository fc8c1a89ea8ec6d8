// Re-ranking signals of the tool index that stemming and BM25 alone cannot provide: the action a
// tool's name performs, grammatical number, and server detection that entity guesses must not
// dominate. Keyword mode with a fixed catalog: deterministic, no model.
import type { ToolDescriptorInput } from "@afw/contracts";
import { describe, expect, it } from "vitest";
import { createDomainDetector } from "./domain-detector.js";
import { splitQuotedContent } from "./query-text.js";
import { createTextAnalyzer, words } from "./text-analysis.js";
import { buildToolDocument } from "./tool-document.js";
import { applyDiversity, createRankingSignals, type SignalWeights } from "./ranking-signals.js";
import { createToolIndex } from "./tool-index.js";
import { ToolDescriptorSchema } from "@afw/contracts";

const tool = (server: string, name: string, description: string): ToolDescriptorInput => ({
  server,
  name,
  description,
  inputSchema: { type: "object", properties: { id: { type: "string", description: "Identifier" } } },
});

async function top(tools: ToolDescriptorInput[], query: string) {
  const index = createToolIndex();
  await index.add(tools);
  const { results } = await index.search({ query, mode: "keyword", top_k: 5 });
  return results.map((r) => r.id);
}

const analyzer = createTextAnalyzer();
const NONE = { actionWeight: 0, actionMismatchWeight: 0, surfaceWeight: 0, numberWeight: 0 };

/** The re-ranking boost of each tool for `query` with only the given signal weights on. */
function boosts(tools: ToolDescriptorInput[], query: string, weights: Partial<SignalWeights>): Record<string, number> {
  const signals = createRankingSignals(analyzer, { ...NONE, ...weights });
  const intent = splitQuotedContent(query).intent;
  const analysed = signals.analyse(intent, words(intent));
  return Object.fromEntries(tools.map((t) => [t.name, signals.boost(buildToolDocument(ToolDescriptorSchema.parse(t), analyzer), analysed)]));
}

describe("action agreement", () => {
  const tools = [
    tool("tracker", "edit_comment", "Edit an existing comment on a ticket, e.g. to fix a typo."),
    tool("tracker", "add_comment", "Add a comment to a ticket."),
  ];

  it("reads a tool's action from the verb of its name, not from every word of it", () => {
    // "comment" is a create-like word; read from every name word, edit_comment would look like a
    // create tool as well
    const b = boosts(tools, "comment on the ticket that the fix is out", { actionWeight: 0.4 });
    expect(b["add_comment"]).toBe(0.4);
    expect(b["edit_comment"]).toBe(0);
  });

  it("demotes a writing tool when the query asks for no such action", () => {
    const reviews = [tool("code", "delete_review", "Delete a review of a pull request."), tool("code", "show_review", "Show a review of a pull request.")];
    const asked = boosts(reviews, "the review of pull request 12 by alice", { actionMismatchWeight: 0.1 });
    expect(asked["delete_review"]).toBeCloseTo(-0.1, 10);
    expect(asked["show_review"]).toBe(0);
    expect(boosts(reviews, "remove the review of pull request 12", { actionMismatchWeight: 0.1 })["delete_review"]).toBeGreaterThanOrEqual(0);
  });
});

describe("number agreement", () => {
  const tools = [
    tool("code", "get_scanning_alert", "Get a scanning alert of a repository."),
    tool("code", "list_scanning_alerts", "List the scanning alerts of a repository."),
  ];

  it("prefers the tool whose name uses the query's words in the same number", () => {
    // stemming makes "alert" and "alerts" one term: only the number tells the two apart
    const plural = boosts(tools, "the scanning alerts of acme/api", { numberWeight: 0.2 });
    expect(plural["list_scanning_alerts"]!).toBeGreaterThan(plural["get_scanning_alert"]!);
    const singular = boosts(tools, "the scanning alert 7 of acme/api", { numberWeight: 0.2 });
    expect(singular["get_scanning_alert"]!).toBeGreaterThan(singular["list_scanning_alerts"]!);
  });
});

describe("server detection", () => {
  const analyzer = createTextAnalyzer();
  const documents = [
    tool("github", "list_commits", "List commits of a GitHub repository."),
    tool("github", "get_repository_tree", "Get the tree of a GitHub repository."),
    tool("git", "git_log", "Shows the commit logs"),
    tool("git", "git_status", "Shows the working tree status"),
  ].map((t) => buildToolDocument(ToolDescriptorSchema.parse(t), analyzer));
  const detector = createDomainDetector(documents, analyzer);

  it("learns server words from the servers' own texts, not from a list of known servers", () => {
    const domains = detector.detect("last commits of my github repository");
    expect(domains.get("github")).toBe(1);
    expect(domains.has("git")).toBe(false);
  });

  it("reads a term most of whose tools are on one server as a weak pointer to it, though another server mentions it once", () => {
    const cluster = [
      tool("cluster", "exec_in_pod", "Execute a command in a pod."),
      tool("cluster", "get_resources", "Get resources such as pods or deployments."),
      tool("cluster", "get_logs", "Get logs of pods or jobs."),
      tool("cluster", "get_events", "Get events of pods."),
      ...["scale", "apply", "drain", "ping", "context", "rollout"].map((name) => tool("cluster", name, `${name} a resource.`)),
      {
        server: "metrics",
        name: "query_logs",
        description: "Query logs.",
        inputSchema: { type: "object", properties: { selector: { type: "string", description: "Label selector, e.g. by pod" } } },
      },
      tool("metrics", "list_dashboards", "List dashboards."),
    ].map((t) => buildToolDocument(ToolDescriptorSchema.parse(t), analyzer));
    const strength = createDomainDetector(cluster, analyzer).detect("which pods are up").get("cluster");
    // four of the five tools mentioning pods are the cluster server's (too few of its ten for a headline term): 0.25 x 4/5
    expect(strength).toBeCloseTo(0.2, 10);
  });

  it("does not read a pronoun as a server's name (a server called \"everything\")", () => {
    const servers = [
      tool("everything", "echo", "Echoes back the input."),
      tool("everything", "add", "Adds two numbers."),
      tool("files", "delete_file", "Delete a file."),
    ].map((t) => buildToolDocument(ToolDescriptorSchema.parse(t), analyzer));
    const withPronoun = createDomainDetector(servers, analyzer);
    expect(withPronoun.detect("delete everything in the temp folder").has("everything")).toBe(false);
    expect(analyzer.terms("forget everything anyone said somewhere")).toEqual(["forget", "said"]);
  });

  it("uses what a server says about itself: its title and the instruction words its tools share", () => {
    const notes = [
      tool("kg", "create_entities", "Create entities in the graph."),
      tool("kg", "search_nodes", "Search nodes of the graph by name, type or observation."),
      tool("files", "search_files", "Search files by name."),
    ].map((t) => buildToolDocument(ToolDescriptorSchema.parse(t), analyzer));
    const plain = createDomainDetector(notes, analyzer);
    expect(plain.detect("find Alice in the knowledge store").has("kg")).toBe(false);
    const informed = createDomainDetector(notes, analyzer, new Map([["kg", { title: "Knowledge Store", instructions: "Keeps entities and observations in a graph." }]]));
    expect(informed.detect("find Alice in the knowledge store").get("kg")).toBe(1);
    // "observation" is in its instructions and its own tools only
    expect(informed.detect("observations about Alice").get("kg")).toBeGreaterThan(0);
  });

  it("lets synonyms of typed words point at a server at their reduced weight", () => {
    const memory = [tool("memory", "create_entities", "Create entities in the knowledge graph."), tool("files", "write_file", "Write a file.")].map((t) =>
      buildToolDocument(ToolDescriptorSchema.parse(t), analyzer),
    );
    const found = createDomainDetector(memory, analyzer).detect("remember that Bob works at Acme", analyzer.queryTerms("remember that Bob works at Acme"));
    expect(found.get("memory")).toBeGreaterThan(0);
    expect(found.get("memory")).toBeLessThan(1);
  });

  it("counts a word the user typed more than an entity guess", async () => {
    const tools = [tool("github", "list_commits", "List commits of a GitHub repository."), tool("time", "convert_time", "Convert time between timezones")];
    // without the time-zone entity, Europe/London would read as a repository
    expect(splitQuotedContent("convert 09:30 Europe/London to America/New_York").kinds).toEqual(["timezone", "timezone"]);
    expect((await top(tools, "convert 10:00 Europe/London to Asia/Tokyo"))[0]).toBe("time/convert_time");
    const parts = splitQuotedContent("merge PR 8 in acme/api");
    expect(parts.bare).toBe("merge PR 8 in");
    expect(parts.intent).toBe("merge PR 8 in repository");
  });
});

describe("paraphrases reach the right server through general language knowledge", () => {
  // tool texts in the style of the reference MCP memory and filesystem servers (written here)
  const tools = [
    tool("memory", "create_entities", "Create multiple new entities in the knowledge graph"),
    tool("memory", "add_observations", "Add new observations to existing entities in the knowledge graph"),
    tool("memory", "search_nodes", "Search for nodes in the knowledge graph based on a query"),
    tool("memory", "open_nodes", "Open specific nodes in the knowledge graph by their names"),
    tool("files", "write_file", "Create a new file or completely overwrite an existing file with new content."),
    tool("files", "search_files", "Recursively search for files and directories matching a pattern."),
    tool("files", "read_text_file", "Read the complete contents of a file from the file system as text."),
  ];

  it("'remember …' asks to store something in memory", async () => {
    const found = await top(tools, "remember that Bob works at Acme");
    expect(["memory/create_entities", "memory/add_observations"]).toContain(found[0]);
  });

  it("'what do you know about …' asks to look something up in memory", async () => {
    const found = await top(tools, "what do you know about Alice?");
    expect(["memory/search_nodes", "memory/open_nodes"]).toContain(found[0]);
  });
});

describe("applyDiversity", () => {
  const tool = (id: string, server: string, score: number) => ({ id, server, score });
  const ranked = [tool("a1", "a", 1), tool("a2", "a", 0.95), tool("a3", "a", 0.9), tool("a4", "a", 0.85), tool("b1", "b", 0.8), tool("b2", "b", 0.3)];
  const ids = (tools: readonly { id: string }[]) => tools.map((t) => t.id);

  it("moves a server's overflow to the end with an infinite penalty", () => {
    expect(ids(applyDiversity(ranked, 3, new Set()))).toEqual(["a1", "a2", "a3", "b1", "b2", "a4"]);
  });

  it("moves the overflow only behind other servers' tools within the penalty", () => {
    // a4 (0.85 - 0.1 = 0.75) goes behind b1 (0.8) but stays ahead of the clearly worse b2 (0.3)
    expect(ids(applyDiversity(ranked, 3, new Set(), 0.1))).toEqual(["a1", "a2", "a3", "b1", "a4", "b2"]);
    expect(ids(applyDiversity(ranked, 3, new Set(), 0.01))).toEqual(["a1", "a2", "a3", "a4", "b1", "b2"]);
  });

  it("leaves exempt servers and a limit of 0 alone", () => {
    expect(ids(applyDiversity(ranked, 3, new Set(["a"]), 0.1))).toEqual(ids(ranked));
    expect(ids(applyDiversity(ranked, 0, new Set()))).toEqual(ids(ranked));
  });
});
