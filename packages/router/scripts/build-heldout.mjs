// Rebuilds the hand-labelled held-out files of the intent classifier from git snapshots of their sources.
// The keys per intent live in data/heldout-keys.json (one home; taken from data/HELDOUT-SETS-2026-11-29*.md and,
// for real-heldout-ifeval.json, data/DATA-SOURCES.md). Each output is a JSON array of {id, question, intent,
// source} in source-file order, question = the prompt text as in the source. The script checks that the keys agree
// with the "Keys per intent" lists of the records and that each file's SHA-256 equals the one in the keys file (exit
// code 1 otherwise). It runs no model. Plain Node, no dependencies.
// A set may read several source files of one snapshot (`parts`, each with its own path, id prefix, source string and
// keys; the record then lists the keys of each part under a `### \`<path>\`` heading), and may key JSON Lines rows by
// their 1-based line number (`keyField` "#line"); source lines that are not valid JSON must be listed in the part's
// `invalidLines` (they are skipped, and the build fails when one of them parses or another line does not).
// Needs AFW_MIRRORS (default /work/.mirror: <owner>+<name>/repo bare git snapshots) and AFW_SHARED_DATA (output folder);
// AFW_HELDOUT_OUT, when set, is the output folder instead (to build into a scratch folder when the shared one is read-only).
// Run: AFW_SHARED_DATA=/work/afw-data node scripts/build-heldout.mjs [file ...]
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dataDir = join(dirname(fileURLToPath(import.meta.url)), "..", "data");
const mirrors = process.env.AFW_MIRRORS ?? "/work/.mirror";
const out = process.env.AFW_HELDOUT_OUT ?? process.env.AFW_SHARED_DATA;
if (!out) throw new Error("set AFW_SHARED_DATA (or AFW_HELDOUT_OUT) to the folder the held-out files go to");

/** The source file of a set at its pinned commit, as text. */
const show = (set) =>
  execFileSync("git", ["-C", join(mirrors, set.mirror, "repo"), "show", `${set.commit}:${set.path}`], { maxBuffer: 1 << 28 }).toString();

/** The JSON Lines rows of a source text with their 1-based line numbers; throws on an unlisted invalid line or a listed valid one. */
function jsonLines(set, text) {
  const invalid = new Set(set.invalidLines ?? []);
  const parsed = [];
  text.split("\n").forEach((line, index) => {
    if (!line.trim()) return;
    let row;
    try {
      row = JSON.parse(line);
    } catch (error) {
      if (invalid.delete(index + 1)) return;
      throw new Error(`${set.path}: line ${index + 1} is not valid JSON (${error.message})`);
    }
    if (invalid.has(index + 1)) throw new Error(`${set.path}: line ${index + 1} is listed in invalidLines but parses`);
    parsed.push({ line: index + 1, row });
  });
  if (invalid.size) throw new Error(`${set.path}: invalidLines not in the source: ${[...invalid].join(", ")}`);
  return parsed;
}

/** The rows of a source file (JSON Lines or one JSON array), each with its key as recorded. */
function rows(set) {
  const text = show(set);
  const parsed = set.format === "jsonl" ? jsonLines(set, text) : JSON.parse(text).map((row) => ({ row }));
  return parsed.map(({ line, row }, index) => {
    const raw = set.keyField === "#index" ? index : set.keyField === "#line" ? line : row[set.keyField];
    return { key: Number(String(raw).slice(set.keyPrefix?.length ?? 0)), row };
  });
}

/** The parts of a set: itself, or one set per source file of its `parts`, each knowing its record subsection. */
const partsOf = (set) => (set.parts ? set.parts.map(({ ...part }) => ({ ...set, parts: undefined, ...part, subsection: part.path })) : [set]);

/** The "Keys per intent" lists of a set's section in its record, or null when the record has none for it. */
function recordedKeys(set) {
  const text = readFileSync(join(dataDir, set.record), "utf8");
  const whole = text.split(`\n## \`${set.file}\``)[1]?.split("\n## ")[0];
  const section = set.subsection ? whole?.split(`\n### \`${set.subsection}\``)[1]?.split("\n### ")[0] : whole;
  if (!section && set.subsection) throw new Error(`${set.file}: ${set.record} has no keys for ${set.subsection}`);
  if (!section) return null;
  const lists = {};
  for (const [, intent, keys] of section.matchAll(/^- `([a-z-]+)` \(\d+\): (.*)$/gm)) {
    lists[intent] = keys.split(", ").filter((k) => /^\d+$/.test(k)).map(Number);
  }
  return lists;
}

/** Throws when the keys file and the record list different keys for an intent. */
function checkAgainstRecord(set) {
  const recorded = recordedKeys(set);
  if (!recorded) return;
  for (const [intent, keys] of Object.entries(set.keys)) {
    const a = [...keys].sort((x, y) => x - y).join();
    const b = [...(recorded[intent] ?? [])].sort((x, y) => x - y).join();
    if (a !== b) throw new Error(`${set.file}${set.subsection ? ` (${set.subsection})` : ""}: keys of ${intent} differ from ${set.record}`);
  }
}

/** The labelled items of a set, in source order; throws on a missing key or a row outside `only`. */
function build(set) {
  const intentOf = new Map(Object.entries(set.keys).flatMap(([intent, keys]) => keys.map((k) => [k, intent])));
  const items = [];
  for (const { key, row } of rows(set)) {
    const intent = intentOf.get(key);
    if (!intent) continue;
    for (const [field, allowed] of Object.entries(set.only ?? {})) {
      if (!allowed.includes(row[field])) throw new Error(`${set.file}: key ${key} has ${field} ${row[field]}`);
    }
    const source = set.source.replace(/\{(\w+)\}/g, (_, field) => row[field]);
    items.push({ id: `${set.idPrefix}${key}`, question: row[set.text], intent, source });
    intentOf.delete(key);
  }
  if (intentOf.size) throw new Error(`${set.file}: keys not in the source: ${[...intentOf.keys()].join(", ")}`);
  return items;
}

const { sets } = JSON.parse(readFileSync(join(dataDir, "heldout-keys.json"), "utf8"));
const wanted = process.argv.slice(2);
let failed = false;
for (const set of sets.filter((s) => !wanted.length || wanted.includes(s.file))) {
  const parts = partsOf(set);
  parts.forEach(checkAgainstRecord);
  const text = JSON.stringify(parts.flatMap(build), null, 1) + "\n";
  writeFileSync(join(out, set.file), text);
  const sha = createHash("sha256").update(text).digest("hex");
  failed ||= Boolean(set.sha256) && sha !== set.sha256;
  const check = !set.sha256 ? "no checksum in the keys file" : sha === set.sha256 ? "as recorded" : `DIFFERS from the recorded ${set.sha256}`;
  const first = set.recordSha256 && sha !== set.recordSha256 ? `; the first build's ${set.recordSha256} is not reproduced` : "";
  console.log(`${set.file}: ${JSON.parse(text).length} items, SHA-256 ${sha} (${check}${first})`);
}
process.exitCode = failed ? 1 : 0;
