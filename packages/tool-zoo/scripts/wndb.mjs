// Parser of the WordNet database files (WNDB format, https://wordnet.princeton.edu/documentation/wndb5wn), shared by
// scripts/build-wordnet-synonyms.mjs and its unit test. Pure functions over the text of the files; no I/O.

/** Parts of speech of the four data/index file pairs, by file suffix. */
export const POS_FILES = { noun: "n", verb: "v", adj: "a", adv: "r" };

/**
 * Parses one line of an `index.<pos>` file:
 * `lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...` (senses in frequency order).
 * Returns undefined for the licence header (lines that start with two spaces).
 */
export function parseIndexLine(line) {
  if (!line || line.startsWith("  ")) return undefined;
  const f = line.trim().split(/\s+/);
  const synsetCount = Number(f[2]);
  const pointerCount = Number(f[3]);
  const at = 4 + pointerCount;
  const tagSenseCount = Number(f[at + 1]);
  const offsets = f.slice(at + 2, at + 2 + synsetCount);
  if (offsets.length !== synsetCount) throw new Error(`malformed index line: ${line.slice(0, 80)}`);
  return { lemma: f[0], pos: f[1], tagSenseCount, offsets };
}

/**
 * Parses one line of a `data.<pos>` file:
 * `offset lex_filenum ss_type w_cnt(hex) [word lex_id]... p_cnt [symbol offset pos source/target(hex)]... [frames] | gloss`.
 * Words are lower-cased with the adjective markers `(a)`, `(p)`, `(ip)` removed; `source`/`target` are 1-based word
 * numbers of a lexical pointer, 0 for a pointer between whole synsets.
 */
export function parseDataLine(line) {
  if (!line || line.startsWith("  ")) return undefined;
  const bar = line.indexOf(" | ");
  const f = (bar >= 0 ? line.slice(0, bar) : line).trim().split(/\s+/);
  const wordCount = parseInt(f[3], 16);
  const words = [];
  for (let i = 0; i < wordCount; i++) words.push(f[4 + 2 * i].replace(/\((a|p|ip)\)$/, ""));
  let at = 4 + 2 * wordCount;
  const pointerCount = Number(f[at++]);
  const pointers = [];
  for (let i = 0; i < pointerCount; i++, at += 4) {
    const st = f[at + 3];
    pointers.push({ symbol: f[at], offset: f[at + 1], pos: f[at + 2] === "s" ? "a" : f[at + 2], source: parseInt(st.slice(0, 2), 16), target: parseInt(st.slice(2), 16) });
  }
  return { offset: f[0], pos: f[2] === "s" ? "a" : f[2], words, pointers };
}

/** Parses a whole data file into a map offset → synset. */
export function parseDataFile(text) {
  const synsets = new Map();
  for (const line of text.split("\n")) {
    const synset = parseDataLine(line);
    if (synset) synsets.set(synset.offset, synset);
  }
  return synsets;
}

/** A single word (letters, or two letter groups joined by a hyphen, written joined) as the analyzer sees it, else undefined. */
export function singleWord(lemma) {
  if (/^[a-z]+$/.test(lemma)) return lemma;
  if (/^[a-z]+-[a-z]+$/.test(lemma)) return lemma.replace("-", "");
  return undefined;
}

/**
 * The related words of one lemma in one part of speech, by tier:
 * `s1` the other words of its most frequent sense; `s2` those of its second sense when the semantic-concordance tag count
 * attests it (`tagsense_cnt >= 2`); `d` derivationally related forms (`+` pointers from this lemma) of those senses; `h`
 * (verbs only) the words of the direct hypernyms (`@`) of the first sense. Only single lower-case words (see {@link singleWord}).
 *
 * @param entry a parsed index line
 * @param synsets offset → synset of the lemma's part of speech
 * @param synsetsOf part of speech → (offset → synset), to resolve derivational pointers across parts of speech
 */
export function relatedWords(entry, synsets, synsetsOf) {
  const out = { s1: new Set(), s2: new Set(), d: new Set(), h: new Set() };
  const senses = entry.offsets.slice(0, entry.tagSenseCount >= 2 ? 2 : 1);
  senses.forEach((offset, rank) => {
    const synset = synsets.get(offset);
    if (!synset) return;
    const self = synset.words.findIndex((w) => w.toLowerCase() === entry.lemma) + 1;
    for (const word of synset.words) {
      if (word !== word.toLowerCase()) continue; // proper names are capitalised
      const single = singleWord(word);
      if (single) out[rank === 0 ? "s1" : "s2"].add(single);
    }
    for (const p of synset.pointers) {
      if (p.symbol === "+" && p.source === self) {
        const word = synsetsOf[p.pos]?.get(p.offset)?.words[p.target - 1];
        const single = word && word === word.toLowerCase() ? singleWord(word) : undefined;
        if (single) out.d.add(single);
      } else if (p.symbol === "@" && entry.pos === "v" && rank === 0) {
        for (const word of synsetsOf.v?.get(p.offset)?.words ?? []) {
          const single = word === word.toLowerCase() ? singleWord(word) : undefined;
          if (single) out.h.add(single);
        }
      }
    }
  });
  return out;
}
