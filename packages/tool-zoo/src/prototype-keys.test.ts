import { describe, expect, it } from "vitest";
import { createTextAnalyzer } from "./text-analysis.js";

// Found by the gateway's tool-argument fuzzer: a search for "constructor" crashed the keyword
// search with "expansion.split is not a function" (the abbreviation table is a plain object).
describe("words that name Object.prototype members", () => {
  const names = ["constructor", "toString", "valueOf", "hasOwnProperty", "__proto__", "isPrototypeOf", "__defineGetter__"];

  it("are analysed as ordinary words, in queries and in indexed text", () => {
    const analyzer = createTextAnalyzer();
    for (const name of names) {
      expect(() => analyzer.terms(`call the ${name} of a class`), name).not.toThrow();
      expect(() => analyzer.queryTerms(name), name).not.toThrow();
    }
    expect(analyzer.terms("constructor")).toEqual([analyzer.stem("constructor")]);
  });

  it("still expands real abbreviations", () => {
    const analyzer = createTextAnalyzer();
    expect(analyzer.terms("k8s")).toEqual([analyzer.stem("kubernetes")]);
    expect(analyzer.terms("constructor")).toEqual([analyzer.stem("constructor")]);
  });
});
