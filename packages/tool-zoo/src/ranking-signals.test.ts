// Re-ranking signals of the tool index that stemming and BM25 alone cannot provide: the action a
// tool's name performs, grammatical number, and server detection that entity guesses must not
// dominate. Keyword mode with a fixed catalog: deterministic, no model.
import type { ToolDescriptorInput } from "@afw/contracts";
import { describe, expect, it } from "vitest";
import { createDomainDetector } from "./domain-detector.js";
import { splitQuotedContent } from "./query-text.js";
import { createTextAnalyzer } from "./text-analysis.js";
import { buildToolDocument } from "./tool-document.js";
import { createToolIndex, type ToolIndexOptions } from "./tool-index.js";
import { ToolDescriptorSchema } from "@afw/contracts";

const tool = (server: string, name: string, description: string): ToolDescriptorInput => ({
  server,
  name,
  description,
  inputSchema: { type: "object", properties: { id: { type: "string", description: "Identifier" } } },
});

async function top(tools: ToolDescriptorInput[], query: string, options: ToolIndexOptions = {}) {
  const index = createToolIndex({ maxPerServer: 0, ...options });
  await index.add(tools);
  const { results } = await index.search({ query, mode: "keyword", top_k: 5 });
  return results.map((r) => r.id);
}

describe("action agreement", () => {
  const tools = [
    tool("tracker", "edit_comment", "Edit an existing comment on a ticket, e.g. to fix a typo."),
    tool("tracker", "add_comment", "Add a comment to a ticket."),
  ];

  it("reads a tool's action from the verb of its name, not from every word of it", async () => {
    // "comment" is a create-like word; with every name word counted, edit_comment looks like a
    // create tool as well and keeps its keyword lead
    const query = "comment on the ticket that the fix is out";
    const options = { actionWeight: 0.4, actionMismatchWeight: 0 };
    expect((await top(tools, query, { ...options, toolAction: "name-any" }))[0]).toBe("tracker/edit_comment");
    expect((await top(tools, query, { ...options, toolAction: "name-verb" }))[0]).toBe("tracker/add_comment");
  });

  it("demotes a writing tool when the query asks for no such action", async () => {
    const reviews = [tool("code", "delete_review", "Delete a review of a pull request."), tool("code", "show_review", "Show a review of a pull request.")];
    const query = "the review of pull request 12 by alice";
    expect((await top(reviews, query, { actionMismatchWeight: 0 }))[0]).toBe("code/delete_review"); // a tie, broken by id
    expect((await top(reviews, query, { actionMismatchWeight: 0.1 }))[0]).toBe("code/show_review");
    expect((await top(reviews, "remove the review of pull request 12", { actionMismatchWeight: 0.1 }))[0]).toBe("code/delete_review");
  });
});

describe("number agreement", () => {
  const tools = [
    tool("code", "get_scanning_alert", "Get a scanning alert of a repository."),
    tool("code", "list_scanning_alerts", "List the scanning alerts of a repository."),
  ];

  it("prefers the tool whose name uses the query's words in the same number", async () => {
    // stemming makes "alert" and "alerts" one term: only the number tells the two apart
    const options = { numberWeight: 0.2, surfaceWeight: 0, actionWeight: 0 };
    expect((await top(tools, "the scanning alerts of acme/api", options))[0]).toBe("code/list_scanning_alerts");
    expect((await top(tools, "the scanning alert 7 of acme/api", options))[0]).toBe("code/get_scanning_alert");
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

  it("lets a phrase hint claim its words", () => {
    const domains = detector.detect("last commits of my local repository");
    expect(domains.get("git")).toBe(1);
    expect(domains.has("github")).toBe(false);
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
