#!/usr/bin/env node
// Checks the held-out tool-search set authored-tasks-6.json:
//  - every label (relevant / needed) names a tool of the catalog (server/name),
//  - ids are unique, each task has `relevant` (1-3 tools) or `needed` (2-5 tools), no duplicate query inside the set,
//  - no task overlaps a task of an existing set: the same query after lower-casing and stripping punctuation,
//    or a word-set Jaccard similarity >= 0.5.
// It prints counts (and the ids of this set's own offending tasks) only, never the items of the other sets. Exit code 1 on any problem.
//
// Usage: node packages/tool-zoo/scripts/check-overlap-6.mjs [--include-unseen]
//   AFW_SHARED_DATA: folder holding tools-catalog.json and tools-dev.json (default: the shared data folder beside the
//   worktree). authored-tasks-2.json is an unseen set under the session rules: it is compared only with
//   --include-unseen (for the lead), and still only counts are printed.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const includeUnseen = process.argv.includes("--include-unseen");
const dataDir = [process.env.AFW_SHARED_DATA, resolve(here, "../../../../shared/data"), resolve(here, "../../../shared/data")].find(
  (dir) => !!dir && existsSync(join(dir, "tools-catalog.json")),
);
if (!dataDir) {
  console.error("tools-catalog.json not found; set AFW_SHARED_DATA");
  process.exit(2);
}

const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));
const set = readJson(join(here, "authored-tasks-6.json"));
const catalog = readJson(join(dataDir, "tools-catalog.json"));
const toolIds = new Set(catalog.tools.map((t) => `${t.server}/${t.name}`));

/** Lower-cased text with punctuation stripped (letters and digits of any script kept), spaces collapsed. */
const normalize = (text) => text.toLowerCase().normalize("NFC").replace(/[^\p{L}\p{N}]+/gu, " ").trim();
const words = (text) => new Set(normalize(text).split(" ").filter(Boolean));
const jaccard = (a, b) => {
  let inter = 0;
  for (const w of a) if (b.has(w)) inter++;
  const union = a.size + b.size - inter;
  return union === 0 ? 0 : inter / union;
};

let problems = 0;
const problem = (kind, n) => {
  if (n > 0) {
    problems += n;
    console.log(`PROBLEM ${kind}: ${n}`);
  }
};

// Labels, ids, shapes.
const ids = new Set();
let dupIds = 0, unknownLabels = 0, badShape = 0, single = 0, multi = 0;
const servers = new Map();
for (const task of set.tasks) {
  if (ids.has(task.id)) dupIds++;
  ids.add(task.id);
  const hasRelevant = Array.isArray(task.relevant), hasNeeded = Array.isArray(task.needed);
  if (hasRelevant === hasNeeded || typeof task.query !== "string" || !task.query.trim()) badShape++;
  const labels = hasRelevant ? task.relevant : hasNeeded ? task.needed : [];
  if (hasRelevant) {
    single++;
    if (labels.length < 1 || labels.length > 3) badShape++;
    const server = labels[0]?.split("/")[0];
    servers.set(server, (servers.get(server) ?? 0) + 1);
  }
  if (hasNeeded) {
    multi++;
    if (labels.length < 2 || labels.length > 5) badShape++;
  }
  if (new Set(labels).size !== labels.length) badShape++;
  for (const label of labels) if (!toolIds.has(label)) unknownLabels++;
}
console.log(`set: ${set.tasks.length} tasks (${single} single-tool, ${multi} multi-step); catalog: ${toolIds.size} tools`);
console.log(`single-tool tasks by first label's server: ${servers.size} servers, min ${Math.min(...servers.values())}`);
problem("duplicate ids", dupIds);
problem("labels not in the catalog", unknownLabels);
problem("tasks of the wrong shape", badShape);

// Within the set: exact duplicates are a problem; near-duplicates are counted only.
const mine = set.tasks.map((t) => ({ norm: normalize(t.query), words: words(t.query) }));
let selfExact = 0, selfNear = 0;
for (let i = 0; i < mine.length; i++)
  for (let j = i + 1; j < mine.length; j++) {
    if (mine[i].norm === mine[j].norm) selfExact++;
    else if (jaccard(mine[i].words, mine[j].words) >= 0.5) selfNear++;
  }
problem("duplicate queries inside the set", selfExact);
console.log(`near-duplicate pairs inside the set (Jaccard >= 0.5, informative): ${selfNear}`);

// Against the existing sets.
const others = [
  join(here, "authored-tasks.json"),
  ...(includeUnseen ? [join(here, "authored-tasks-2.json")] : []),
  join(here, "authored-tasks-3.json"),
  join(here, "authored-tasks-4.json"),
  [join(here, "authored-tasks-5.json"), "/work/wt-tools9/packages/tool-zoo/scripts/authored-tasks-5.json"].find((f) => existsSync(f)),
  join(dataDir, "tools-dev.json"),
];
for (const file of others) {
  if (!file || !existsSync(file)) {
    console.log(`skipped (absent): ${file ?? "authored-tasks-5.json"}`);
    continue;
  }
  const queries = readJson(file).tasks.map((t) => String(t.query ?? ""));
  const theirs = queries.map((q) => ({ norm: normalize(q), words: words(q) }));
  let exact = 0, near = 0, maxJ = 0;
  const hit = new Set();
  mine.forEach((m, i) => {
    for (const t of theirs) {
      if (m.norm === t.norm) {
        exact++;
        hit.add(set.tasks[i].id);
      } else {
        const j = jaccard(m.words, t.words);
        if (j >= 0.5) {
          near++;
          hit.add(set.tasks[i].id);
        }
        if (j > maxJ) maxJ = j;
      }
    }
  });
  console.log(`${file.split("/").pop()}: ${theirs.length} tasks compared; exact ${exact}, Jaccard>=0.5 ${near}, max Jaccard ${maxJ.toFixed(2)}`);
  problem(`overlap with ${file.split("/").pop()}`, exact + near);
  // Only this set's own ids are named, so its author can rewrite them; the other set's items are never printed.
  if (hit.size > 0) console.log(`  own tasks involved: ${[...hit].join(" ")}`);
}
if (!includeUnseen) console.log("authored-tasks-2.json (unseen) not compared; the lead can run with --include-unseen");

console.log(problems === 0 ? "OK" : `FAILED: ${problems} problem(s)`);
process.exit(problems === 0 ? 0 : 1);
