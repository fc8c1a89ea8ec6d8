// The unlabelled sentence corpus of the tokenlearn fit (scripts/tokenlearn-static.mjs): texts only, from sources that already
// train the router or are neutral text, read from git snapshots (AFW_MIRRORS, default /work/.mirror/<owner>+<name>/repo) at
// pinned commits, plus the router's exemplars and training prompts (AFW_SHARED_DATA). Deterministic: the same snapshots give
// the same corpus in the same order. Never reads a held-out or evaluation source (see the record
// docs/decisions/2026-11-29-static-embedder-tokenlearn.md for the list and licences).
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const mirrors = process.env.AFW_MIRRORS ?? "/work/.mirror";
const sharedData = process.env.AFW_SHARED_DATA ?? "/work/afw-data";
const repoRoot = new URL("../../../", import.meta.url).pathname;
/** Longest text kept (characters): the teacher's cost grows with length, and router questions are mostly short. */
const MAX_CHARS = 600;

/** The pinned snapshots read, with their licences (the texts are used unlabelled, to fit the table; none is shipped). */
export const CORPUS_SOURCES = [
  { repo: "xliuhw/NLU-Evaluation-Data", commit: "f6071b496b17d71e6eb43f543af0707f4ff30557", licence: "CC BY 4.0" },
  { repo: "ppasupat/WikiTableQuestions", commit: "7d455a5a707b96341ef72aff9428749d443d8aa9", licence: "CC BY-SA 4.0" },
  { repo: "TellinaTool/nl2bash", commit: "466c5fe873ab08c7cc0112ea1521cc6ad9c20992", licence: "MIT (data/bash/LICENSE)" },
  { repo: "chaitanyamalaviya/ExpertQA", commit: "1aa7ba81bd4c083c12ef1aa2fee338f6cb60fa87", licence: "MIT" },
  { repo: "nbertagnolli/counsel-chat", commit: "e202e19c5002482f4f6631af754c276dd9adf7f2", licence: "MIT" },
  { repo: "shilliscmu/TranxConalaBaseline", commit: "5520285387d946e826f4cc5a4a0a1bf7361355e5", licence: "MIT (CoNaLa data card; titles CC BY-SA)" },
  { repo: "gunthercox/chatterbot-corpus", commit: "a01efece26661309b870af0251d96f94ee09fb19", licence: "BSD-3-Clause" },
  { repo: "ProsusAI/stack-eval", commit: "1be2b97c4f30583f665a972ae12e236474075a08", licence: "CC BY-SA 4.0 (Stack Overflow posts)" },
  { repo: "NExTplusplus/TAT-QA", commit: "870accc41953dcde885aabeb963d94aabdc0fbc3", licence: "CC BY 4.0" },
];

function show(repo, commit, path) {
  const dir = join(mirrors, `${repo.replace("/", "+")}`, "repo");
  return execFileSync("git", ["-C", dir, "show", `${commit}:${path}`], { maxBuffer: 1 << 28, encoding: "utf8" });
}

function list(repo, commit) {
  const dir = join(mirrors, `${repo.replace("/", "+")}`, "repo");
  return execFileSync("git", ["-C", dir, "ls-tree", "-r", "--name-only", commit], { maxBuffer: 1 << 26, encoding: "utf8" }).split("\n").filter(Boolean);
}

const clean = (text) => text.replace(/\r/g, "").replace(/\n{3,}/g, "\n\n").trim().slice(0, MAX_CHARS);

/** Every 'step'-th of a list (deterministic thinning of the largest sources). */
const every = (items, step) => items.filter((_, i) => i % step === 0);

function* sourceTexts() {
  const [nlu, wtq, bash, expert, counsel, conala, chatter, stack, tatqa] = CORPUS_SOURCES;
  // The router's own exemplars (hand-written) and training prompts.
  const yaml = readFileSync(join(repoRoot, "packages/router/data/intent-exemplars.yaml"), "utf8");
  for (const match of yaml.matchAll(/^\s+- (?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|(.+))$/gm)) {
    const text = match[1] !== undefined ? JSON.parse(`"${match[1]}"`) : match[2] !== undefined ? match[2].replace(/''/g, "'") : match[3];
    yield ["exemplars", text, text];
  }
  const realPath = join(sharedData, "intent-real-prompts.json");
  if (existsSync(realPath)) for (const item of JSON.parse(readFileSync(realPath, "utf8"))) yield ["router-training", item.id, item.question];
  // NLU-Evaluation-Data: the utterances of the merged Rasa training files of the ten folds (union).
  for (const path of list(nlu.repo, nlu.commit).filter((p) => /out4RasaReal\/.*\/KFold_\d+\/merged\/RasaNlu_Merged_.*\.json$/.test(p)).sort()) {
    for (const example of JSON.parse(show(nlu.repo, nlu.commit, path)).rasa_nlu_data.common_examples) yield ["nlu-evaluation-data", example.text, example.text];
  }
  // WikiTableQuestions: the training questions, every 2nd.
  const wtqRows = show(wtq.repo, wtq.commit, "data/training.tsv").split("\n").slice(1).filter(Boolean).map((line) => line.split("\t"));
  for (const [id, utterance] of every(wtqRows, 2)) yield ["wikitablequestions", id, utterance];
  // NL2Bash: the descriptions, every 2nd.
  for (const [i, line] of every(show(bash.repo, bash.commit, "data/bash/all.nl").split("\n").filter(Boolean), 2).entries()) yield ["nl2bash", String(i), line];
  // ExpertQA: the experts' questions (stage-1 file).
  for (const line of show(expert.repo, expert.commit, "data/r1_data_anon.jsonl").split("\n").filter(Boolean)) {
    const { question } = JSON.parse(line);
    yield ["expertqa", question, question];
  }
  // counsel-chat: each question's first turn (the 250-token file's training histories).
  const counselData = JSON.parse(show(counsel.repo, counsel.commit, "data/counsel_chat_250-tokens_full.json"));
  for (const split of Object.keys(counselData).sort()) {
    for (const dialogue of counselData[split]) {
      const first = dialogue.utterances?.[0]?.history?.[0];
      if (first) yield ["counsel-chat", first, first.replace(/ ([',.?!]) ?/g, "$1 ").replace(/ n't/g, "n't")];
    }
  }
  // CoNaLa: titles and their rewritten intents.
  for (const item of JSON.parse(show(conala.repo, conala.commit, "conala-train.json"))) {
    yield ["conala", String(item.question_id), item.intent];
    if (item.rewritten_intent) yield ["conala", String(item.question_id), item.rewritten_intent];
  }
  // chatterbot-corpus (English): every line of the conversations.
  for (const path of list(chatter.repo, chatter.commit).filter((p) => p.startsWith("chatterbot_corpus/data/english/") && p.endsWith(".yml")).sort()) {
    for (const match of show(chatter.repo, chatter.commit, path).matchAll(/^\s*-? ?- (.+)$/gm)) yield ["chatterbot-corpus", `${path}:${match[1]}`, match[1].replace(/^["']|["']$/g, "")];
  }
  // StackEval: question titles and bodies (the sampled file only).
  for (const line of show(stack.repo, stack.commit, "data/stack-eval.jsonl").split("\n").filter(Boolean)) {
    const item = JSON.parse(line);
    yield ["stack-eval", String(item.questionId ?? item.question_id ?? item.id ?? line.slice(0, 80)), item.question ?? item.title ?? ""];
  }
  // TAT-QA: the questions of the dev file.
  for (const report of JSON.parse(show(tatqa.repo, tatqa.commit, "dataset_raw/tatqa_dataset_dev.json"))) {
    for (const q of report.questions) yield ["tat-qa", report.table.uid, q.question];
  }
  // Tool descriptions of the tool-zoo tuning catalogs (the unseen ones, bfcl-live and mcp-bench, are not read).
  for (const name of ["bfcl", "nestful-glaive", "nestful-rapidapi", "nestful-sgd", "restbench"]) {
    const path = join(sharedData, "tool-eval", `${name}.json`);
    if (!existsSync(path)) continue;
    for (const tool of JSON.parse(readFileSync(path, "utf8")).tools) if (tool.description) yield [`tools-${name}`, `${tool.server}/${tool.name}`, tool.description];
  }
}

/**
 * The corpus: unique texts (first occurrence kept), each with its source and an item key; `heldOut` marks the ~10% of items
 * (by a hash of source and item, so all texts of one item fall on one side) kept apart to measure the fit.
 */
export function buildCorpus() {
  const seen = new Set();
  const corpus = [];
  for (const [source, item, raw] of sourceTexts()) {
    if (typeof raw !== "string") continue;
    const text = clean(raw);
    if (text.length < 3 || seen.has(text)) continue;
    seen.add(text);
    const bucket = createHash("sha256").update(`${source}\0${item}`).digest().readUInt32BE(0) % 10;
    corpus.push({ source, text, heldOut: bucket === 0 });
  }
  return corpus;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const corpus = buildCorpus();
  const counts = {};
  for (const { source, heldOut } of corpus) {
    counts[source] ??= { fit: 0, heldOut: 0 };
    counts[source][heldOut ? "heldOut" : "fit"]++;
  }
  console.log(JSON.stringify({ texts: corpus.length, sha256: createHash("sha256").update(corpus.map((c) => c.text).join("\n")).digest("hex"), counts }, null, 1));
}
