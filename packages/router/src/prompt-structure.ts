import type { Intent } from "@afw/contracts";
import type { IntentPatternMatcher, PatternMatch, PatternScores } from "./intent-patterns.js";

/**
 * Structure of a long prompt: which lines are the user's request and which are pasted material (code, stack traces, logs, tables,
 * CSV/JSON payloads, quoted documents or e-mails).
 */

/** Longest prompt prefix that is scanned, in characters (about 3,000 lines of code). */
const MAX_SCAN_CHARACTERS = 100_000;
/** Longest request text handed to the classifier, in characters. */
const MAX_REQUEST_CHARACTERS = 1_200;
/** Prompts at most this long, with no pasted material, are classified as they are. */
const SHORT_PROMPT = 600;

/** Kinds of pasted material; each found kind becomes the signal `has-<kind>`. */
export type PastedKind = "code" | "stack-trace" | "log" | "table" | "csv" | "json" | "quote" | "email" | "document";

/** The request of a prompt and the kinds of material pasted around it. */
export interface PromptStructure {
  /** The text that asks: the prompt itself when it is short, else its asking sentences and first/last paragraphs. */
  request: string;
  /** Kinds of pasted material found, each once, in a fixed order. */
  pasted: PastedKind[];
  /** True when the request differs from the prompt (material was set aside or the prompt was long). */
  reduced: boolean;
}

const FENCE = /^\s{0,3}(```|~~~)/;
const STACK = [
  /^\s+at [\w$.<>]+ ?\(/, // JS / Java / C# frames
  /^\s+at [\w$.<>/]+:\d+/,
  /^\s*File "[^"]{1,300}", line \d+/, // Python
  /^Traceback \(most recent call last\)/,
  /^(Caused by|Exception in thread)\b/,
  /^\s*#\d+ +0x[0-9a-f]+/i, // native backtraces
  /^\s*(goroutine \d+|panic:|thread '[^']{0,80}' panicked)/,
];
const LOG = /^\[?(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|\d{2}:\d{2}:\d{2}[.,]\d|(TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\b[\]:]?)/;
const EMAIL_HEADER = /^(From|To|Cc|Subject|Date|Sent|Reply-To):\s/i;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const JSON_LINE = /^\s*([{}[\]],?|"[^"]{1,200}"\s*:.{0,2000})$/;
const CODE_LINE = [
  /[;{}]\s*$/,
  /^\s*(def|class|import|from|fn|func|function|const|let|var|public|private|static|return|#include|package|using|async|export)\b.{0,2000}[(:={;]/,
  /^\s*(if|for|while|switch|try|catch|else)\b.{0,2000}[({:]\s*$/,
  /^\s*(\/\/|#!|\/\*|\*\/)/,
  /^\s*<\/?[a-zA-Z][\w-]{0,30}[^<>]{0,500}>\s*$/,
];
const QUOTE = /^\s*>/;
const ASKING_START =
  /^(please|pls|can|could|would|will|should|how|why|what|which|where|when|who|is|are|does|do|did|help|make|write|rewrite|fix|explain|tell|give|show|create|summari[sz]e|translate|convert|improve|review|find|list|suggest|turn|add|remove|change|edit|draft|compose|generate|debug|refactor|optimi[sz]e|design|compare|analy[sz]e|calculate|clean|extract|i need|i want|i'd like|i would like|we need|my question)\b/i;

/**
 * Sentences that only set the form of the answer — its length, letter case, language, punctuation, words to use or avoid, how it
 * starts, ends or is wrapped — and not what is asked. Written from general knowledge of how people constrain an answer ("keep it
 * under 200 words", "your response must be in French", "don't use emojis"); not derived from any evaluation set. Every pattern is
 * bounded (no nested quantifiers), so matching stays linear in the sentence.
 */
const ANSWER_FORM: readonly RegExp[] = [
  /\b(at (least|most)|no (more|less|fewer) than|fewer than|less than|more than|under|exactly|up to|a maximum of|a minimum of)\s+\d[\d,]{0,8}\+?\s*(words?|sentences?|paragraphs?|characters?|lines?|bullet points?|bullets?)\b/i,
  /\b\d[\d,]{0,8}\+?\s*(words?|sentences?|paragraphs?|characters?)\s+(or (less|fewer|more)|max(imum)?|min(imum)?|long|limit)\b/i,
  /^(please\s+)?((make sure|ensure|be sure)\s+(that\s+)?)?your\s+(entire\s+|whole\s+|full\s+|final\s+)?(response|answer|reply)s?\s+(should|must|has to|needs to|will|shall|is to|cannot|can't|may not)\b/i,
  /\b(entire|whole) (response|answer|reply|output)\b/i,
  /\b(all|only|entirely)\s+(in\s+)?(lower ?case|upper ?case|capital|capitali[sz]ed|small)\s+letters\b/i,
  /\b(do not|don't|never|without|avoid)\s+(using\s+|use\s+|including\s+|include\s+)?(any\s+)?(commas?|punctuation|emojis?|hashtags?|exclamation marks?)\b/i,
  /\b(do not|don't|never|without|avoid)\s+(using|use|saying|say|mentioning|mention|including|include)\s+(the\s+)?(key ?words?|words?|letters?|phrases?)\b/i,
  /\b(include|use|contain|mention)(s|ing)?\s+(the\s+)?(key ?words?|words?|letters?|phrases?)\s+["'\u201c]/i,
  /\bthe\s+(key ?word|word|letter|phrase)s?\s+["'\u201c]?[\p{L}\d-]{1,30}["'\u201d]?\s+(should|must|has to|needs to)\s+(appear|be used|occur)\b/iu,
  /\b(start|begin|end|finish|conclude)\s+(your|the)\s+(entire\s+)?(response|answer|reply|output)\s+with\b/i,
  /\b(wrap|enclose|surround)(s|ing)?\s+(your|the)\s+(entire\s+|whole\s+)?(response|answer|reply|output)\b/i,
  /\b(respond|answer|reply)\b.{0,40}\b(only|entirely|solely)\s+in\s+\p{L}+/iu,
  /\bno other language\b/i,
];
/** A sentence: text up to its closing punctuation, a line end or the end (linear: each character is read once). */
const SENTENCE = /[^.!?\n]+(?:[.!?]+|\n|$)/g;
/** Leading words of a sentence that constrains the answer when the sentence is the prompt's first. */
const FORM_LEAD = /^(please\s+)?(do not|don't|never|avoid|make sure|ensure|be sure|keep it|keep your|limit|use only|respond|answer|reply|your|the (entire|whole) (response|answer|reply|output))\b/i;

/**
 * Drops the sentences of `request` that only constrain the form of the answer ({@link ANSWER_FORM}); the first sentence is dropped
 * only when it opens as a constraint. Keeps the request when nothing else would remain.
 */
export function withoutAnswerForm(request: string): string {
  if (request.length < 40) return request;
  const sentences = request.match(SENTENCE);
  if (!sentences || sentences.length < 2) return request;
  const kept = sentences.filter((raw, index) => {
    const sentence = raw.trim();
    if (sentence.length === 0 || !ANSWER_FORM.some((re) => re.test(sentence))) return true;
    return index === 0 && !FORM_LEAD.test(sentence);
  });
  if (kept.length === sentences.length) return request;
  const text = kept.join("").trim();
  return text.length === 0 ? request : text;
}

type LineKind = "prose" | "blank" | PastedKind;

function commaFields(line: string): number {
  let n = 0;
  for (let i = 0; i < line.length && i < 2_000; i++) if (line.charCodeAt(i) === 44 /* , */ || line.charCodeAt(i) === 9 /* tab */) n++;
  return n;
}

function kindOf(line: string, previous: LineKind): LineKind {
  if (line.trim().length === 0) return "blank";
  for (const re of STACK) if (re.test(line)) return "stack-trace";
  if (LOG.test(line)) return "log";
  if (EMAIL_HEADER.test(line)) return "email";
  if (TABLE_ROW.test(line)) return "table";
  if (QUOTE.test(line)) return "quote";
  if (/^( {4}|\t)/.test(line) && (previous === "blank" || previous === "code")) return "code";
  if (JSON_LINE.test(line) && !/[.?!]\s*$/.test(line)) return "json";
  for (const re of CODE_LINE) if (re.test(line)) return "code";
  return "prose";
}

/** A short prompt with no pasted material: the request is the prompt without its answer-form sentences. */
function shortPrompt(prompt: string): PromptStructure {
  const trimmed = prompt.trim();
  const request = withoutAnswerForm(trimmed);
  return { request, pasted: [], reduced: request !== trimmed };
}

/** Splits a prompt into its request and the kinds of material pasted around it. */
export function analyzePrompt(prompt: string): PromptStructure {
  const text = prompt.length > MAX_SCAN_CHARACTERS ? prompt.slice(0, MAX_SCAN_CHARACTERS) : prompt;
  const lines = text.split(/\r?\n/);
  if (lines.length < 3 && prompt.length <= SHORT_PROMPT) return shortPrompt(prompt);
  const kinds: LineKind[] = [];
  let inFence = false;
  let previous: LineKind = "blank";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (FENCE.test(line)) inFence = !inFence;
    previous = FENCE.test(line) || inFence ? "code" : kindOf(line, previous);
    kinds.push(previous);
  }
  // CSV / TSV: three or more consecutive prose lines with the same number (>= 2) of separators.
  for (let i = 0; i < lines.length; ) {
    const fields = kinds[i] === "prose" || kinds[i] === "json" ? commaFields(lines[i]!) : 0;
    let j = i + 1;
    if (fields >= 2) while (j < lines.length && (kinds[j] === "prose" || kinds[j] === "json") && commaFields(lines[j]!) === fields) j++;
    if (fields >= 2 && j - i >= 3) for (let k = i; k < j; k++) kinds[k] = "csv";
    i = j;
  }
  const found = new Set<PastedKind>();
  for (const kind of kinds) if (kind !== "prose" && kind !== "blank") found.add(kind);
  const pasted: PastedKind[] = (["code", "stack-trace", "log", "table", "csv", "json", "quote", "email"] as const).filter((k) => found.has(k));
  const paragraphs: string[] = [];
  /** Index of the first paragraph that comes after pasted material (paragraphs.length: none). */
  let firstAfterMaterial = -1;
  let current: string[] = [];
  const flush = () => {
    if (current.length) paragraphs.push(current.join(" ").replace(/\s+/g, " ").trim());
    current = [];
  };
  for (let i = 0; i < lines.length; i++) {
    if (kinds[i] === "prose") current.push(lines[i]!);
    else {
      flush();
      if (kinds[i] !== "blank" && firstAfterMaterial < 0) firstAfterMaterial = paragraphs.length;
    }
  }
  flush();
  const prose = paragraphs.join("\n");
  if (pasted.length === 0 && prompt.length <= SHORT_PROMPT) return shortPrompt(prompt);
  // Paragraphs other than the last, and the first when material precedes it, keep only their asking sentences; the rest
  // of a long one is a pasted document (a draft, an article, a mail body).
  const asking = (sentence: string) => sentence.endsWith("?") || ASKING_START.test(sentence);
  const picked: string[] = [];
  let middleDocument = false;
  paragraphs.forEach((paragraph, index) => {
    if ((index === 0 && firstAfterMaterial !== 0) || index === paragraphs.length - 1) {
      picked.push(paragraph);
      return;
    }
    const sentences = paragraph.match(SENTENCE) ?? [paragraph];
    const asks = sentences.map((s) => s.trim()).filter((s) => s.length > 0 && asking(s));
    if (asks.length) picked.push(asks.join(" "));
    if (asks.length < sentences.length && paragraph.length > 200) middleDocument = true;
  });
  if (middleDocument) pasted.push("document");
  let request = withoutAnswerForm(picked.join("\n").trim());
  if (request.length === 0) request = prose.trim() || prompt.trim();
  if (request.length > MAX_REQUEST_CHARACTERS) {
    const head = Math.floor(MAX_REQUEST_CHARACTERS * 0.6);
    request = `${request.slice(0, head)} ... ${request.slice(request.length - (MAX_REQUEST_CHARACTERS - head - 5))}`;
  }
  return { request, pasted, reduced: request !== prompt.trim() };
}

/** Typed evidence each kind of pasted material adds to the pattern scores (kinds not listed add none). */
const PASTED_EVIDENCE: Partial<Record<PastedKind, { intent: Intent; weight: number }>> = {
  "stack-trace": { intent: "technical-analysis", weight: 4 },
  code: { intent: "technical-analysis", weight: 2 },
  log: { intent: "technical-analysis", weight: 2 },
  csv: { intent: "data-processing", weight: 1.5 },
  table: { intent: "data-processing", weight: 1.5 },
  json: { intent: "data-processing", weight: 1 },
};

/**
 * Reads a prompt for classification: finds its request ({@link analyzePrompt}) and scores the request with `matcher`, adding the
 * typed evidence of the pasted material (`pasted:<kind>`) instead of its words.
 */
export function readPrompt(matcher: IntentPatternMatcher, prompt: string): { structure: PromptStructure; pattern: PatternScores } {
  const structure = analyzePrompt(prompt);
  const evidence: PatternMatch[] = [];
  for (const kind of structure.pasted) {
    const e = PASTED_EVIDENCE[kind];
    if (e) evidence.push({ intent: e.intent, rule: `pasted:${kind}`, weight: e.weight });
  }
  return { structure, pattern: matcher.score(structure.request, evidence) };
}
