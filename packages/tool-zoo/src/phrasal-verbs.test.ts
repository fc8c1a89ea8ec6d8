// Query reading added for requests phrased without tool vocabulary: phrasal verbs, operation verbs that only describe
// a state, channels and percentiles. Keyword mode over a fixed catalog: deterministic, no model.
import type { ToolDescriptorInput } from "@afw/contracts";
import { ToolDescriptorSchema } from "@afw/contracts";
import { describe, expect, it } from "vitest";
import { rewritePhrasalVerbs } from "./phrasal-verbs.js";
import { splitQuotedContent } from "./query-text.js";
import { createRankingSignals, describesState, separateDescribedVerbs } from "./ranking-signals.js";
import { createTextAnalyzer, words } from "./text-analysis.js";
import { buildToolDocument } from "./tool-document.js";
import { createToolIndex } from "./tool-index.js";

const tool = (server: string, name: string, description: string): ToolDescriptorInput => ({
  server,
  name,
  description,
  inputSchema: { type: "object", properties: { key: { type: "string", description: "The key" } } },
});

async function top(tools: ToolDescriptorInput[], query: string): Promise<string[]> {
  const index = createToolIndex();
  await index.add(tools);
  const { results } = await index.search({ query, mode: "keyword", top_k: 5 });
  return results.map((r) => r.id);
}

describe("rewritePhrasalVerbs", () => {
  it("reads a phrasal verb as the verb it means", () => {
    expect(rewritePhrasalVerbs("get rid of the old-docs repository")).toBe("delete the old-docs repository");
    expect(rewritePhrasalVerbs("Keep in mind that my dog is called Biscuit")).toBe("remember that my dog is called Biscuit");
    expect(rewritePhrasalVerbs("look up the weather")).toBe("lookup the weather");
    expect(rewritePhrasalVerbs("bring the branch up to date")).toBe("update the branch");
  });
  it("keeps the object of a separated phrasal verb in place", () => {
    expect(rewritePhrasalVerbs("take it all back out of the index")).toBe("remove it all back of the index");
    expect(rewritePhrasalVerbs("hand issue 12 over to copilot")).toBe("assign issue 12 to copilot");
    expect(rewritePhrasalVerbs("let the team know")).toBe("notify the team");
    expect(rewritePhrasalVerbs("let me know the total")).toBe("let me know the total");
  });
  it("leaves words alone that only share a verb or a particle", () => {
    expect(rewritePhrasalVerbs("get the output of the job")).toBe("get the output of the job");
    expect(rewritePhrasalVerbs("take a screenshot")).toBe("take a screenshot");
    expect(rewritePhrasalVerbs("set the value")).toBe("set the value");
    // the object may be at most four words long
    expect(rewritePhrasalVerbs("take one two three four five out")).toBe("take one two three four five out");
  });

  it("ranks the tool of the meant operation first", async () => {
    const tools = [tool("repos", "delete_repository", "Delete a repository."), tool("repos", "get_repository", "Get a repository.")];
    expect((await top(tools, "get rid of the old-docs repository"))[0]).toBe("repos/delete_repository");
  });
});

describe("operation verbs that only describe", () => {
  const split = (text: string) => text.toLowerCase().split(/[^a-z0-9-]+/);
  it("reads participles after be or have, and verbs after a pronoun in a wh-clause, as descriptions", () => {
    const running = split("what pods are running in staging");
    expect(describesState(running, running.indexOf("running"))).toBe(true);
    const stored = split("what's stored under the key");
    expect(describesState(stored, stored.indexOf("stored"))).toBe(true);
    const remember = split("What do you remember about Priya?");
    expect(describesState(remember, remember.indexOf("remember"))).toBe(true);
  });
  it("reads participles in a question about a state, and verbs of a relative clause, as descriptions", () => {
    const modified = split("when was the file last modified");
    expect(describesState(modified, modified.indexOf("modified"))).toBe(true);
    const remember = split("dump everything you remember");
    expect(describesState(remember, remember.indexOf("remember"))).toBe(true);
  });
  it("keeps imperatives, requests and modal questions as requests", () => {
    const run = split("run the nightly job");
    expect(describesState(run, 0)).toBe(false);
    const modal = split("who can I assign issues to");
    expect(describesState(modal, modal.indexOf("assign"))).toBe(false);
    const request = split("can you delete the branch");
    expect(describesState(request, request.indexOf("delete"))).toBe(false);
  });
  it("takes only operation words out of the request text", () => {
    const analyzer = createTextAnalyzer();
    const signals = createRankingSignals(analyzer, { actionWeight: 0, actionMismatchWeight: 0, surfaceWeight: 0, numberWeight: 0 });
    expect(separateDescribedVerbs("what pods are running in staging", signals.isWriteWord)).toEqual({ request: "what pods are   in staging", described: ["running"] });
    // "called" describes but is no operation word, "know" a reading one: they stay
    expect(separateDescribedVerbs("the branch is called main", signals.isWriteWord).described).toEqual([]);
    expect(separateDescribedVerbs("what do you know about Alice", signals.isWriteWord).described).toEqual([]);
  });
  it("does not demote a tool for a write the query only describes, and does not count it as asked", () => {
    const analyzer = createTextAnalyzer();
    const signals = createRankingSignals(analyzer, { actionWeight: 0, actionMismatchWeight: 0.1, surfaceWeight: 0, numberWeight: 0 });
    const trigger = buildToolDocument(ToolDescriptorSchema.parse(tool("ops", "trigger_job", "Run a job.")), analyzer);
    const boost = (query: string) => {
      const intent = splitQuotedContent(query).intent;
      return signals.boost(trigger, signals.analyse(intent, words(intent)));
    };
    expect(boost("which jobs are running")).toBeCloseTo(-0.1, 10);
    expect(boost("run the nightly job")).toBe(0);
  });
  it("ranks a reading tool first when the write verb only describes", async () => {
    const tools = [tool("cache", "set", "Set a key-value pair in the cache store."), tool("cache", "get", "Get the value of a key from the cache store.")];
    expect((await top(tools, "what value is stored under the key in the cache"))[0]).toBe("cache/get");
  });
});

describe("query content: channels, percentiles", () => {
  it("reads #name after a preposition as a channel, elsewhere as content only", () => {
    expect(splitQuotedContent("post the summary to #ops").intent).toBe("post the summary to channel");
    expect(splitQuotedContent("post the summary to #ops").quoted).toEqual(["#ops"]);
    expect(splitQuotedContent("click #submit").intent).toBe("click");
  });
  it("expands p99 and its kin to percentile", () => {
    expect(createTextAnalyzer().terms("p99 latency")).toContain("percentil");
  });
});

describe("a wh-word before a plural noun asks for a list", () => {
  const analyzer = createTextAnalyzer();
  const signals = createRankingSignals(analyzer, { actionWeight: 0.15, actionMismatchWeight: 0, surfaceWeight: 0, numberWeight: 0 });
  const listing = buildToolDocument(ToolDescriptorSchema.parse(tool("chat", "list_channels", "List the channels of the workspace.")), analyzer);
  const boost = (query: string) => {
    const intent = splitQuotedContent(query).intent;
    return signals.boost(listing, signals.analyse(intent, words(intent)));
  };
  it("gives a listing tool the action boost for 'which channels exist'", () => {
    expect(boost("which channels exist")).toBeCloseTo(0.15, 10);
    expect(boost("what branches do I have")).toBeCloseTo(0.15, 10);
  });
  it("does not when the question is about something that has them, or names one thing", () => {
    expect(boost("what columns does the orders table have")).toBe(0);
    expect(boost("which channel is the busiest")).toBe(0);
  });
});

describe("'where' asks to locate", () => {
  it("gives a search tool the action boost", () => {
    const analyzer = createTextAnalyzer();
    const signals = createRankingSignals(analyzer, { actionWeight: 0.15, actionMismatchWeight: 0, surfaceWeight: 0, numberWeight: 0 });
    const finder = buildToolDocument(ToolDescriptorSchema.parse(tool("files", "search_files", "Search for files matching a pattern.")), analyzer);
    const intent = "where are the terraform files";
    expect(signals.boost(finder, signals.analyse(intent, words(intent)))).toBeCloseTo(0.15, 10);
  });
});
