import { describe, expect, it } from "vitest";
import { globToRegExp } from "./glob.js";

describe("globToRegExp", () => {
  it("matches * and ? and treats everything else literally", () => {
    expect(globToRegExp("user-*").test("user-42:chat")).toBe(true);
    expect(globToRegExp("user-?").test("user-42")).toBe(false);
    expect(globToRegExp("user-??").test("user-42")).toBe(true);
    expect(globToRegExp("a.b").test("axb")).toBe(false);
    expect(globToRegExp("a.b").test("a.b")).toBe(true);
    expect(globToRegExp("(x)[y]{z}|+^$\\/").test("(x)[y]{z}|+^$\\/")).toBe(true);
    expect(globToRegExp("*").test("")).toBe(true);
    expect(globToRegExp("s").test("s-1")).toBe(false);
  });
});
