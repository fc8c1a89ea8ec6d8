/**
 * Spelling correction of query words that no tool text and no word list of the analyzer knows ("tel the team", "teh
 * deploymnet", "wat labels"): a word one edit away (Damerau–Levenshtein: a letter inserted, deleted, replaced, or two
 * neighbours swapped) from a known word is read as that word. One edit is Elasticsearch's `fuzziness: AUTO` for words
 * of 3–5 letters (https://www.elastic.co/guide/en/elasticsearch/reference/current/common-options.html#fuzziness); the
 * limits here are stricter because the index has no dictionary of English to tell a typo from a word it does not
 * know, and short words have many real words one edit away (Peterson, "A note on undetected typing errors", CACM 29(7),
 * 1986: "snap" is one edit from "swap", "sea" from "see"): a word of 3–4 letters is corrected only to a function word
 * ("teh", "wat"), one of 5–6 letters also to a word of the analyzer's lists (operation verbs and their synonyms) at
 * least as long ("delte" → "delete", but not "bread" → "read"), a longer one also to a word of the tools' texts. Capitalised words (names) and words with digits are never corrected.
 */

import type { ToolDescriptor } from "@afw/contracts";
import { ACTION_CLASSES } from "./ranking-signals.js";
import { DEFAULT_ABBREVIATIONS, DEFAULT_SYNONYM_GROUPS, STOP_WORDS, words } from "./text-analysis.js";
import { toolNameWords, toolParameters } from "./tool-document.js";

/** Words a query word may be corrected to. */
export interface SpellingLexicon {
  /** Function words (the analyzer's stop words). */
  readonly functionWords: ReadonlySet<string>;
  /** Words of the analyzer's other lists: synonym groups, operation verbs, abbreviations. */
  readonly common: ReadonlySet<string>;
  /** Lower-case words of the indexed tools' texts, with the number of tools using each. */
  readonly toolWords: ReadonlyMap<string, number>;
}

/** Shortest word corrected at all (to a function word), to a word of the analyzer's lists, and to a tool-text word. */
const MIN_LENGTH = 3;
const MIN_COMMON_WORD_LENGTH = 5;
const MIN_TOOL_WORD_LENGTH = 7;
/** Unknown words looked up per text, at most. */
const MAX_LOOKUPS = 24;

/** Whether `a` and `b` are at most one Damerau–Levenshtein edit apart (and not equal). */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    // a replacement, or two neighbours swapped
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  // an insertion or deletion
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** The word `word` (lower case, unknown) is most likely a typo of, if any: a common word first, then the most used tool word. */
function correction(word: string, lexicon: SpellingLexicon): string | undefined {
  let best: string | undefined;
  const firstOf = (words: ReadonlySet<string>, minLength = 0) => {
    for (const candidate of words) {
      if (candidate.length >= minLength && oneEditApart(word, candidate) && (best === undefined || candidate < best)) best = candidate;
    }
  };
  firstOf(lexicon.functionWords);
  if (best !== undefined || word.length < MIN_COMMON_WORD_LENGTH) return best;
  // not to a shorter word: "bread" is one letter more than "read", and a real word
  firstOf(lexicon.common, word.length);
  if (best !== undefined || word.length < MIN_TOOL_WORD_LENGTH) return best;
  let uses = 0;
  for (const [candidate, count] of lexicon.toolWords) {
    if (count > uses && oneEditApart(word, candidate)) [best, uses] = [candidate, count];
  }
  return best;
}

/**
 * The text with each unknown lower-case word (`known` says which words are known, e.g. by their stem) replaced by the
 * known word one edit away, if there is one. Words of the text are runs of letters; everything else is kept as is.
 */
export function correctSpelling(text: string, lexicon: SpellingLexicon, known: (word: string) => boolean): string {
  let lookups = 0;
  return text.replace(/(^|[^A-Za-z0-9_'-])([A-Za-z]+)(?=$|[^A-Za-z0-9_'-])/g, (match, before: string, word: string) => {
    if (word.length < MIN_LENGTH || word !== word.toLowerCase() || lexicon.functionWords.has(word) || lexicon.common.has(word) || lexicon.toolWords.has(word) || known(word)) {
      return match;
    }
    // each lookup scans the word lists: a bounded number per text (queries are untrusted)
    if (++lookups > MAX_LOOKUPS) return match;
    const fixed = correction(word, lexicon);
    return fixed === undefined ? match : `${before}${fixed}`;
  });
}

const plainWord = (word: string) => /^[a-z]+$/.test(word);
/** The analyzer's function words. */
const FUNCTION_WORDS: ReadonlySet<string> = new Set([...STOP_WORDS].filter(plainWord));
/** The analyzer's other word lists: synonyms, operation verbs, abbreviations. */
const COMMON_WORDS: ReadonlySet<string> = new Set(
  [...DEFAULT_SYNONYM_GROUPS.flat(), ...Object.values(ACTION_CLASSES).flat(), ...Object.keys(DEFAULT_ABBREVIATIONS)].filter(plainWord),
);

/** The spelling lexicon of a set of tools: the analyzer's lists and the words of the tools' names, descriptions and parameters. */
export function spellingLexiconFor(tools: Iterable<ToolDescriptor>): SpellingLexicon {
  const toolWords = new Map<string, number>();
  for (const tool of tools) {
    const text = [toolNameWords(tool), tool.description, ...toolParameters(tool).map((p) => `${p.name} ${p.description}`)].join(" ");
    for (const word of new Set(words(text))) if (plainWord(word)) toolWords.set(word, (toolWords.get(word) ?? 0) + 1);
  }
  return { functionWords: FUNCTION_WORDS, common: COMMON_WORDS, toolWords };
}

/** A spelling corrector over a changing set of tools: {@link correctSpelling} with the lexicon of the current tools. */
export interface Speller {
  /** The text with its unknown words corrected (see {@link correctSpelling}). */
  correct(text: string): string;
  /** Drops the lexicon (the tools changed); it is rebuilt on the next `correct`. */
  invalidate(): void;
}

/** A {@link Speller} whose lexicon is built from `tools()` on first use after each `invalidate`; `known` as for {@link correctSpelling}. */
export function createSpeller(tools: () => Iterable<ToolDescriptor>, known: (word: string) => boolean): Speller {
  let lexicon: SpellingLexicon | undefined;
  return {
    correct: (text) => correctSpelling(text, (lexicon ??= spellingLexiconFor(tools())), known),
    invalidate: () => void (lexicon = undefined),
  };
}
