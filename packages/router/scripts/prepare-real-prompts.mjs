// Builds the labelled real-prompt files of the intent classifier from public data sets, by the
// source-to-intent rules of data/DATA-SOURCES.md (no item is labelled one by one here).
// Needs git snapshots of the source repositories (AFW_MIRRORS: a folder holding <owner>+<name>/repo)
// and rewrites $AFW_SHARED_DATA/intent-real-prompts.json: its self-instruct seed items stay, the items
// of the sources below are replaced. Run: node scripts/prepare-real-prompts.mjs
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const mirrors = process.env.AFW_MIRRORS ?? "/work/.mirror";
const out = process.env.AFW_SHARED_DATA;
if (!out) throw new Error("set AFW_SHARED_DATA");
const git = (repo, ...args) => execFileSync("git", ["-C", join(mirrors, repo, "repo"), ...args], { maxBuffer: 1 << 28 });
const show = (repo, path) => git(repo, "show", `HEAD:${path}`);
const list = (repo) => git(repo, "ls-tree", "-r", "--name-only", "HEAD").toString().split("\n");
const commit = (repo) => git(repo, "rev-parse", "HEAD").toString().trim();
const sentence = (q) => q.charAt(0).toUpperCase() + q.slice(1) + (/[?.!]$/.test(q) ? "" : "?");
const trainingPath = join(out, "intent-real-prompts.json");
const items = JSON.parse(readFileSync(trainingPath, "utf8")).filter((r) => r.id.startsWith("si-seed-"));

// xliuhw/NLU-Evaluation-Data (CC BY 4.0): utterances people said to a home assistant. Chit-chat,
// factoid and recommendation scenarios -> conversation (devices, alarms, music, e-mail: left out).
const NLU = "xliuhw+NLU-Evaluation-Data";
const nluCaps = { general_quirky: 40, general_joke: 12, general_praise: 15, qa_factoid: 35, qa_definition: 20, recommendation_movies: 12, recommendation_events: 12, recommendation_locations: 12 };
const nluFiles = list(NLU).filter((p) => /\/KFold_\d+\/testset\/annotated\/[a-z_]+\/.*\.json$/.test(p)).sort();
for (const [intentName, cap] of Object.entries(nluCaps)) {
  const seen = new Set();
  for (const file of nluFiles.filter((p) => p.includes(`/annotated/${intentName}/`))) {
    for (const u of JSON.parse(show(NLU, file).toString()).test_data_annotation) {
      const text = u.text.trim();
      if (seen.size >= cap || text.split(/\s+/).length < 3 || seen.has(text)) continue;
      seen.add(text);
      items.push({ id: `nlu-${intentName}-${seen.size}`, question: text, intent: "conversation", source: `NLU-Evaluation-Data ${intentName}` });
    }
  }
}

// ppasupat/WikiTableQuestions (CC BY-SA 4.0): crowd-written questions over a given Wikipedia table.
// The table is pasted with the question (as CSV, at most 15 rows) -> data-processing.
const WTQ = "ppasupat+WikiTableQuestions";
const wtq = show(WTQ, "data/training.tsv").toString().trim().split("\n").slice(1).map((l) => l.split("\t"));
for (const [id, utterance, context] of wtq.filter((_, i) => i % 100 === 0).slice(0, 110)) {
  const table = show(WTQ, context).toString().trim().split("\n").slice(0, 16).join("\n");
  const q = sentence(utterance);
  items.push({ id: `wtq-${id}`, question: Number(id.slice(3)) % 2 ? `${q}\n\n${table}` : `${table}\n\n${q}`, intent: "data-processing", source: "WikiTableQuestions data/training.tsv" });
}

// google-research-datasets/QED (CC BY-SA 3.0, Natural Questions on a Wikipedia paragraph): the
// paragraph is pasted with the question -> rag-retrieval (answer from a provided document).
const QED = "google-research-datasets+QED";
const qed = show(QED, "qed-dev.jsonlines").toString().trim().split("\n").map((l) => JSON.parse(l));
for (const [i, r] of qed.filter((_, i) => i % 12 === 0).slice(0, 110).entries()) {
  const q = sentence(r.question_text);
  items.push({ id: `qed-${r.example_id}`, question: i % 2 ? `${q}\n\n${r.paragraph_text}` : `${r.paragraph_text}\n\n${q}`, intent: "rag-retrieval", source: "QED qed-dev.jsonlines" });
}

// CoNaLa (Yin et al. 2018; StackOverflow question titles, CC BY-SA 4.0), as copied in
// shilliscmu/TranxConalaBaseline: Python programming questions -> technical-analysis. Titles naming
// data tools (pandas, DataFrame, numpy, CSV, Excel, SQL) are left out: they may ask for data processing.
const CONALA = "shilliscmu+TranxConalaBaseline";
const titles = [...new Set(JSON.parse(show(CONALA, "conala-train.json").toString()).map((r) => r.intent.trim()))];
const dataTools = /pandas|data ?frame|numpy|\bcsv\b|excel|\bsql/i;
for (const [i, title] of titles.filter((t) => !dataTools.test(t) && t.split(/\s+/).length >= 4).entries()) {
  if (i % 12 === 0) items.push({ id: `conala-${i}`, question: title, intent: "technical-analysis", source: "CoNaLa conala-train.json" });
}

const commits = Object.fromEntries([NLU, WTQ, QED, CONALA].map((r) => [r.replace("+", "/"), commit(r)]));
writeFileSync(trainingPath, JSON.stringify(items, null, 1) + "\n");
const counts = {};
for (const it of items) counts[it.intent] = (counts[it.intent] ?? 0) + 1;
console.log(counts, commits);
