// Real programming prompts for the technical-analysis intent (issue 18, fourth round): requests and questions about
// code as people write them, many with pasted code, error output or examples. Each source is mapped to
// technical-analysis by a rule of data/DATA-SOURCES.md ("Source rules"); no item is labelled one by one. Every source is
// read at a pinned commit, so the items do not change when a snapshot moves. Used by prepare-real-prompts.mjs.

/** StackEval (ProsusAI/stack-eval): Stack Overflow questions, title then body in Markdown (CC BY-SA 4.0 posts). */
const STACKEVAL = { repo: "ProsusAI+stack-eval", commit: "1be2b97c4f30583f665a972ae12e236474075a08", path: "data/stack-eval.jsonl" };
/** MBPP (Austin et al. 2021, CC BY 4.0), the original 974 crowd-written tasks as copied in muitiiifruckt/ASE. */
const MBPP = { repo: "muitiiifruckt+ASE", commit: "83fa3f7963561b898623e8ade6e017d448ddca98", path: "mbpp.jsonl" };
/** NL2Bash (Lin et al. 2018; data/bash is MIT): descriptions of one-line shell commands written by experts. */
const NL2BASH = { repo: "TellinaTool+nl2bash", commit: "466c5fe873ab08c7cc0112ea1521cc6ad9c20992", path: "data/bash/all.nl" };

/** Questions naming data tools may ask for data processing rather than programming (the CoNaLa rule). */
const DATA_TOOLS = /pandas|data ?frame|numpy|\bcsv\b|excel|\bsql/i;
/** Stack Overflow tags whose questions are mostly about querying or reshaping data. */
const DATA_TAGS = new Set(["sql", "r", "vba"]);
const MAX_CHARS = 6000;

const key = (text) => text.toLowerCase().replace(/\s+/g, " ").trim();
const lines = (buffer) => buffer.toString().split("\n").filter((l) => l.trim());

/**
 * Stack Overflow questions of StackEval (all four kinds: implementation, debugging, conceptual, optimisation), title and
 * body as posted; runs of blank lines collapsed. Questions tagged sql, r or vba or naming a data tool are left out;
 * every 14th of the rest.
 */
function stackEval(show) {
  const rows = lines(show(STACKEVAL.repo, STACKEVAL.path, STACKEVAL.commit)).map((l) => JSON.parse(l));
  const kept = rows.filter((r) => !DATA_TAGS.has(r.questionMetadata.tag) && !DATA_TOOLS.test(r.question) && r.question.length <= MAX_CHARS);
  return kept
    .filter((_, i) => i % 14 === 0)
    .map((r) => ({ id: `stackeval-${r.questionId}`, question: r.question.replace(/\n{3,}/g, "\n\n").trim(), intent: "technical-analysis", source: `StackEval data/stack-eval.jsonl (${r.questionMetadata.tag}, ${r.questionMetadata.type})` }));
}

/** MBPP tasks ("Write a python function to ..."), every 20th; every second one with its test assertions pasted below. */
function mbpp(show) {
  const tasks = lines(show(MBPP.repo, MBPP.path, MBPP.commit)).map((l) => JSON.parse(l));
  return tasks
    .filter((_, i) => i % 20 === 0)
    .map((t, i) => ({ id: `mbpp-${t.task_id}`, question: i % 2 ? `${t.text.trim()}\n\n${t.test_list.map((a) => a.trim()).join("\n")}` : t.text.trim(), intent: "technical-analysis", source: "MBPP mbpp.jsonl" }));
}

/** NL2Bash descriptions of at least 12 words (the shorter ones read as labels, not requests), unique, every 200th. */
function nl2bash(show) {
  const descriptions = [...new Set(lines(show(NL2BASH.repo, NL2BASH.path, NL2BASH.commit)).map((l) => l.trim()))];
  return descriptions
    .filter((d) => d.split(/\s+/).length >= 12)
    .filter((_, i) => i % 200 === 0)
    .map((d, i) => ({ id: `nl2bash-${i}`, question: d, intent: "technical-analysis", source: "NL2Bash data/bash/all.nl" }));
}

/**
 * Builds the technical-analysis training items of StackEval, MBPP and NL2Bash, leaving out any whose text (case and
 * whitespace ignored) is already among `existing` or earlier in the list.
 *
 * @param show - reads a file of a mirrored repository: `(repo, path, commit) => Buffer`.
 * @param existing - the items built so far (`{ question }`), for dropping duplicates.
 * @returns items `{ id, question, intent, source }`, all with intent `technical-analysis`.
 */
export function technicalPrompts(show, existing) {
  const seen = new Set(existing.map((it) => key(it.question)));
  return [...stackEval(show), ...mbpp(show), ...nl2bash(show)].filter((it) => {
    const k = key(it.question);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
