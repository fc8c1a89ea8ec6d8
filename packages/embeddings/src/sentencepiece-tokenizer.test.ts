import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EmbeddingsModel } from "@energetic-ai/embeddings";
import { createSentencePieceTokenizer, type SentencePieceEntry } from "./sentencepiece-tokenizer.js";
import { modelDirectory } from "./use-lite-runner.js";

const reserved: SentencePieceEntry[] = [["\ufffd", 0], ["<s>", 0], ["</s>", 0], ["r1", 0], ["r2", 0], ["r3", 0]];

describe("createSentencePieceTokenizer (small vocabulary)", () => {
  const vocabulary: SentencePieceEntry[] = [...reserved, ["▁hello", -2], ["▁he", -3], ["llo", -3], ["▁", -4], ["w", -5], ["o", -5], ["r", -5], ["l", -5], ["d", -5], ["▁world", -9], ["▁wor", -3], ["ld", -3]];
  const tokenizer = createSentencePieceTokenizer(vocabulary);
  const id = (piece: string) => vocabulary.findIndex(([p]) => p === piece);

  it("picks the segmentation with the best total score", () => {
    expect(tokenizer.encode("hello")).toEqual([id("▁hello")]);
    // "▁wor" + "ld" (-6) beats "▁world" (-9).
    expect(tokenizer.encode("hello world")).toEqual([id("▁hello"), id("▁wor"), id("ld")]);
  });

  it("maps unknown characters to id 0 and collapses runs of them", () => {
    expect(tokenizer.encode("hello zzz")).toEqual([id("▁hello"), id("▁"), 0]);
    expect(tokenizer.encode("hello z w")).toEqual([id("▁hello"), id("▁"), 0, id("▁"), id("w")]);
  });

  it("applies NFKC normalisation and gives no ids for empty text", () => {
    expect(tokenizer.encode("ｈｅｌｌｏ")).toEqual(tokenizer.encode("hello"));
    expect(tokenizer.encode("")).toEqual([]);
  });

  it("never produces the reserved control symbols", () => {
    expect(tokenizer.encode("<s>")).not.toContain(1);
  });
});

describe("createSentencePieceTokenizer (USE-lite vocabulary)", () => {
  const vocabulary = JSON.parse(readFileSync(join(modelDirectory(), "vocab.json"), "utf8")) as Array<[string, number]>;
  const ours = createSentencePieceTokenizer(vocabulary);
  const reference = new EmbeddingsModel({ vocabulary, model: undefined as never }).tokenizer;

  it("gives the same ids as the tokenizer of @energetic-ai/embeddings", () => {
    // Hand-written sentences plus deterministic random strings of vocabulary pieces and odd characters.
    const texts = [
      "why does my build fail on the CI server when tests pass locally?",
      "Write me a short poem about autumn leaves 🍂🍁",
      "¿Dónde está la biblioteca? Wo ist der Bahnhof? 東京タワーはどこですか",
      "  leading and trailing spaces  ",
      "tabs\tand\nnewlines",
      "ｆｕｌｌｗｉｄｔｈ ＡＢＣ ①②",
      "x".repeat(300),
      "résumé naïve façade coöperate",
      "SELECT * FROM users WHERE id = 42;",
      "∑ x² ≤ ∞ — “quotes” ‘single’ …",
    ];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const odd = ["é", "ß", "😀", "中", " ", "  ", "-", "'", "Z", "q", "\u0301"];
    for (let i = 0; i < 400; i++) {
      let text = "";
      const parts = 1 + Math.floor(random() * 12);
      for (let p = 0; p < parts; p++) {
        text += random() < 0.8 ? vocabulary[6 + Math.floor(random() * (vocabulary.length - 6))]![0].replaceAll("▁", " ") : odd[Math.floor(random() * odd.length)];
      }
      texts.push(text);
    }
    const mismatches = texts.filter((text) => JSON.stringify(ours.encode(text)) !== JSON.stringify(reference.encode(text)));
    expect(mismatches).toEqual([]);
  });
});
