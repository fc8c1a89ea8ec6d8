// Rebuilds the hand-labelled held-out files of the intent classifier from git snapshots of their sources.
// The keys per intent live in data/heldout-keys.json (one home; taken from data/HELDOUT-SETS-2026-11-29*.md and,
// for real-heldout-ifeval.json, data/DATA-SOURCES.md). Each output is a JSON array of {id, question, intent,
// source} in source-file order, question = the prompt text as in the source. The script checks that the keys agree
// with the "Keys per intent" lists of the records and that each file's SHA-256 equals the one in the keys file (exit
// code 1 otherwise). It runs no model. Plain Node, no dependencies.
// Needs AFW_MIRRORS (default /work/.mirror: <owner>+<name>/repo bare git snapshots) and AFW_SHARED_DATA (output folder).
// Run: AFW_SHARED_DATA=/work/afw-data node scripts/build-heldout.mjs [file ...]
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dataDir = join(dirname(fileURLToPath(import.meta.url)), "..", "data");
const mirrors = process.env.AFW_MIRRORS ?? "/work/.mirror";
const out = process.env.AFW_SHARED_DATA;
if (!out) throw new Error("set AFW_SHARED_DATA to the folder the held-out files go to");

/** The source file of a set at its pinned commit, as text. */
const show = (set) =>
  execFileSync("git", ["-C", join(mirrors, set.mirror, "repo"), "show", `${set.commit}:${set.path}`], { maxBuffer: 1 << 28 }).toString();

/** The rows of a source file (JSON Lines or one JSON array), each with its key as recorded. */
function rows(set) {
  const text = show(set);
  const parsed = set.format === "jsonl" ? text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l)) : JSON.parse(text);
  return parsed.map((row, index) => {
    const raw = set.keyField === "#index" ? index : row[set.keyField];
    return { key: Number(String(raw).slice(set.keyPrefix?.length ?? 0)), row };
  });
}

/** The "Keys per intent" lists of a set's section in its record, or null when the record has none for it. */
function recordedKeys(set) {
  const text = readFileSync(join(dataDir, set.record), "utf8");
  const section = text.split(`\n## \`${set.file}\``)[1]?.split("\n## ")[0];
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
    if (a !== b) throw new Error(`${set.file}: keys of ${intent} differ from ${set.record}`);
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
  checkAgainstRecord(set);
  const text = JSON.stringify(build(set), null, 1) + "\n";
  writeFileSync(join(out, set.file), text);
  const sha = createHash("sha256").update(text).digest("hex");
  failed ||= Boolean(set.sha256) && sha !== set.sha256;
  const check = !set.sha256 ? "no checksum in the keys file" : sha === set.sha256 ? "as recorded" : `DIFFERS from the recorded ${set.sha256}`;
  const first = set.recordSha256 && sha !== set.recordSha256 ? `; the first build's ${set.recordSha256} is not reproduced` : "";
  console.log(`${set.file}: ${JSON.parse(text).length} items, SHA-256 ${sha} (${check}${first})`);
}
process.exitCode = failed ? 1 : 0;
