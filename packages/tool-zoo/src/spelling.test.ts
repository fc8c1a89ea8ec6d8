import { describe, expect, it } from "vitest";
import { correctSpelling, oneEditApart, type SpellingLexicon } from "./spelling.js";
import { createToolIndex } from "./tool-index.js";

describe("oneEditApart", () => {
  it.each([
    ["teh", "the", true],
    ["deploymnet", "deployment", true],
    ["tel", "tell", true],
    ["wat", "what", true],
    ["delte", "delete", true],
    ["deletee", "delete", true],
    ["delete", "delete", false],
    ["dleete", "delete", true],
    ["tset", "best", false],
    ["abc", "abcde", false],
  ])("%s / %s -> %s", (a, b, expected) => {
    expect(oneEditApart(a, b)).toBe(expected);
  });
});

describe("correctSpelling", () => {
  const lexicon: SpellingLexicon = {
    functionWords: new Set(["the", "what", "of"]),
    common: new Set(["delete", "swap", "tell"]),
    toolWords: new Map([["deployment", 3], ["department", 1], ["scale", 2]]),
  };
  const known = (word: string) => ["api", "replicas", "bump"].includes(word);
  it("corrects unknown words to the nearest known word, by length", () => {
    expect(correctSpelling("bump teh api deploymnet to 5 replicas", lexicon, known)).toBe("bump the api deployment to 5 replicas");
    expect(correctSpelling("delte the branch", lexicon, known)).toBe("delete the branch");
  });
  it("leaves short real words, names and known words alone", () => {
    // "snap" is one edit from "swap", but a word of four letters is corrected only to a function word
    expect(correctSpelling("snap a picture", lexicon, known)).toBe("snap a picture");
    // nor is a word of 5-6 letters corrected to a shorter one: "bread" is a word, not a typo of "read"
    expect(correctSpelling("bread and milk", { ...lexicon, common: new Set(["read"]) }, known)).toBe("bread and milk");
    expect(correctSpelling("ask Delte about it", lexicon, known)).toBe("ask Delte about it");
    expect(correctSpelling("scale the api", lexicon, known)).toBe("scale the api");
  });
  it("looks up a bounded number of unknown words per text", () => {
    const text = `${Array.from({ length: 30 }, () => "zzzzzz").join(" ")} delte`;
    // the 31st unknown word is past the limit: left as typed
    expect(correctSpelling(text, lexicon, known).endsWith(" delte")).toBe(true);
    expect(correctSpelling("delte", lexicon, known)).toBe("delete");
  });
  it("finds the right tool through a misspelt word", async () => {
    const index = createToolIndex();
    await index.add([
      { server: "k8s", name: "scale_deployment", description: "Scale a deployment to a number of replicas.", inputSchema: { type: "object" } },
      { server: "k8s", name: "get_pod_logs", description: "Get the logs of a pod.", inputSchema: { type: "object" } },
    ]);
    const { results } = await index.search({ query: "the deploymnet needs more", mode: "keyword", top_k: 2 });
    expect(results[0]?.id).toBe("k8s/scale_deployment");
  });
});
