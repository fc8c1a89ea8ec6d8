import { describe, expect, it } from "vitest";
import { hashNormalizedQuestion, normalizeQuestion } from "./question-hash.js";

const hashQuestion = (question: string) => hashNormalizedQuestion(normalizeQuestion(question));

describe("normalizeQuestion", () => {
  it("applies NFKC, lower-cases, collapses whitespace and trims trailing punctuation", () => {
    expect(normalizeQuestion("  How do I\tRESTART\n a pod?? ")).toBe("how do i restart a pod");
    expect(normalizeQuestion("Ｆｕｌｌ　width！")).toBe("full width");
    expect(normalizeQuestion("ﬁle")).toBe("file");
    expect(normalizeQuestion("What is 2.5?")).toBe("what is 2.5");
    expect(normalizeQuestion("¿Qué es MCP? …")).toBe("¿qué es mcp");
  });

  it("keeps punctuation that is not trailing", () => {
    expect(normalizeQuestion("Is a.b the same as a-b?")).toBe("is a.b the same as a-b");
  });
});

describe("hashNormalizedQuestion of normalizeQuestion", () => {
  it("gives one hex SHA-256 for questions that normalise alike and different ones otherwise", () => {
    expect(hashQuestion("Why?")).toMatch(/^[0-9a-f]{64}$/);
    expect(hashQuestion("Why?")).toBe(hashQuestion("  why "));
    expect(hashQuestion("why")).not.toBe(hashQuestion("why not"));
    // sha256("hello")
    expect(hashQuestion("Hello!")).toBe("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
  });
});
