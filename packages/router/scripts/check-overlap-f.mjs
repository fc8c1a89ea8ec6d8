// Overlap check of the hand-written held-out set F (eval/intent-holdout-f.json) against every text the router was
// trained or tuned on: the hand-written exemplars, the shared dev set, the tuning sets A-E and the labelled real
// training prompts ($AFW_SHARED_DATA/intent-real-prompts.json). Two kinds of collision: the same text after folding
// (case, accents, punctuation and spacing ignored) and a word Jaccard similarity of at least 0.5 between the folded
// word sets. It prints only the items of set F that collide (id, kind, score, which file), never the other texts, so
// the author of set F can rewrite them without reading the sets it must not imitate. Plain string comparison: no model,
// classifier or embedder is loaded.
// Run: AFW_SHARED_DATA=/work/afw-data node scripts/check-overlap-f.mjs [set.json]   (exit code 1 when an item collides)
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";

/** The word Jaccard similarity at or above which two questions count as overlapping. */
export const JACCARD_THRESHOLD = 0.5;

/** Lower case, accents removed, every run of non-letters and non-digits one space, trimmed. */
export function foldQuestion(text) {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** The set of words of the folded text. */
export function wordSet(text) {
  const folded = foldQuestion(text);
  return new Set(folded === "" ? [] : folded.split(" "));
}

/** |A ∩ B| / |A ∪ B| of the two texts' word sets (0 when both are empty). */
export function wordJaccard(a, b) {
  const wa = a instanceof Set ? a : wordSet(a);
  const wb = b instanceof Set ? b : wordSet(b);
  let common = 0;
  for (const w of wa) if (wb.has(w)) common++;
  const union = wa.size + wb.size - common;
  return union === 0 ? 0 : common / union;
}

/**
 * The items of `candidates` that repeat (after folding) or resemble (word Jaccard >= threshold) a text of one of the
 * `sources`; each collision names the candidate, the kind, the score and the source's name, never the source's text.
 */
export function findOverlaps(candidates, sources, threshold = JACCARD_THRESHOLD) {
  const prepared = sources.map(({ name, texts }) => ({
    name,
    folded: new Set(texts.map(foldQuestion)),
    words: texts.map(wordSet),
  }));
  const out = [];
  for (const item of candidates) {
    const folded = foldQuestion(item.question);
    const words = wordSet(item.question);
    for (const source of prepared) {
      if (source.folded.has(folded)) {
        out.push({ id: item.id, kind: "exact", score: 1, source: source.name });
        continue;
      }
      let best = 0;
      for (const other of source.words) best = Math.max(best, wordJaccard(words, other));
      if (best >= threshold) out.push({ id: item.id, kind: "jaccard", score: Number(best.toFixed(3)), source: source.name });
    }
  }
  return out;
}

/** Every question text of the exemplar file (intent -> list of questions). */
export function exemplarTexts(yamlText) {
  const file = parseYaml(yamlText) ?? {};
  return Object.values(file).flatMap((list) => (Array.isArray(list) ? list.filter((q) => typeof q === "string") : []));
}

/**
 * The texts set F must not overlap, read from the package (exemplars, sets A-E), the shared dev set and the shared
 * data folder; `missing` names the files that are not there (the check then covers the others).
 */
export function overlapSources(packageRoot, env = process.env) {
  const files = [
    ["data/intent-exemplars.yaml", join(packageRoot, "data", "intent-exemplars.yaml"), "yaml"],
    ["shared dev set", env.AFW_DEV_SET ?? join(packageRoot, "..", "..", "..", "shared", "data", "intent-dev.json"), "json"],
    ...["", "-b", "-c", "-d", "-e"].map((s) => [`eval/intent-holdout${s}.json`, join(packageRoot, "eval", `intent-holdout${s}.json`), "json"]),
    ["intent-real-prompts.json", env.AFW_SHARED_DATA ? join(env.AFW_SHARED_DATA, "intent-real-prompts.json") : "", "json"],
  ];
  const sources = [];
  const missing = [];
  for (const [name, path, kind] of files) {
    if (!path || !existsSync(path)) {
      missing.push(name);
      continue;
    }
    const text = readFileSync(path, "utf8");
    sources.push({ name, texts: kind === "yaml" ? exemplarTexts(text) : JSON.parse(text).map((item) => item.question) });
  }
  return { sources, missing };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const setPath = process.argv[2] ?? join(packageRoot, "eval", "intent-holdout-f.json");
  const items = JSON.parse(readFileSync(setPath, "utf8"));
  const { sources, missing } = overlapSources(packageRoot);
  // Within the set itself: no two items the same after folding (near-duplicates are reported too).
  const dupes = [];
  for (let i = 0; i < items.length; i++)
    for (let j = i + 1; j < items.length; j++) {
      const score = wordJaccard(items[i].question, items[j].question);
      if (score >= JACCARD_THRESHOLD) dupes.push(`${items[i].id} ~ ${items[j].id} (${score.toFixed(3)})`);
    }
  const overlaps = findOverlaps(items, sources);
  for (const s of sources) console.log(`compared with ${s.name}: ${s.texts.length} texts`);
  for (const m of missing) console.log(`not found, not compared: ${m}`);
  for (const o of overlaps) console.log(`COLLIDES ${o.id} ${o.kind} ${o.score} with ${o.source}: ${items.find((i) => i.id === o.id).question}`);
  for (const d of dupes) console.log(`NEAR-DUPLICATE within the set: ${d}`);
  console.log(`${items.length} items, ${overlaps.length} collisions, ${dupes.length} near-duplicates within the set`);
  if (overlaps.length > 0 || dupes.length > 0 || missing.length > 0) process.exitCode = 1;
}
