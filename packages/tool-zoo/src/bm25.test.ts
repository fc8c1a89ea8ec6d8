import { describe, expect, it } from "vitest";
import { Bm25Index, normalizeScores } from "./bm25.js";

const q = (...terms: string[]) => terms.map((term) => ({ term, weight: 1 }));

describe("Bm25Index", () => {
  // N = 3, avgLen = 2, k1 = 1.2, b = 0.75; idf(apple) = ln(1 + 1.5 / 2.5) = ln 1.6
  const index = new Bm25Index({ fields: { body: { weight: 1 } } });
  index.add("d1", { body: ["apple", "banana"] });
  index.add("d2", { body: ["apple", "apple", "cherry"] });
  index.add("d3", { body: ["cherry"] });

  it("matches a hand-computed Okapi BM25 example", () => {
    const hits = index.search(q("apple"));
    const idf = Math.log(1.6);
    // d1: tf 1, len 2 -> norm 1 -> 1 * 2.2 / 2.2 = 1
    // d2: tf 2, len 3 -> norm 0.25 + 0.75 * 1.5 = 1.375 -> tf' = 1.4545 -> 1.4545 * 2.2 / 2.6545 = 1.20548
    expect(hits.map((h) => h.id)).toEqual(["d2", "d1"]);
    expect(hits[1]!.score).toBeCloseTo(idf * 1, 6);
    expect(hits[0]!.score).toBeCloseTo(idf * 1.205479, 5);
    expect(index.idf("apple")).toBeCloseTo(0.470004, 6);
  });

  it("sums over query terms with their weights", () => {
    const both = index.search(q("apple", "cherry")).find((h) => h.id === "d2")!.score;
    const apple = index.search(q("apple")).find((h) => h.id === "d2")!.score;
    const cherry = index.search(q("cherry")).find((h) => h.id === "d2")!.score;
    expect(both).toBeCloseTo(apple + cherry, 9);
    const half = index.search([{ term: "apple", weight: 0.5 }]).find((h) => h.id === "d2")!.score;
    expect(half).toBeCloseTo(apple / 2, 9);
  });

  it("ignores unknown terms, honours a filter and forgets removed documents", () => {
    expect(index.search(q("durian"))).toEqual([]);
    expect(index.search(q("apple"), (id) => id !== "d2").map((h) => h.id)).toEqual(["d1"]);
    const copy = new Bm25Index({ fields: { body: { weight: 1 } } });
    copy.add("a", { body: ["x"] });
    copy.add("b", { body: ["x", "y"] });
    expect(copy.remove("a")).toBe(true);
    expect(copy.remove("a")).toBe(false);
    expect(copy.search(q("x")).map((h) => h.id)).toEqual(["b"]);
  });

  it("weights fields (BM25F)", () => {
    const fielded = new Bm25Index({ fields: { name: { weight: 3, b: 0 }, body: { weight: 1, b: 0 } } });
    fielded.add("in-name", { name: ["merge"], body: ["other"] });
    fielded.add("in-body", { name: ["other"], body: ["merge"] });
    fielded.add("none", { name: ["x"], body: ["y"] });
    const [first, second] = fielded.search(q("merge"));
    expect(first!.id).toBe("in-name");
    // tf' 3 vs 1 with k1 1.2: 3 * 2.2 / 4.2 vs 1
    expect(first!.score / second!.score).toBeCloseTo((3 * 2.2) / 4.2, 6);
  });
});

describe("fusion", () => {
  it("normalises against the best score and a floor", () => {
    const plain = normalizeScores([
      { id: "a", score: 4 },
      { id: "b", score: 2 },
    ]);
    expect(plain.get("a")).toBe(1);
    expect(plain.get("b")).toBe(0.5);
    const floored = normalizeScores(
      [
        { id: "a", score: 0.6 },
        { id: "b", score: 0.4 },
        { id: "c", score: 0.1 },
      ],
      0.2,
    );
    expect(floored.get("a")).toBeCloseTo(1);
    expect(floored.get("b")).toBeCloseTo(0.5);
    expect(floored.get("c")).toBe(0);
    expect(normalizeScores([{ id: "z", score: 0 }]).get("z")).toBe(0);
  });
});
