import { describe, expect, it } from "vitest";
import { isToolAllowed } from "./tool-filter.js";

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
