import { AfwError, type ToolDescriptorInput } from "@afw/contracts";
import { describe, expect, it } from "vitest";
import { Bm25Index } from "./bm25.js";
import { createKeywordSearch, expansionTerms } from "./feedback.js";
import { createToolIndex } from "./tool-index.js";

const q = (...terms: string[]) => terms.map((term) => ({ term, weight: 1 }));

/** `top` matches the query; `sibling` shares no query word but shares `flange` and `bundle` with `top`. */
function corpus(): Bm25Index<"body"> {
  const index = new Bm25Index({ fields: { body: { weight: 1 } } });
  index.add("top", { body: ["zorblat", "widget", "flange", "bundle"] });
  index.add("sibling", { body: ["flange", "bundle", "packer"] });
  index.add("other", { body: ["widget", "colour"] });
  for (let i = 0; i < 6; i++) index.add(`filler${i}`, { body: ["common", `word${i}`] });
  // in 7 of 10 documents: too common to expand with
  index.add("common1", { body: ["common"] });
  return index;
}

describe("expansionTerms", () => {
  it("takes the best documents' terms, not the query's nor very common ones, weights summing to 1", () => {
    const index = corpus();
    const query = q("zorblat");
    const terms = expansionTerms(index, query, index.search(query), { docs: 1, terms: 5 });
    expect(terms.map((t) => t.term).sort()).toEqual(["bundle", "flange", "widget"]);
    expect(terms.reduce((sum, t) => sum + t.weight, 0)).toBeCloseTo(1, 9);
    expect(expansionTerms(index, q("common"), index.search(q("common")), { docs: 3, terms: 5 }).map((t) => t.term)).not.toContain("common");
    expect(expansionTerms(index, q("nothing"), [], { docs: 3, terms: 5 })).toEqual([]);
  });
});

describe("createKeywordSearch", () => {
  it("with feedback pulls up a document sharing no query word but words of the best one", () => {
    const index = corpus();
    const plain = createKeywordSearch(index, false)(q("zorblat"), undefined, 10);
    expect(plain.map((h) => h.id)).toEqual(["top"]);
    const expanded = createKeywordSearch(index, { docs: 1, terms: 3, weight: 0.3 })(q("zorblat"), undefined, 10);
    expect(expanded[0]!.id).toBe("top");
    expect(expanded.map((h) => h.id)).toContain("sibling");
    expect(expanded.findIndex((h) => h.id === "sibling")).toBeLessThan(expanded.findIndex((h) => h.id === "other"));
  });

  it("off (false or undefined) is the plain search, and honours the filter with feedback", () => {
    const index = corpus();
    const query = q("widget", "flange");
    expect(createKeywordSearch(index, false)(query, undefined, 10)).toEqual(index.search(query, undefined, 10));
    expect(createKeywordSearch(index, undefined)(query, undefined, 10)).toEqual(index.search(query, undefined, 10));
    const filtered = createKeywordSearch(index, { docs: 2, terms: 5, weight: 0.5 })(query, (id) => id !== "sibling", 10);
    expect(filtered.map((h) => h.id)).not.toContain("sibling");
  });

  it("rejects invalid settings", () => {
    const index = corpus();
    expect(() => createKeywordSearch(index, { docs: 0, terms: 5, weight: 0.3 })).toThrow(AfwError);
    expect(() => createKeywordSearch(index, { docs: 3, terms: 5, weight: 1 })).toThrow(/feedback options/);
  });
});

describe("createToolIndex({ feedback })", () => {
  const tool = (server: string, name: string, description: string): ToolDescriptorInput => ({
    server,
    name,
    description,
    inputSchema: { type: "object", properties: {} },
  });
  const TOOLS = [
    tool("crates", "zorblat_widgets", "Zorblat widgets into a quixotic bundle of flanges."),
    tool("crates", "flange_packer", "Pack flanges into a quixotic bundle."),
    tool("mail", "send_email", "Send an email message to a recipient."),
    tool("calendar", "create_event", "Create a calendar event."),
    tool("weather", "get_forecast", "Get the weather forecast for a city."),
    tool("notes", "write_note", "Write a note."),
    tool("music", "play_song", "Play a song."),
    tool("maps", "route", "Directions between two places."),
  ];

  it("expands each ranked query: a single query, and each step of a multi-step task", async () => {
    const off = createToolIndex({});
    const on = createToolIndex({ feedback: { docs: 1, terms: 5, weight: 0.3 } });
    await off.add(TOOLS);
    await on.add(TOOLS);
    const ids = async (index: typeof on, query: string) => (await index.search({ query, mode: "keyword", top_k: 5 })).results.map((h) => h.id);
    expect(await ids(off, "zorblat the widgets")).not.toContain("crates/flange_packer");
    expect((await ids(on, "zorblat the widgets")).slice(0, 2)).toEqual(["crates/zorblat_widgets", "crates/flange_packer"]);
    const offTask = await off.search({ query: "Send an email to bob, then zorblat the widgets", mode: "keyword", top_k: 5 });
    expect(offTask.results.map((h) => h.id)).not.toContain("crates/flange_packer");
    const task = await on.search({ query: "Send an email to bob, then zorblat the widgets", mode: "keyword", top_k: 5 });
    expect(task.steps).toHaveLength(2);
    const packer = task.results.find((h) => h.id === "crates/flange_packer");
    expect(packer?.step).toBe(1);
  });
});
