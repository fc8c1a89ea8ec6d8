import { describe, expect, it } from "vitest";
import { DEFAULT_INTENT_PATTERNS } from "./default-intent-patterns.js";
import { compileIntentPatterns, mergeIntentPatterns, parseIntentPatterns } from "./intent-patterns.js";

describe("intent patterns", () => {
  const matcher = compileIntentPatterns({
    intents: {
      "technical-analysis": { keywords: { "debug*": 2, bug: 1 }, phrases: { "stack trace": 3 }, regex: [{ pattern: "\\b[A-Z]\\w*Error\\b", weight: 3, flags: "u" }] },
      "data-processing": { keywords: { csv: 3 } },
    },
    fastPath: { minScore: 3, minMargin: 2 },
  });

  it("scores keywords (accent- and case-insensitive), prefixes, phrases and regexes once each", () => {
    const s = matcher.score("Debugging a BUG in the Stack Trace: TypeError, TypeError, bug");
    expect(s.top).toBe("technical-analysis");
    expect(s.matches.map((m) => m.rule).sort()).toEqual(["keyword:bug", "keyword:debug*", "phrase:stack trace", "regex:\\b[A-Z]\\w*Error\\b"]);
    expect(s.scores[1]).toBe(2 + 1 + 3 + 3);
  });

  it("decides alone only with a clear lead (fast path)", () => {
    expect(matcher.score("a stack trace").decisive).toBe(true);
    expect(matcher.score("a stack trace from the csv import").decisive).toBe(false); // multi-intent: 3 vs 3
    expect(matcher.score("a bug").decisive).toBe(false); // too weak
    expect(matcher.score("nothing here").top).toBeUndefined();
  });

  it("with maxRunnerUp, does not decide alone when another intent's rules also matched", () => {
    const strict = compileIntentPatterns({ ...matcher.config, fastPath: { minScore: 3, minMargin: 2, maxRunnerUp: 0 } });
    expect(strict.score("a stack trace").decisive).toBe(true);
    const contested = "a stack trace and a TypeError from the csv import";
    expect(matcher.score(contested).decisive).toBe(true); // 6 vs 3: a clear lead
    expect(strict.score(contested).decisive).toBe(false); // but csv competes
  });

  it("loads from YAML or JSON and rejects invalid configs with CONFIG_INVALID", () => {
    const yaml = parseIntentPatterns("intents:\n  conversation:\n    keywords: { hola: 3 }\nfastPath: { minScore: 2, minMargin: 1 }\n");
    expect(compileIntentPatterns(yaml).score("¡Hola!").decisive).toBe(true);
    const json = parseIntentPatterns(JSON.stringify({ intents: { "rag-retrieval": { phrases: { "knowledge base": 3 } } } }));
    expect(compileIntentPatterns(json).score("search the knowledge base").top).toBe("rag-retrieval");
    expect(() => parseIntentPatterns("intents: { poetry: {} }")).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => compileIntentPatterns({ intents: { conversation: { regex: [{ pattern: "(", weight: 1 }] } } })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  it("merges configs: later keywords override, regexes add up", () => {
    const merged = mergeIntentPatterns(DEFAULT_INTENT_PATTERNS, { intents: { conversation: { keywords: { howdy: 9 } } } });
    expect(merged.intents.conversation?.keywords.howdy).toBe(9);
    expect(merged.intents.conversation?.keywords.hello).toBe(DEFAULT_INTENT_PATTERNS.intents.conversation?.keywords.hello);
  });

  it("the default patterns cover the other languages", () => {
    const defaults = compileIntentPatterns(DEFAULT_INTENT_PATTERNS);
    expect(defaults.score("Busca en la base de conocimiento el manual de vacaciones").top).toBe("rag-retrieval");
    expect(defaults.score("Wandle die CSV-Datei um und entferne Duplikate").top).toBe("data-processing");
    expect(defaults.score("Bonjour, ça va ?").top).toBe("conversation");
    // Italian and Dutch cues
    expect(defaults.score("Secondo il regolamento, quanti giorni di permesso abbiamo?").top).toBe("rag-retrieval");
    expect(defaults.score("Ciao, come stai?").top).toBe("conversation");
    expect(defaults.score("Verwijder de dubbele rijen en bereken het gemiddelde per kolom").top).toBe("data-processing");
    expect(defaults.score("Hoe structureren we de architectuur van het platform?").top).toBe("structural-thinking");
  });

  it("bounds the work on huge inputs", () => {
    const huge = "lorem ipsum dolor ".repeat(5_000);
    const started = performance.now();
    compileIntentPatterns(DEFAULT_INTENT_PATTERNS).score(huge);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe("suffix keywords", () => {
  it("a leading * matches word endings (compounds)", () => {
    const m = compileIntentPatterns({ intents: { "rag-retrieval": { keywords: { "*handbuch": 3 } } } });
    expect(m.score("Was sagt das Mitarbeiterhandbuch?").top).toBe("rag-retrieval");
    expect(m.score("handbuch").top).toBeUndefined(); // the suffix alone is not a compound
  });
});

describe("affix rules", () => {
  it("match in configuration order across intents, and an empty prefix matches every word", () => {
    const matcher = compileIntentPatterns({
      intents: { "data-processing": { keywords: { "sum*": 1, "*ation": 1 } }, "technical-analysis": { keywords: { "su*": 2, "*tion": 1 } } },
    });
    expect(matcher.score("summation").matches.map((m) => `${m.intent} ${m.rule}`)).toEqual([
      "technical-analysis keyword:su*",
      "data-processing keyword:sum*",
      "technical-analysis keyword:*tion",
      "data-processing keyword:*ation",
    ]);
    const everything = compileIntentPatterns({ intents: { conversation: { keywords: { "*": 1, "zz*": 1 } } } });
    expect(everything.score("hello there").matches.map((m) => m.rule)).toEqual(["keyword:*"]);
  });
});
