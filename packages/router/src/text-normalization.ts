/**
 * Text helpers shared by the pattern matcher and the lexical features: lower-casing, accent folding and word splitting, all
 * bounded so very long inputs cost a bounded amount of time.
 */

/** Longest prefix of a question the pattern and lexical stages look at, in characters. */
export const MAX_MATCH_CHARACTERS = 8_000;

const COMBINING_MARKS = /[\u0300-\u036f]/g;
const STROKED = /[łøđ]/g;
const STROKED_MAP: Record<string, string> = { ł: "l", ø: "o", đ: "d" };
const WORD = /[\p{L}\p{N}_+#]+/gu;

/** Lower-cases `text`, folds accents (`é` -> `e`, `ł` -> `l`, `ß` stays) and collapses white space. */
export function foldText(text: string): string {
  return text.slice(0, MAX_MATCH_CHARACTERS).toLowerCase().normalize("NFKD").replace(COMBINING_MARKS, "").replace(STROKED, (c) => STROKED_MAP[c] ?? c).replace(/\s+/g, " ").trim();
}

/** Splits folded text into words (letters, digits, `_`, `+`, `#`, so `c++` and `c#` survive). */
export function splitWords(folded: string): string[] {
  return folded.match(WORD) ?? [];
}

/** A question folded ({@link foldText}) and split into its words ({@link splitWords}); read-only. */
export interface FoldedWords {
  readonly folded: string;
  readonly words: readonly string[];
}

let lastText: string | undefined;
let lastFolded: FoldedWords = { folded: "", words: [] };

/**
 * {@link foldText} and {@link splitWords} of `text`, remembering the last text: the pattern rules, the cue lexicon and the lexical
 * features of one classification each read the same question, which is then folded and split once.
 */
export function foldedWords(text: string): FoldedWords {
  if (text !== lastText) {
    const folded = foldText(text);
    lastFolded = { folded, words: splitWords(folded) };
    lastText = text;
  }
  return lastFolded;
}

/**
 * Shortens a long question for the embedding model: keeps the head and the tail (where people usually state what they want) and
 * drops the middle.
 * @param maxCharacters - Longest result.
 * @default maxCharacters 1000
 */
export function truncateForModel(text: string, maxCharacters = 1_000): string {
  const trimmed = text.trim();
  if (trimmed.length <= maxCharacters) return trimmed;
  const head = Math.floor(maxCharacters * 0.7);
  const tail = maxCharacters - head - 5;
  return `${trimmed.slice(0, head)} ... ${trimmed.slice(trimmed.length - tail)}`;
}
