import { describe, expect, it } from "vitest";
import { createInMemoryVectorStore } from "./in-memory-vector-store.js";
import { andFilters, matchesFilter } from "./vector-store.js";
import { runVectorStoreSuite } from "./testing/vector-store.suite.js";

runVectorStoreSuite("in-memory", async () => createInMemoryVectorStore());

describe("matchesFilter", () => {
  it("treats a missing field as unequal and outside every list", () => {
    expect(matchesFilter({ a: 1 }, { b: 1 })).toBe(false);
    expect(matchesFilter({ a: 1 }, { b: { $in: [1] } })).toBe(false);
    expect(matchesFilter({ a: 1 }, undefined)).toBe(true);
  });
  it("rejects unknown operators", () => {
    expect(() => matchesFilter({ a: 1 }, { a: { $like: 1 } as never })).toThrow(/unsupported/);
  });
  it("andFilters drops empty parts", () => {
    expect(andFilters(undefined, {})).toBeUndefined();
    expect(andFilters({ a: 1 }, undefined)).toEqual({ a: 1 });
    expect(andFilters({ a: 1 }, { b: 2 })).toEqual({ $and: [{ a: 1 }, { b: 2 }] });
  });
});
