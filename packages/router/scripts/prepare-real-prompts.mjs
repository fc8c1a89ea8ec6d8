// Builds the labelled real-prompt files of the intent classifier from public data sets, by the
// source-to-intent rules of data/DATA-SOURCES.md (and, for awesome-chatgpt-prompts, the one-by-one
// labels written below, made by the labelling rules before any model ran on them).
// Needs git snapshots of the source repositories (AFW_MIRRORS: a folder holding <owner>+<name>/repo)
// and rewrites $AFW_SHARED_DATA/intent-real-prompts.json (its self-instruct seed items stay, the items
// of the sources below are replaced) and the held-out $AFW_SHARED_DATA/real-heldout-gitbugs-seamonkey.json.
// Deterministic. Run: node scripts/prepare-real-prompts.mjs
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseCsv } from "csv-parse/sync";
import { parse as parseYaml } from "yaml";
import { FLOWGPT, structuralPrompts } from "./real-prompts-structural.mjs";
import { technicalPrompts } from "./real-prompts-technical.mjs";

const mirrors = process.env.AFW_MIRRORS ?? "/work/.mirror";
const out = process.env.AFW_SHARED_DATA;
if (!out) throw new Error("set AFW_SHARED_DATA");
const git = (repo, ...args) => execFileSync("git", ["-C", join(mirrors, repo, "repo"), ...args], { maxBuffer: 1 << 28 });
const show = (repo, path, commitId = "HEAD") => git(repo, "show", `${commitId}:${path}`);
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


// gunthercox/chatterbot-corpus (BSD-3-Clause): what people said first to a chat bot, in the small-talk
// categories -> conversation (utterances of at least two words, at most 15 per category). Knowledge
// categories (trivia, science, history, literature, politics, money, movies, sports) and the
// programming ones (coding, computers, tech_support) are left out.
const CHATTERBOT = "gunthercox+chatterbot-corpus";
for (const category of ["greetings", "conversations", "emotion", "humor", "botprofile", "ai", "food", "gossip", "health", "psychology"]) {
  const seen = new Set();
  for (const conversation of parseYaml(show(CHATTERBOT, `chatterbot_corpus/data/english/${category}.yml`).toString()).conversations) {
    const text = String(conversation[0]).trim();
    if (seen.size >= 15 || text.split(/\s+/).length < 2 || seen.has(text.toLowerCase())) continue;
    seen.add(text.toLowerCase());
    items.push({ id: `chatterbot-${category}-${seen.size}`, question: text, intent: "conversation", source: `chatterbot-corpus english/${category}.yml` });
  }
}

// f/awesome-chatgpt-prompts (CC0-1.0) prompts.csv at 32cb65f4 (the 170 role prompts before the
// collection moved to a database; later commits hold the file only above the snapshot size limit).
// Labelled one by one by the labelling rules of data/DATA-SOURCES.md (row index -> intent; rows not
// listed are left out: translation, proofreading, word-level linguistics, games, interpreters of
// non-code, maths, role plays without a request, and requests that fit no intent clearly).
const AWESOME = "f+awesome-chatgpt-prompts";
const AWESOME_COMMIT = "32cb65f4bae5f46bfa7c1cb8af2aeb6c1a57b098";
const awesomeLabels = {
  "creative-orientation": [12, 13, 14, 15, 17, 18, 20, 21, 24, 25, 26, 36, 62, 69, 74, 79, 84, 93, 94, 114, 130, 134, 144, 149, 168],
  "technical-analysis": [0, 2, 5, 65, 66, 101, 109, 112, 115, 117, 121, 122, 124, 127, 132, 138, 158],
  "structural-thinking": [43, 73, 82, 145],
  "data-processing": [6, 87, 166],
  conversation: [9, 11, 16, 23, 27, 34, 38, 39, 41, 42, 44, 46, 47, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 67, 68, 70, 78, 80, 81, 83, 90, 91, 96, 97, 98, 103, 105, 106, 107, 108, 118, 119, 125, 135, 141, 146, 147, 148, 154, 155, 157, 165],
};
const awesome = parseCsv(show(AWESOME, "prompts.csv", AWESOME_COMMIT), { columns: true });
for (const [intent, rows] of Object.entries(awesomeLabels)) {
  for (const row of rows) items.push({ id: `awesome-${row}`, question: awesome[row].prompt.trim(), intent, source: `awesome-chatgpt-prompts prompts.csv (${awesome[row].act})` });
}

// The same file at 9fb34617 (2025-11-29, the last version before the collection moved to a database; CC0-1.0):
// rows 173-222 are the 53 prompts added after 32cb65f4 (rows 170-172 and every earlier row are prompts of the
// older file, some edited). Labelled one by one by the same rules before any model ran on them; rows not listed
// are left out (games, reasoning protocols, prompt generators, rephrasing, role plays without a request,
// requests that fit no intent clearly: DAX code, a book summary with no book given, hardware troubleshooting).
const AWESOME_2025_COMMIT = "9fb34617abf2aca7f87fcd45f917398f6b67e230";
const awesome2025Labels = {
  "creative-orientation": [178, 192, 197, 199, 212, 222],
  "structural-thinking": [182, 201, 207, 213, 215],
  "technical-analysis": [174, 179, 180, 183, 184, 209, 216, 217, 220],
  conversation: [175, 177, 185, 187, 188, 191, 202, 204, 206, 219],
  "rag-retrieval": [173, 176, 203],
  "data-processing": [221],
};
const awesome2025 = parseCsv(show(AWESOME, "prompts.csv", AWESOME_2025_COMMIT), { columns: true });
const awesomeOld = new Set(awesome.map((r) => r.prompt.trim()));
for (const [intent, rows] of Object.entries(awesome2025Labels)) {
  for (const row of rows) {
    const prompt = awesome2025[row].prompt.trim();
    if (awesomeOld.has(prompt)) throw new Error(`awesome-chatgpt-prompts row ${row} is already in the older file`);
    items.push({ id: `awesome-2025-${row}`, question: prompt, intent, source: `awesome-chatgpt-prompts prompts.csv at 9fb34617 (${awesome2025[row].act})` });
  }
}

// The same file at 24641836 (2026-03-20; CC0-1.0), rows added after 9fb34617 by the community: only TEXT rows whose
// title names a plan, outline, agenda, checklist, roadmap, syllabus, curriculum, itinerary or schedule were read
// (34 rows), and they were labelled one by one by the same rules before any model ran on them; the rest are left
// out (agent or skill system prompts, images, HTML, translation, a truncated request, requests that fit no intent
// clearly, and a repeated row). Many of these newer prompts read as written with an LLM's help.
const AWESOME_2026_COMMIT = "246418367f3d80857def4696c14e635cc51c4a0c";
const awesome2026Labels = {
  "structural-thinking": [313, 354, 372, 411, 444, 459, 836, 881, 913, 1069, 1072, 1139, 1222, 1422, 1456],
  "technical-analysis": [241, 341, 748, 953, 1408],
};
const awesome2026 = parseCsv(show(AWESOME, "prompts.csv", AWESOME_2026_COMMIT), { columns: true });
const awesome2025Set = new Set(awesome2025.map((r) => r.prompt.trim()));
for (const [intent, rows] of Object.entries(awesome2026Labels)) {
  for (const row of rows) {
    const prompt = awesome2026[row].prompt.trim();
    if (awesomeOld.has(prompt) || awesome2025Set.has(prompt)) throw new Error(`awesome-chatgpt-prompts row ${row} is already in an older file`);
    items.push({ id: `awesome-2026-${row}`, question: prompt, intent, source: `awesome-chatgpt-prompts prompts.csv at 24641836 (${awesome2026[row].act})` });
  }
}

// EQ-bench/EQ-Bench (MIT, Samuel Paech) data/creative_writing_prompts.json: the 19 writing prompts of its
// creative-writing benchmark, written by the author -> creative-orientation (all of them). The <SEED> slot is filled
// with the prompt's first seed modifier, as the benchmark fills it with one of them.
const EQBENCH = "EQ-bench+EQ-Bench";
for (const [key, p] of Object.entries(JSON.parse(show(EQBENCH, "data/creative_writing_prompts.json").toString()))) {
  items.push({ id: `eqbench-creative-${key}`, question: p.writing_prompt.replace("<SEED>", p.seed_modifiers[0]).trim(), intent: "creative-orientation", source: "EQ-Bench data/creative_writing_prompts.json" });
}

// NExTplusplus/TAT-QA (CC BY 4.0; questions written by finance experts over tables and paragraphs of real
// annual reports), dataset_raw/tatqa_dataset_dev.json: of each even-numbered report, the first question answered by
// arithmetic or counting over the table alone, with the table pasted (tab-separated, as copied from a spreadsheet)
// -> data-processing; question before or after the table, alternately. (The text questions of the odd-numbered
// reports, as rag-retrieval, cost 7 of the 474 tuning items and were dropped: decision record 2026-11-30.)
const TATQA = "NExTplusplus+TAT-QA";
const tatqa = JSON.parse(show(TATQA, "dataset_raw/tatqa_dataset_dev.json").toString());
let tatqaData = 0;
for (const [i, report] of tatqa.entries()) {
  const q = i % 2 === 0 && report.questions.find((x) => x.answer_from === "table" && (x.answer_type === "arithmetic" || x.answer_type === "count"));
  if (!q) continue;
  const table = report.table.table.map((row) => row.map((cell) => cell.trim()).join("\t")).join("\n");
  items.push({ id: `tatqa-${q.uid}`, question: tatqaData % 2 ? `${q.question.trim()}\n\n${table}` : `${table}\n\n${q.question.trim()}`, intent: "data-processing", source: "TAT-QA dataset_raw/tatqa_dataset_dev.json" });
  tatqaData++;
}

// av9ash/gitbugs (CC BY 4.0; Apache Hadoop JIRA bug reports): a bug report whose description holds
// pasted code, a stack trace or error output -> technical-analysis (summary, blank line, description;
// at most 6,000 characters; every 5th such report, at most 120).
const GITBUGS = "av9ash+gitbugs";
const pastedCodeOrTrace = /(\n\s*at [\w$.<>]+\(.*:\d+\)|Traceback \(most recent call last\)|\{code|\{noformat|Exception in thread|^\s*#\d+\s+0x[0-9a-f]+|Assertion failure|error: |Error: |JavaScript error)/m;
const bugReports = (path) =>
  parseCsv(show(GITBUGS, path), { columns: true, relax_quotes: true })
    .filter((r) => r.Description && pastedCodeOrTrace.test(r.Description))
    .map((r) => ({ id: r["Issue id"], question: `${r.Summary.trim()}\n\n${r.Description.trim()}`.slice(0, 6000) }));
for (const [i, r] of bugReports("hadoop/hadoop_bugs.csv").entries()) {
  if (i % 5 === 0 && i / 5 < 120) items.push({ id: `gitbugs-hadoop-${r.id}`, question: r.question, intent: "technical-analysis", source: "gitbugs hadoop/hadoop_bugs.csv" });
}

// Held out, never trained on: the SeaMonkey (Mozilla Bugzilla) bug reports of the same collection with
// pasted code, traces or error output -> technical-analysis, written to real-heldout-gitbugs-seamonkey.json.
// Another project, tracker and language than the Hadoop training reports (same collector).
const seamonkey = bugReports("seamonkey/SeaMonkey_bugs.csv").map((r) => ({ id: `gitbugs-seamonkey-${r.id}`, question: r.question, intent: "technical-analysis", source: "gitbugs seamonkey/SeaMonkey_bugs.csv" }));
writeFileSync(join(out, "real-heldout-gitbugs-seamonkey.json"), JSON.stringify(seamonkey, null, 1) + "\n");

// StackEval, MBPP and NL2Bash programming prompts -> technical-analysis (scripts/real-prompts-technical.mjs).
items.push(...technicalPrompts(show, items));

// Fourth round's further sources, adopted with the technical prompts above (docs/decisions/2026-11-29-router-training-data-4.md,
// lead addendum). Rules and one-by-one labels as in data/DATA-SOURCES.md.
const LONGWRITER = "THUDM+LongWriter";
const COUNSEL = "nbertagnolli+counsel-chat";
const EXPERTQA = "chaitanyamalaviya+ExpertQA";
// f/awesome-chatgpt-prompts at 24641836, TEXT rows not in the older files read by title: 71 naming a story, poem, song,
// letter, post, blog, script, copy, narrative, character or brainstorm and 43 naming a strategy, framework, template,
// decision, breakdown, structure, workflow, study, course or proposal; labelled one by one, the rest left out.
const candidateRows = {
  "creative-orientation": [189, 222, 223, 234, 237, 408, 463, 536, 616, 619, 810, 835, 918, 1000, 1031, 1102, 1273],
  "structural-thinking": [219, 971, 1025, 1224, 1226, 1338],
};
for (const [intent, rows] of Object.entries(candidateRows)) {
  for (const row of rows) {
    if (awesomeOld.has(awesome2026[row].prompt.trim()) || awesome2025Set.has(awesome2026[row].prompt.trim())) throw new Error(`awesome-chatgpt-prompts row ${row} is already in an older file`);
    items.push({ id: `awesome-2026-${row}`, question: awesome2026[row].prompt.trim(), intent, source: `awesome-chatgpt-prompts prompts.csv at 24641836 (${awesome2026[row].act})` });
  }
}
// EQ-bench/EQ-Bench at 9bed19f5 (an earlier version, MIT): the 10 prompts the newest version no longer holds -> creative.
const eqHead = new Set(Object.values(JSON.parse(show(EQBENCH, "data/creative_writing_prompts.json").toString())).map((p) => p.writing_prompt.slice(0, 60)));
for (const [key, p] of Object.entries(JSON.parse(show(EQBENCH, "data/creative_writing_prompts.json", "9bed19f5d51ba17cd34d4b75019de5359c069e07").toString()))) {
  if (!eqHead.has(p.writing_prompt.slice(0, 60))) items.push({ id: `eqbench-creative-2024-${key}`, question: p.writing_prompt.replace("<SEED>", p.seed_modifiers[0]).trim(), intent: "creative-orientation", source: "EQ-Bench data/creative_writing_prompts.json at 9bed19f5" });
}
// THUDM/LongWriter (Apache-2.0) evaluation/longbench_write_en.jsonl: the 60 English LongBench-Write requests, labelled one by
// one (line -> intent); 25 left out (see DATA-SOURCES.md).
const longWriterLabels = {
  "creative-orientation": [1, 4, 5, 6, 7, 8, 10, 12, 13, 17, 20, 21, 22, 23, 26, 28, 29, 38, 41, 43, 47, 50, 51, 52, 54, 55, 57, 58],
  "structural-thinking": [0, 25, 39],
  conversation: [3, 11, 18, 32],
};
const longWriter = show(LONGWRITER, "evaluation/longbench_write_en.jsonl").toString().trim().split("\n").map((l) => JSON.parse(l));
for (const [intent, lines] of Object.entries(longWriterLabels)) {
  for (const line of lines) items.push({ id: `longwriter-${line}`, question: longWriter[line].prompt.trim(), intent, source: `LongWriter evaluation/longbench_write_en.jsonl (${longWriter[line].type})` });
}
// nbertagnolli/counsel-chat (MIT): questions people asked therapists, each once, every 13th -> conversation (advice).
const counselIds = new Set();
const counsel = parseCsv(show(COUNSEL, "data/20200325_counsel_chat.csv"), { columns: true }).filter((r) => !counselIds.has(r.questionID) && counselIds.add(r.questionID));
for (const [i, r] of counsel.entries()) {
  if (i % 13 === 0) items.push({ id: `counsel-${r.questionID}`, question: `${r.questionTitle.trim()}\n${r.questionText.trim()}`, intent: "conversation", source: `counsel-chat data/20200325_counsel_chat.csv (${r.topic})` });
}
// chaitanyamalaviya/ExpertQA (MIT) data/r1_data_anon.jsonl: experts' questions about their field -> conversation, without the
// fields Engineering and Technology, Mathematics and Other, requests for resources and questions under six words; every 24th.
const experts = show(EXPERTQA, "data/r1_data_anon.jsonl").toString().trim().split("\n").map((l) => JSON.parse(l))
  .filter((r) => !["Engineering and Technology", "Mathematics", "Other"].includes(r.metadata.field) && !r.metadata.question_type.includes("list of resources") && r.question.trim().split(/\s+/).length >= 6);
for (const [i, r] of experts.entries()) {
  if (i % 24 === 0) items.push({ id: `expertqa-${i}`, question: r.question.trim(), intent: "conversation", source: `ExpertQA data/r1_data_anon.jsonl (${r.metadata.field})` });
}

// Fifth round (2026-11-29): FlowGPT prompts that name a structure, labelled one by one, mostly structural-thinking
// (scripts/real-prompts-structural.mjs; docs/decisions/2026-11-29-router-structural-data.md).
items.push(...structuralPrompts(show, items));

const commits = Object.fromEntries([NLU, WTQ, QED, CONALA, CHATTERBOT, AWESOME, GITBUGS, TATQA, EQBENCH, LONGWRITER, COUNSEL, EXPERTQA].map((r) => [r.replace("+", "/"), r === AWESOME ? `${AWESOME_COMMIT}, ${AWESOME_2025_COMMIT}, ${AWESOME_2026_COMMIT}` : commit(r)]));
commits[FLOWGPT.repo.replace("+", "/")] = FLOWGPT.commit;
writeFileSync(trainingPath, JSON.stringify(items, null, 1) + "\n");
const counts = {};
for (const it of items) counts[it.intent] = (counts[it.intent] ?? 0) + 1;
console.log(counts, commits);
