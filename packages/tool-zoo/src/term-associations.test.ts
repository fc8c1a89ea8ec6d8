import { describe, expect, it } from "vitest";
import { associatedTerms } from "./term-associations.js";
import { createToolIndex } from "./tool-index.js";

describe("learned term associations", () => {
  it("expand a request word to the tool-text words it goes with, scaled by weight and strength", () => {
    const added = new Map(associatedTerms([{ term: "song", weight: 1 }], 0.5).map((t) => [t.term, t.weight]));
    expect(added.get("music")).toBeGreaterThan(0.1);
    expect(added.get("music")).toBeLessThanOrEqual(0.5);
    expect(associatedTerms([{ term: "song", weight: 1 }], 0.5).length).toBeGreaterThan(1);
  });

  it("leave out terms the query has and words they know nothing about", () => {
    const terms = associatedTerms([{ term: "song", weight: 1 }, { term: "music", weight: 1 }, { term: "zzzz", weight: 1 }], 0.5);
    expect(terms.map((t) => t.term)).not.toContain("music");
    expect(terms.every((t) => t.weight < 0.5)).toBe(true);
  });

  it("let a request find a tool that shares none of its words", async () => {
    const index = createToolIndex();
    await index.add([
      { server: "media", name: "find_tracks", description: "Find tracks by artist or genre in the music library.", inputSchema: { type: "object" } },
      { server: "office", name: "find_files", description: "Find files by name in the shared drive.", inputSchema: { type: "object" } },
    ]);
    const { results } = await index.search({ query: "find me a song", top_k: 2 });
    expect(results[0]?.id).toBe("media/find_tracks");
  });
});
