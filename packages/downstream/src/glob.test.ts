import { describe, expect, it } from "vitest";
import { isToolAllowed, matchesGlob } from "./glob.js";

describe("matchesGlob", () => {
  it("matches * and ? and nothing else specially", () => {
    expect(matchesGlob("read_file", "read_*")).toBe(true);
    expect(matchesGlob("read_", "read_*")).toBe(true);
    expect(matchesGlob("write_file", "read_*")).toBe(false);
    expect(matchesGlob("get_a", "get_?")).toBe(true);
    expect(matchesGlob("get_ab", "get_?")).toBe(false);
    expect(matchesGlob("a.b", "a.b")).toBe(true);
    expect(matchesGlob("axb", "a.b")).toBe(false);
    expect(matchesGlob("x(1)+[y]", "x(1)+[*]")).toBe(true);
    expect(matchesGlob("Read_file", "read_*")).toBe(false);
    expect(matchesGlob("anything", "*")).toBe(true);
  });

  it("anchors the pattern at both ends", () => {
    expect(matchesGlob("pre_read_file", "read_*")).toBe(false);
    expect(matchesGlob("read_file_x", "*file")).toBe(false);
  });
});

describe("isToolAllowed", () => {
  it("allows everything without lists", () => {
    expect(isToolAllowed("x", {})).toBe(true);
  });
  it("requires a match in allow when allow is given", () => {
    expect(isToolAllowed("read_file", { allow: ["read_*", "list_*"] })).toBe(true);
    expect(isToolAllowed("write_file", { allow: ["read_*", "list_*"] })).toBe(false);
    expect(isToolAllowed("read_file", { allow: [] })).toBe(false);
  });
  it("lets deny win over allow", () => {
    expect(isToolAllowed("delete_file", { allow: ["*"], deny: ["delete_*"] })).toBe(false);
    expect(isToolAllowed("read_file", { allow: ["*"], deny: ["delete_*"] })).toBe(true);
  });
});
