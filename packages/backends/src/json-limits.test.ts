import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, parseJsonBounded } from "./json-limits.js";

describe("parseJsonBounded", () => {
  it("parses ordinary JSON like JSON.parse", () => {
    expect(parseJsonBounded('{"a":[1,{"b":"c"}],"d":null}')).toEqual({ a: [1, { b: "c" }], d: null });
  });

  it("accepts nesting up to the limit and refuses one level more, before parsing", () => {
    const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
    expect(() => parseJsonBounded(nested(MAX_JSON_DEPTH))).not.toThrow();
    expect(() => parseJsonBounded(nested(MAX_JSON_DEPTH + 1))).toThrow(SyntaxError);
    expect(() => parseJsonBounded(nested(1_000_000))).toThrow(/deeper than 256/);
    expect(() => parseJsonBounded('{"a":{"b":{"c":1}}}', 2)).toThrow(SyntaxError);
  });

  it("does not count brackets inside strings, escaped quotes included", () => {
    expect(parseJsonBounded(`{"t":"${"[".repeat(1000)}\\"${"{".repeat(1000)}"}`, 2)).toEqual({ t: `${"[".repeat(1000)}"${"{".repeat(1000)}` });
  });

  it("still throws SyntaxError for invalid JSON", () => {
    expect(() => parseJsonBounded("<html>")).toThrow(SyntaxError);
  });
});
