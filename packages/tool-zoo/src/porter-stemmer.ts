// The Porter (1980) stemming algorithm, written from the published description.

const STEP2: ReadonlyArray<readonly [string, string]> = [
  ["ational", "ate"],
  ["tional", "tion"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["izer", "ize"],
  ["bli", "ble"],
  ["alli", "al"],
  ["entli", "ent"],
  ["eli", "e"],
  ["ousli", "ous"],
  ["ization", "ize"],
  ["ation", "ate"],
  ["ator", "ate"],
  ["alism", "al"],
  ["iveness", "ive"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["aliti", "al"],
  ["iviti", "ive"],
  ["biliti", "ble"],
  ["logi", "log"],
];

const STEP3: ReadonlyArray<readonly [string, string]> = [
  ["icate", "ic"],
  ["ative", ""],
  ["alize", "al"],
  ["iciti", "ic"],
  ["ical", "ic"],
  ["ful", ""],
  ["ness", ""],
];

const STEP4 = [
  "al",
  "ance",
  "ence",
  "er",
  "ic",
  "able",
  "ible",
  "ant",
  "ement",
  "ment",
  "ent",
  "ion",
  "ou",
  "ism",
  "ate",
  "iti",
  "ous",
  "ive",
  "ize",
];

function isConsonant(word: string, i: number): boolean {
  const c = word[i];
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return false;
  if (c === "y") return i === 0 ? true : !isConsonant(word, i - 1);
  return true;
}

/** m() of the Porter paper: the number of VC sequences in `stem`. */
function measure(stem: string): number {
  let n = 0;
  let i = 0;
  const len = stem.length;
  while (i < len && isConsonant(stem, i)) i++;
  while (i < len) {
    while (i < len && !isConsonant(stem, i)) i++;
    if (i >= len) break;
    while (i < len && isConsonant(stem, i)) i++;
    n++;
  }
  return n;
}

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

function endsDoubleConsonant(word: string): boolean {
  const n = word.length;
  return n >= 2 && word[n - 1] === word[n - 2] && isConsonant(word, n - 1);
}

/** *o of the Porter paper: stem ends consonant-vowel-consonant, last not w, x or y. */
function endsCvc(word: string): boolean {
  const n = word.length;
  if (n < 3) return false;
  const last = word[n - 1];
  return (
    isConsonant(word, n - 3) && !isConsonant(word, n - 2) && isConsonant(word, n - 1) && last !== "w" && last !== "x" && last !== "y"
  );
}

/**
 * Stems an English word with the Porter algorithm (`"listing"` → `"list"`, `"repositories"` →
 * `"repositori"`). Expects a lower-case word; words of one or two letters are returned unchanged.
 *
 * @example
 * ```ts
 * porterStem("deleted") // "delet"
 * porterStem("deletes") // "delet"
 * ```
 */
export function porterStem(input: string): string {
  if (input.length <= 2) return input;
  let word = input;
  // Step 1a
  if (word.endsWith("sses")) word = word.slice(0, -2);
  else if (word.endsWith("ies")) word = word.slice(0, -2);
  else if (word.endsWith("ss")) {
    // unchanged
  } else if (word.endsWith("s")) word = word.slice(0, -1);
  // Step 1b
  let step1bExtra = false;
  if (word.endsWith("eed")) {
    if (measure(word.slice(0, -3)) > 0) word = word.slice(0, -1);
  } else if (word.endsWith("ed") && hasVowel(word.slice(0, -2))) {
    word = word.slice(0, -2);
    step1bExtra = true;
  } else if (word.endsWith("ing") && hasVowel(word.slice(0, -3))) {
    word = word.slice(0, -3);
    step1bExtra = true;
  }
  if (step1bExtra) {
    if (word.endsWith("at") || word.endsWith("bl") || word.endsWith("iz")) word += "e";
    else if (endsDoubleConsonant(word) && !/[lsz]$/.test(word)) word = word.slice(0, -1);
    else if (measure(word) === 1 && endsCvc(word)) word += "e";
  }
  // Step 1c
  if (word.endsWith("y") && hasVowel(word.slice(0, -1))) word = word.slice(0, -1) + "i";
  // Step 2
  for (const [suffix, replacement] of STEP2) {
    if (word.endsWith(suffix)) {
      const stem = word.slice(0, -suffix.length);
      if (measure(stem) > 0) word = stem + replacement;
      break;
    }
  }
  // Step 3
  for (const [suffix, replacement] of STEP3) {
    if (word.endsWith(suffix)) {
      const stem = word.slice(0, -suffix.length);
      if (measure(stem) > 0) word = stem + replacement;
      break;
    }
  }
  // Step 4
  for (const suffix of STEP4) {
    if (word.endsWith(suffix)) {
      const stem = word.slice(0, -suffix.length);
      if (measure(stem) > 1 && (suffix !== "ion" || /[st]$/.test(stem))) word = stem;
      break;
    }
  }
  // Step 5a
  if (word.endsWith("e")) {
    const stem = word.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) word = stem;
  }
  // Step 5b
  if (measure(word) > 1 && endsDoubleConsonant(word) && word.endsWith("l")) word = word.slice(0, -1);
  return word;
}
