import type { ToolDescriptorInput } from "@afw/contracts";
import { describe, expect, it } from "vitest";
import { FUSION_FEATURES, fusionScore, rerankByFusion, type FusionFeatures, type FusionModel } from "./learned-fusion.js";
import { createToolIndex } from "./tool-index.js";

const tool = (server: string, name: string, description: string): ToolDescriptorInput => ({ server, name, description, inputSchema: { type: "object", properties: {} } });

const TOOLS = [
  tool("tracker", "list_issues", "List the issues of a project."),
  tool("tracker", "create_issue", "Create an issue in a project."),
  tool("tracker", "delete_issue", "Delete an issue of a project."),
  tool("chat", "post_message", "Post a message to a channel."),
];

/** A model that scores by one feature only (mean 0, scale 1). */
const only = (feature: (typeof FUSION_FEATURES)[number], weight: number): FusionModel => ({
  features: [...FUSION_FEATURES],
  mean: FUSION_FEATURES.map(() => 0),
  scale: FUSION_FEATURES.map(() => 1),
  weights: FUSION_FEATURES.map((f) => (f === feature ? weight : 0)),
  candidates: 30,
});

const features = (values: Partial<FusionFeatures>): FusionFeatures => ({ ...(Object.fromEntries(FUSION_FEATURES.map((f) => [f, 0])) as FusionFeatures), ...values });

describe("learned fusion", () => {
  it("scores by standardised features and refuses a model fitted on other features", () => {
    const model = { ...only("keyword", 2), mean: FUSION_FEATURES.map(() => 0.5), scale: FUSION_FEATURES.map(() => 0.25) };
    expect(fusionScore(model, features({ keyword: 1 }))).toBeCloseTo(2 * (1 - 0.5) / 0.25);
    expect(() => fusionScore({ ...model, features: ["keyword"] }, features({}))).toThrow(/features/);
  });

  it("re-orders the leading candidates only, keeping the scores sorted", () => {
    const tools = [
      { id: "a", score: 3 },
      { id: "b", score: 2 },
      { id: "c", score: 1 },
      { id: "d", score: 0.5 },
    ];
    const coverage: Record<string, number> = { a: 0, b: 0.5, c: 1, d: 2 };
    const reranked = rerankByFusion(tools, { ...only("coverage", 1), candidates: 3 }, (t) => features({ coverage: coverage[t.id]! }));
    expect(reranked.map((t) => t.id)).toEqual(["c", "b", "a", "d"]);
    expect(reranked.map((t) => t.score)).toEqual([3, 2, 1, 0.5]);
  });

  it("changes the index's order with a model and observes the features of the hand-weighted ranking", async () => {
    const observed: Array<{ query: string; ids: string[] }> = [];
    const plain = createToolIndex({ fusion: { model: null, observe: (query, list) => observed.push({ query, ids: list.map((c) => c.id) }) } });
    await plain.add(TOOLS);
    const before = (await plain.search({ query: "remove an issue", top_k: 3 })).results.map((r) => r.id);
    expect(before[0]).toBe("tracker/delete_issue");
    expect(observed).toEqual([{ query: "remove an issue", ids: expect.arrayContaining(["tracker/delete_issue"]) as string[] }]);
    // a model that prefers the tools the query asks no write of puts the delete tool last among the candidates
    const learned = createToolIndex({ fusion: { model: only("action", -1) } });
    await learned.add(TOOLS);
    const after = (await learned.search({ query: "remove an issue", top_k: 3 })).results.map((r) => r.id);
    expect(after.slice(0, 2)).toEqual(before.filter((id) => id !== "tracker/delete_issue").slice(0, 2));
    expect(after).toContain("tracker/delete_issue");
    expect(after.indexOf("tracker/delete_issue")).toBeGreaterThan(0);
  });
});
