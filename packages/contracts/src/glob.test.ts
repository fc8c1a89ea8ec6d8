import { describe, expect, it } from "vitest";
import { MAX_GLOB_LENGTH } from "./glob.js";
import { GlobPatternSchema, matchesGlob } from "./index.js";

/** A backtracking matcher (what regex engines do with `.*a.*a…`), to show the budget has teeth. */
function backtrackingSteps(text: string, pattern: string): number {
  let steps = 0;
  const go = (ti: number, pi: number): boolean => {
    steps++;
    if (steps > 1e7) return false;
    if (pi === pattern.length) return ti === text.length;
    if (pattern[pi] === "*") {
      for (let k = ti; k <= text.length; k++) if (go(k, pi + 1)) return true;
      return false;
    }
    return ti < text.length && (pattern[pi] === "?" || pattern[pi] === text[ti]) && go(ti + 1, pi + 1);
  };
  go(0, 0);
  return steps;
}

const stepsOf = (text: string, pattern: string) => {
  let steps = 0;
  const matched = matchesGlob(text, pattern, () => steps++);
  return { steps, matched };
};

describe("matchesGlob", () => {
  it.each([
    ["read_file", "read_*", true],
    ["read_file", "*", true],
    ["", "*", true],
    ["", "?", false],
    ["read_file", "read_?ile", true],
    ["write_file", "read_*", false],
    ["abc", "a*c", true],
    ["abcd", "a*c", false],
    ["a.b+c", "a.b+c", true],
    ["axb", "a.b", false],
    ["sess-é-1", "sess-?-1", true],
    ["aaa", "a**a", true],
    ["Read", "read", false],
  ])("%s against %s is %s", (text, pattern, expected) => {
    expect(matchesGlob(text, pattern)).toBe(expected);
  });

  it("stays within text x pattern steps on adversarial patterns where a backtracking matcher explodes", () => {
    const id = "a".repeat(128);
    for (const pattern of ["*a*a*a*a*a*a*a*ab", "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*ab", `${"*a".repeat(100)}b`]) {
      const { steps, matched } = stepsOf(id, pattern);
      expect(matched).toBe(false);
      const budget = (id.length + 1) * (pattern.length + 1);
      expect(steps).toBeLessThanOrEqual(budget);
      // A backtracking matcher needs far more than the budget on the shortest of these.
      if (pattern.length < 20) expect(backtrackingSteps(id, pattern)).toBeGreaterThan(100 * budget);
    }
  });

  it("bounds client patterns to MAX_GLOB_LENGTH characters with a readable message", () => {
    expect(GlobPatternSchema.safeParse("*".repeat(MAX_GLOB_LENGTH)).success).toBe(true);
    const tooLong = GlobPatternSchema.safeParse("*".repeat(MAX_GLOB_LENGTH + 1));
    expect(tooLong.success).toBe(false);
    expect(tooLong.error?.issues[0]?.message).toBe(`pattern must be at most ${MAX_GLOB_LENGTH} characters`);
  });
});
