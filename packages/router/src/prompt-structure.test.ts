import { describe, expect, it } from "vitest";
import { DEFAULT_INTENT_PATTERNS } from "./default-intent-patterns.js";
import { compileIntentPatterns } from "./intent-patterns.js";
import { analyzePrompt, readPrompt, withoutAnswerForm } from "./prompt-structure.js";

// Prompts written for these tests from general knowledge (not from any evaluation set).
const pythonTrace = [
  "I'm getting this when I start the worker, any idea what's wrong?",
  "",
  "Traceback (most recent call last):",
  '  File "/srv/app/worker.py", line 42, in <module>',
  "    main()",
  '  File "/srv/app/worker.py", line 17, in main',
  "    config = load(path)",
  "KeyError: 'queue_url'",
].join("\n");

const fencedJs = [
  "Here is my reducer:",
  "```js",
  "export function reducer(state, action) {",
  "  switch (action.type) {",
  "    case 'add': return [...state, action.item];",
  "  }",
  "}",
  "```",
  "Why does the list stay empty after dispatching add?",
].join("\n");

const csv = ["id,name,amount,region", "1,Alice,20.5,north", "2,Bob,13,south", "3,Carol,7.25,north", "why does my parser crash on this"].join("\n");

const story = [
  "Make this more vivid:",
  "",
  "The old house stood at the end of the lane. Nobody had lived there for years, and the garden had grown wild. " +
    "Every evening the girl walked past it on her way home and wondered who had left the lamp in the window. " +
    "One night the lamp was lit, and she stopped at the gate.",
  "",
  "She pushed the gate open. It creaked. The path was covered in leaves and the door was ajar. " +
    "Inside, a clock was ticking although the house had been empty for a long time.",
  "",
  "On the table lay a letter with her name on it, written in a hand she did not know. The ink was still wet. " +
    "Upstairs a floorboard moved, and somewhere a window closed.",
  "",
  "Keep it under 300 words.",
].join("\n");

describe("analyzePrompt", () => {
  it("returns a short plain question unchanged", () => {
    expect(analyzePrompt("  How do I group sales by month?  ")).toEqual({ request: "How do I group sales by month?", pasted: [], reduced: false });
  });

  it("sets a Python traceback aside and keeps the question", () => {
    const s = analyzePrompt(pythonTrace);
    expect(s.pasted).toEqual(["stack-trace"]);
    expect(s.request).toContain("any idea what's wrong?");
    expect(s.request).not.toContain("worker.py");
  });

  it("finds JavaScript and Java stack frames and log lines", () => {
    const s = analyzePrompt(
      [
        "2026-03-01 10:22:31 INFO server started on :8080",
        "2026-03-01 10:22:35 ERROR request failed",
        "TypeError: Cannot read properties of undefined (reading 'id')",
        "    at handler (/app/src/routes.js:14:22)",
        "    at com.example.Service.run(Service.java:88)",
        "the service keeps restarting, what should I check?",
      ].join("\n"),
    );
    expect(s.pasted).toEqual(expect.arrayContaining(["stack-trace", "log"]));
    expect(s.request).toContain("what should I check?");
  });

  it("sets fenced and indented code aside", () => {
    const fenced = analyzePrompt(fencedJs);
    expect(fenced.pasted).toEqual(["code"]);
    expect(fenced.request).toBe("Here is my reducer:\nWhy does the list stay empty after dispatching add?");
    const indented = analyzePrompt("Why is this slow?\n\n    for i in range(n):\n        total += values[i]\n\nIt takes minutes for a million items.");
    expect(indented.pasted).toEqual(["code"]);
    expect(indented.request).not.toContain("range(n)");
  });

  it("recognises CSV, markdown tables, JSON, quotes and e-mail headers", () => {
    expect(analyzePrompt(csv)).toMatchObject({ pasted: ["csv"], request: "why does my parser crash on this" });
    expect(analyzePrompt("| month | sales |\n| --- | --- |\n| Jan | 10 |\nadd a total row").pasted).toEqual(["table"]);
    expect(analyzePrompt('{\n  "name": "afw",\n  "port": 8080\n}\nis this config valid?').pasted).toEqual(["json"]);
    expect(analyzePrompt("> We will ship on Friday.\n> Thanks, Ana\nhow do I say no politely?").pasted).toEqual(["quote"]);
    expect(analyzePrompt("From: ana@example.com\nSubject: launch\n\nWe ship Friday.\n\nsummarise this e-mail").pasted).toContain("email");
  });

  it("reads a pasted draft as a document and keeps the first and last paragraphs", () => {
    const s = analyzePrompt(story);
    expect(s.pasted).toEqual(["document"]);
    expect(s.request.startsWith("Make this more vivid:")).toBe(true);
    // The last paragraph only limits the answer's length, so it is not part of the request.
    expect(s.request).not.toContain("Keep it under 300 words.");
    expect(s.request).not.toContain("clock was ticking");
  });

  it("keeps the asking sentences of middle paragraphs", () => {
    const s = analyzePrompt(
      [
        "We run a shop with three warehouses.",
        "Orders come in through the website and the app. Could you suggest how to split the order handling into services? " + "x".repeat(600),
        "Thanks.",
      ].join("\n\n"),
    );
    expect(s.request).toContain("Could you suggest how to split the order handling into services?");
  });

  it("caps the request of a very long prompt and stays bounded on hostile input", () => {
    const long = analyzePrompt(`${"The quick brown fox jumps over the lazy dog. ".repeat(600)}\n\nWhat is this text about?`);
    expect(long.request.length).toBeLessThanOrEqual(1_200);
    expect(long.reduced).toBe(true);
    for (const hostile of [";".padEnd(300_000, " ") + "x", "|".repeat(200_000), `"${"a".repeat(100_000)}`, ",\n".repeat(100_000), "\n".repeat(500_000)]) {
      const s = analyzePrompt(hostile);
      expect(s.request.length).toBeLessThanOrEqual(1_200);
    }
  });
});

describe("readPrompt", () => {
  const matcher = compileIntentPatterns(DEFAULT_INTENT_PATTERNS);
  it("adds typed evidence of pasted material instead of its words", () => {
    const { pattern } = readPrompt(matcher, pythonTrace);
    expect(pattern.matches).toContainEqual({ intent: "technical-analysis", rule: "pasted:stack-trace", weight: 4 });
    expect(pattern.top).toBe("technical-analysis");
    const table = readPrompt(matcher, "Name,Score,Team\nAna,3,red\nBo,5,blue\nCy,2,red\nsort by score");
    expect(table.pattern.matches.map((m) => m.rule)).toContain("pasted:csv");
  });
  it("scores a short question exactly like the matcher", () => {
    const q = "What does the handbook say about remote work?";
    expect(readPrompt(matcher, q).pattern.scores).toEqual(matcher.score(q).scores);
  });
});

describe("withoutAnswerForm", () => {
  // Prompts written for these tests from general knowledge (not from any evaluation set).
  it("drops sentences that only set the answer's length, case, language or wording", () => {
    expect(withoutAnswerForm("Tell me about the history of tea in Britain. Keep it under 200 words. Do not use any emojis.")).toBe(
      "Tell me about the history of tea in Britain.",
    );
    expect(withoutAnswerForm("Describe a sunset over the harbour. Your entire response should be in lowercase letters.")).toBe(
      "Describe a sunset over the harbour.",
    );
    expect(withoutAnswerForm("Why do cats purr? Please respond only in Spanish, no other language is allowed.")).toBe("Why do cats purr?");
    expect(withoutAnswerForm("Give me three tips for sleeping better. Include the keywords \"routine\" and \"light\".")).toBe(
      "Give me three tips for sleeping better.",
    );
  });

  it("drops a constraint that opens the prompt but keeps a first sentence that asks", () => {
    expect(withoutAnswerForm("Do not use commas in your answer. Write a poem about the sea in winter.")).toBe("Write a poem about the sea in winter.");
    expect(withoutAnswerForm("Write a 300 word story about a lighthouse keeper. Use at most 3 paragraphs.")).toBe(
      "Write a 300 word story about a lighthouse keeper.",
    );
  });

  it("keeps sentences about a program's output and prompts that are only a constraint", () => {
    const technical = "The output should be 5 but my function returns 4. Why does the loop stop early?";
    expect(withoutAnswerForm(technical)).toBe(technical);
    expect(withoutAnswerForm("Answer in at most 50 words, please, and no emojis at all.")).toBe("Answer in at most 50 words, please, and no emojis at all.");
  });

  it("is what analyzePrompt hands on for a short prompt, marked reduced", () => {
    const s = analyzePrompt("Suggest a name for my bakery. Your answer must be in all capital letters.");
    expect(s).toEqual({ request: "Suggest a name for my bakery.", pasted: [], reduced: true });
  });

  it("stays fast on a long run of sentence-like text", () => {
    const long = `${"a".repeat(50_000)} ${"word. ".repeat(5_000)}`;
    expect(withoutAnswerForm(long).length).toBeGreaterThan(0);
  });
});
