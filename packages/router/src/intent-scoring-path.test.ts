import { describe, expect, it } from "vitest";
import { foldText, foldedWords, splitWords } from "./text-normalization.js";

describe("intent scoring path", () => {
  it("folds and splits a question like foldText and splitWords, whatever was folded before", () => {
    for (const text of ["Café au lait, s'il vous plaît", "Łódź  łąka\tØre", "Café au lait, s'il vous plaît", ""]) {
      const folded = foldText(text);
      expect(foldedWords(text)).toEqual({ folded, words: splitWords(folded) });
    }
  });
});
