import { describe, expect, it } from "vitest";
import { splitQuotedContent } from "./query-text.js";
import { createTextAnalyzer, firstSentence, splitIdentifier, stripMarkdown, words } from "./text-analysis.js";

describe("stemming (the Porter algorithm of the stemmer package)", () => {
  const { stem } = createTextAnalyzer();
  it.each([
    ["caresses", "caress"],
    ["ponies", "poni"],
    ["cats", "cat"],
    ["agreed", "agre"],
    ["plastered", "plaster"],
    ["motoring", "motor"],
    ["hopping", "hop"],
    ["filing", "file"],
    ["happy", "happi"],
    ["relational", "relat"],
    ["conditional", "condit"],
    ["listing", "list"],
    ["deleted", "delet"],
    ["deletes", "delet"],
    ["repositories", "repositori"],
    ["repository", "repositori"],
  ])("%s -> %s", (word, expected) => {
    expect(stem(word)).toBe(expected);
  });
  it("leaves short words alone", () => {
    expect(stem("is")).toBe("is");
  });
});

describe("tokenising", () => {
  it("splits identifiers in every common case style", () => {
    expect(splitIdentifier("list_pull_requests")).toEqual(["list", "pull", "requests"]);
    expect(splitIdentifier("API-get-block-children")).toEqual(["api", "get", "block", "children"]);
    expect(splitIdentifier("getHTTPResponse2")).toEqual(["get", "http", "response2"]);
  });
  it("reads a name inside a hyphenated or dotted token as the name alone", () => {
    expect(words("a PromQL-compatible source")).toEqual(["a", "promql", "compatible", "promqlcompatible", "source"]);
    expect(words("PromQL")).toEqual(["promql"]);
    expect(words("GitHub.com and api.getUserById")).toEqual(["github", "com", "and", "api", "get", "user", "by", "id"]);
  });

  it("keeps capitalised product names whole but splits code identifiers", () => {
    expect(words("GitHub and SQLite via listPullRequests or repo_path")).toEqual(["github", "and", "sqlite", "via", "list", "pull", "requests", "or", "repo", "path"]);
  });
  it("strips markdown and URLs", () => {
    expect(stripMarkdown("## Title\n**Read** a [file](https://x.y) `now`")).toBe("Title\n Read a file now");
  });
  it("takes the first sentence", () => {
    expect(firstSentence("Reads a file. Works in allowed dirs.")).toBe("Reads a file.");
    expect(firstSentence("No period here")).toBe("No period here");
  });
  it("expands abbreviations, drops stop words and stems", () => {
    const analyzer = createTextAnalyzer();
    expect(analyzer.terms("Merge the PR in my repo")).toEqual(["merg", "pull", "request", "repositori"]);
    expect(analyzer.terms("k8s pods")).toEqual(["kubernet", "pod"]);
  });
  it("adds synonyms of query words at a lower weight", () => {
    const analyzer = createTextAnalyzer();
    const terms = new Map(analyzer.queryTerms("remove the folder").map((t) => [t.term, t.weight]));
    expect(terms.get("remov")).toBe(1);
    expect(terms.get("delet")).toBe(0.35);
    expect(terms.get("directori")).toBe(0.35);
    expect(terms.has("the")).toBe(false);
  });
  it("does not read 'local' as a place, and knows git's undo and switch words", () => {
    const analyzer = createTextAnalyzer();
    const expanded = (word: string) => analyzer.queryTerms(word).map((t) => t.term);
    expect(expanded("local")).toEqual(["local"]);
    expect(expanded("unstage")).toContain("reset");
    expect(expanded("switch")).toContain("checkout");
  });
});

describe("splitQuotedContent", () => {
  it("moves quoted passages out of the intent", () => {
    const parts = splitQuotedContent("post 'deploy done' in the channel");
    expect(parts.quoted).toEqual(["deploy done"]);
    expect(parts.intent).toBe("post in the channel");
  });
  it("does not treat apostrophes inside words as quotes", () => {
    expect(splitQuotedContent("what's in Sam's notes").quoted).toEqual([]);
  });
  it("replaces entities by their kind", () => {
    expect(splitQuotedContent("read https://example.com/a.html now").intent).toBe("read url web page now");
    expect(splitQuotedContent("open ~/notes/todo.md").intent).toBe("open file");
    expect(splitQuotedContent("show assets/logo.png").intent).toBe("show image file");
    expect(splitQuotedContent("merge PR 8 in acme/api").intent).toBe("merge PR 8 in repository");
    expect(splitQuotedContent("move PROJ-123 to done").intent).toBe("move issue to done");
    expect(splitQuotedContent("run rate(x[5m]) now").intent).toBe("run now");
    const parts = splitQuotedContent("stage src/a.ts in acme/api");
    expect(parts.kinds).toEqual(["file", "repository"]);
    expect(parts.quoted).toEqual(["src/a.ts", "acme/api"]);
  });
});
