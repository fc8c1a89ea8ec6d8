import type { Embedder, ToolDescriptorInput } from "@afw/contracts";
import { createHashingEmbedder } from "@afw/embeddings";
import { describe, expect, it } from "vitest";
import { combineViewScores, queryViews } from "./query-views.js";
import { createToolIndex } from "./tool-index.js";
import type { ToolIndexOptions } from "./tool-index-options.js";

const tool = (server: string, name: string, description: string): ToolDescriptorInput => ({
  server,
  name,
  description,
  inputSchema: { type: "object", properties: { id: { type: "string" } } },
});

const TOOLS: ToolDescriptorInput[] = [
  tool("github", "list_pull_requests", "List the open pull requests of a repository."),
  tool("github", "create_issue", "Create a new issue in a repository."),
  tool("slack", "post_message", "Post a message to a Slack channel."),
  tool("calendar", "list_events", "List the meetings and standup events of tomorrow's calendar."),
  tool("weather", "get_forecast", "Get tomorrow's weather forecast for a city."),
];

/** A request whose ask is its second sentence, after a first sentence of context. */
const CONTEXT_THEN_ASK = "I am prepping for the standup meeting tomorrow with the calendar events. Can you list the open pull requests?";

async function build(queryViewMode: ToolIndexOptions["queryViews"], embedder: Embedder = createHashingEmbedder({ dimensions: 256 })) {
  const index = createToolIndex({ embedder, queryViews: queryViewMode });
  await index.add(TOOLS);
  return index;
}

const rankOf = async (mode: ToolIndexOptions["queryViews"], query: string, id: string) => {
  const ranking = await (await build(mode)).rank(query, { mode: "semantic" });
  return ranking.tools.findIndex((t) => t.id === id);
};

describe("queryViews", () => {
  it("reads a request of one sentence whole, in every mode", () => {
    for (const mode of ["whole", "max", "blend", "last", "context-blend", "context-max"] as const) {
      expect(queryViews("list the open pull requests", "list the open pull requests", mode)).toEqual(["list the open pull requests"]);
    }
  });

  it("adds each asking part of a request of several, context left out", () => {
    const intent = CONTEXT_THEN_ASK;
    expect(queryViews(CONTEXT_THEN_ASK, intent, "whole")).toEqual([intent]);
    expect(queryViews(CONTEXT_THEN_ASK, intent, "max")).toEqual([intent, "Can you list the open pull requests"]);
    expect(queryViews(CONTEXT_THEN_ASK, intent, "context-blend")).toEqual([intent, "Can you list the open pull requests"]);
  });

  it("keeps the last asking part only for `last`, and one vector for a task of several requests in the context modes", () => {
    const task = "List the open pull requests. Then post a message to Slack.";
    expect(queryViews(task, task, "max")).toEqual([task, "List the open pull requests", "post a message to Slack"]);
    expect(queryViews(task, task, "last")).toEqual([task, "post a message to Slack"]);
    expect(queryViews(task, task, "context-max")).toEqual([task]);
  });

  it("embeds the asking parts' intents, quoted content out", () => {
    const query = "We ship on Fridays. Post 'release done' to the team channel";
    expect(queryViews(query, "We ship on Fridays. Post to the team channel", "max")[1]).toBe("Post to the team channel");
  });
});

describe("combineViewScores", () => {
  const whole = new Map([
    ["a", 0.9],
    ["b", 0.5],
    ["c", 0.2],
  ]);
  const ask = new Map([
    ["b", 0.95],
    ["a", 0.3],
  ]);

  it("gives one view's cosines unchanged, best first", () => {
    expect(combineViewScores([whole], "max")).toEqual([
      { id: "a", score: 0.9 },
      { id: "b", score: 0.5 },
      { id: "c", score: 0.2 },
    ]);
  });

  it("takes the best view (max) or half the whole and half the best ask (blend); a tool missing from a view gets its lowest cosine", () => {
    expect(combineViewScores([whole, ask], "max").map((h) => h.id)).toEqual(["b", "a", "c"]);
    const blend = new Map(combineViewScores([whole, ask], "blend").map((h) => [h.id, h.score]));
    expect(blend.get("b")).toBeCloseTo(0.725);
    expect(blend.get("a")).toBeCloseTo(0.6);
    expect(blend.get("c")).toBeCloseTo(0.25); // 0.5 × 0.2 + 0.5 × 0.3 (the ask view's lowest)
    expect(combineViewScores([whole, ask], "whole").map((h) => h.id)).toEqual(["a", "b", "c"]);
  });
});

describe("query views in the tool index", () => {
  it("ranks the asked tool of a request whose ask follows context higher with views than without", async () => {
    const id = "github/list_pull_requests";
    const without = await rankOf("whole", CONTEXT_THEN_ASK, id);
    const withViews = await rankOf("context-blend", CONTEXT_THEN_ASK, id);
    expect(withViews).toBeGreaterThanOrEqual(0);
    expect(withViews).toBeLessThan(without);
  });

  it("scores the asked tool by its best view with `max`", async () => {
    const semanticOf = async (mode: ToolIndexOptions["queryViews"]) =>
      (await (await build(mode)).rank(CONTEXT_THEN_ASK, { mode: "semantic" })).tools.find((t) => t.id === "github/list_pull_requests")!.semantic;
    const [whole, max, ask] = [await semanticOf("whole"), await semanticOf("max"), (await (await build("whole")).rank("Can you list the open pull requests", { mode: "semantic" })).tools[0]!];
    expect(ask.id).toBe("github/list_pull_requests");
    expect(max).toBeGreaterThan(whole);
    expect(max).toBeCloseTo(ask.semantic, 5);
  });

  it("gives a request of one sentence exactly the ranking without views, from one embedded text", async () => {
    const query = "list the standup events on tomorrow's calendar";
    const texts: string[][] = [];
    const hashing = createHashingEmbedder({ dimensions: 256 });
    const recording: Embedder = { ...hashing, embed: (batch, signal) => (texts.push([...batch]), hashing.embed(batch, signal)) };
    const before = await (await build("whole")).rank(query);
    const index = await build("max", recording);
    texts.length = 0;
    const after = await index.rank(query);
    expect(after.tools).toEqual(before.tools);
    expect(texts).toEqual([[query]]);
  });

  it("embeds every view of a query in one embedder call", async () => {
    const texts: string[][] = [];
    const hashing = createHashingEmbedder({ dimensions: 256 });
    const recording: Embedder = { ...hashing, embed: (batch, signal) => (texts.push([...batch]), hashing.embed(batch, signal)) };
    const index = await build("max", recording);
    texts.length = 0;
    await index.rank(CONTEXT_THEN_ASK, { mode: "semantic" });
    expect(texts).toEqual([[CONTEXT_THEN_ASK, "Can you list the open pull requests"]]);
  });
});
