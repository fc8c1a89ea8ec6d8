/** Splitting a task that needs several tools into its steps, each searched on its own; linear-time and bounded. */

/** Characters of a task read for splitting (the rest is ignored). */
export const MAX_TASK_CHARS = 4000;
/** Most steps a task is split into (the tail is kept in the last step). */
export const MAX_TASK_STEPS = 8;

/**
 * Common English imperatives (general vocabulary, from no task set): a conjunction or comma starts a new step only
 * before one of these, so "commits and issues" stays one step.
 */
const STEP_VERBS: ReadonlySet<string> = new Set(
  (
    "add analyse analyze append apply approve archive ask assign attach book browse build calculate call cancel capture change " +
    "check choose clean clear click clone close commit compare compile compute convert copy count create delete deploy " +
    "describe disable download draft draw drop edit email enable estimate evaluate exec execute explain export extract fetch " +
    "file fill filter find fix forget fork generate get go grab identify import insert inspect install invite label launch " +
    "let list load locate log look make mark merge message migrate modify monitor move navigate note notify open order parse paste " +
    "pay pick ping plot post predict print publish pull push put query read record refund register reload remember remove " +
    "rename reply report request rerun reserve reset resolve restart restore retrieve return review rollback run save scale " +
    "scan schedule scrape search see select send set share show sort split star start stop store submit summarise summarize " +
    "switch sync tag take tell test track transfer translate trigger type uninstall unstar update upgrade upload validate " +
    "verify view visit watch write"
  ).split(" "),
);

/** Words that make a sentence a request rather than context ("I'd like …", "could you …", "what is …?"). */
const REQUEST_WORDS: ReadonlySet<string> = new Set(
  "give provide need want like help please could can would let what which who whom whose where when why how interested curious wonder wondering".split(" "),
);

/**
 * Whether a step asks for something (a question, an imperative or request verb) rather than giving
 * context ("I'm a teacher in Berlin."): context sentences are not searched as steps of their own.
 */
export function isRequest(step: string): boolean {
  if (step.includes("?")) return true;
  const typed = step.split(/[^A-Za-z']+/).filter(Boolean);
  const lower = typed.map((word) => word.toLowerCase());
  // the object word as typed: "Point A with …" is a name, not "point a …"
  return lower.some((word) => STEP_VERBS.has(word) || REQUEST_WORDS.has(word)) || (typed[1] === lower[1] && imperativeShape(lower[0], lower[1]));
}

/**
 * Words that start no imperative: pronouns, determiners, prepositions, conjunctions, time adverbs (general English).
 * A clause whose first word is none of these and whose second is an object word ("grep the logs", "geocode it") is
 * read as an imperative even when its verb is in no list.
 */
const NON_VERB_STARTS: ReadonlySet<string> = new Set(
  (
    "i i'm i've i'd we we're you he she it it's they this that these those there here the a an my our your his her its their " +
    "if when while before after since because as so but or and nor yet for of in on at by with from to into about over " +
    "yesterday today tomorrow tonight now then last next every each all some any no not also just maybe perhaps thanks thank"
  ).split(" "),
);
/** Words that typically follow a transitive imperative verb: determiners and object pronouns. */
const OBJECT_WORDS: ReadonlySet<string> = new Set(
  "the a an my our your his her its their this these those all each every some it them me us him one two three".split(" "),
);

/**
 * Whether a lower-case word can be an imperative verb: no function word, no plural noun ("services"), no gerund
 * ("assuming"), no adverb in -ly ("suddenly"; "apply", "reply" are verbs).
 */
function verbShaped(word: string): boolean {
  return /^[a-z][a-z-]+$/.test(word) && !NON_VERB_STARTS.has(word) && !/[^s]s$|[a-z]{3}ing$|[^p]ly$/.test(word);
}

/** Whether two leading lower-case words read as an imperative verb and its object ("stage the", "roll it"). */
function imperativeShape(first: string | undefined, second: string | undefined): boolean {
  return first !== undefined && second !== undefined && verbShaped(first) && OBJECT_WORDS.has(second);
}

/** Words of a request that name no content: modals, pronouns, "help", "for me" (general English). */
const NO_CONTENT: ReadonlySet<string> = new Set([
  ..."can could would will you me us for with do help assist please kindly".split(" "),
  ...REQUEST_WORDS,
  ...OBJECT_WORDS,
  ...NON_VERB_STARTS,
]);
/** Most content words of an opening question for help ("Can you help me plan a day out?") that is no step. */
const MAX_OPENING_WORDS = 4;
/** Words that refer back to what the task said before ("solve these", "find that for me"). */
const BACK_REFERENCES: ReadonlySet<string> = new Set("these those that them it its this".split(" "));
/** Words that open a condition. */
const CONDITIONS: ReadonlySet<string> = new Set("if when once unless whenever".split(" "));

/** The lower-case words of a step, contractions as their first word. */
function stepWords(step: string): string[] {
  return step
    .split(/[^A-Za-z']+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase().split("'")[0]!);
}

/** Whether a step is a question put to the assistant ("can you …", "could you please …"). */
const askedOfYou = (words: readonly string[]) => /^(?:can|could|would|will)$/.test(words[0] ?? "") && words[1] === "you";

/**
 * The steps of a task that ask for something, in order: context sentences left out, except that a request referring
 * back to the context sentence right before it, or cut from a condition, is joined to it ("I'm staying at the Hilton
 * for 5 nights. Could you tell me how much that would cost?", "If it is the new deployment, roll it back"); a question
 * that only refers back to a request ("Can you solve these for me?") and an opening question for help before two or
 * more steps ("Can you help me with a few things?") left out.
 */
export function requestSteps(task: string): string[] {
  const steps = splitTaskSteps(task);
  const requests: string[] = [];
  let previousWasRequest = false;
  steps.forEach((step, at) => {
    const words = stepWords(step);
    const refersBack = words.some((word) => BACK_REFERENCES.has(word));
    if (previousWasRequest && askedOfYou(words) && refersBack && words.filter((word) => !NO_CONTENT.has(word)).length <= 1) return;
    const before = at > 0 && !previousWasRequest ? steps[at - 1]! : undefined;
    const joins = before !== undefined && (refersBack || CONDITIONS.has(stepWords(before)[0] ?? ""));
    previousWasRequest = isRequest(step);
    if (previousWasRequest) requests.push(joins ? `${before}, ${step}` : step);
  });
  const first = stepWords(requests[0] ?? "");
  const opening = askedOfYou(first) && (first.includes("help") || first.includes("assist"));
  if (requests.length >= 3 && opening && first.filter((word) => !NO_CONTENT.has(word)).length <= MAX_OPENING_WORDS) requests.shift();
  return requests;
}

/** Abbreviations whose final dot ends no sentence. */
const ABBREVIATIONS: ReadonlySet<string> = new Set(["e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "st", "no", "approx"]);

/** Connectors that always start a new step. */
const ALWAYS = /^(?:and\s+then|then|after\s+that|afterwards|afterward|finally|next|and\s+also|also|and\s+finally|lastly)$/i;

/**
 * The steps of a task in order (a single-step task gives itself): cut at sentence ends, line breaks, enumerations,
 * "then", "after that", "also", and "and" or a comma before a verb; never inside quotes.
 */
export function splitTaskSteps(task: string): string[] {
  const text = unwrapQuotes(task.slice(0, MAX_TASK_CHARS));
  // protect quoted passages: their characters never split
  const protectedChars = new Uint8Array(text.length);
  const quote = /"[^"\n]{0,300}?"|“[^“”\n]{0,300}?[”"]|`[^`\n]{0,300}?`|(^|[\s(:=,])'[^'\n]{1,300}?'(?=$|[\s).,;:!?])/g;
  for (let match = quote.exec(text); match; match = quote.exec(text)) protectedChars.fill(1, match.index, match.index + match[0].length);

  const steps: string[] = [];
  let start = 0;
  const cut = (end: number, next: number) => {
    const step = clean(text.slice(start, end));
    if (step) steps.push(step);
    start = next;
  };
  // one pass over the words and separators
  const token = /(?<![\w.])\d{1,2}[.)](?=\s)|\r?\n+|,|\s+|[^\s,]+/g;
  let pendingComma = -1; // position of a comma that may end a step
  let pendingAnd = -1; // position of an "and" that may end a step
  let previous = "";
  let enumerated = 0;
  const reset = () => {
    pendingComma = pendingAnd = -1;
    previous = "";
  };
  // a word after "and" or a comma that is in no verb list and no plural: a step starts there if an object word follows
  // ("stage the files", "roll it back"; not "pods and services the team uses")
  let candidate: { cutAt: number; at: number } | undefined;
  for (let match = token.exec(text); match; match = token.exec(text)) {
    const value = match[0];
    const at = match.index;
    if (protectedChars[at]) {
      // a sentence end right after a quoted passage (`… "done". Then …`) still ends the sentence
      const last = at + value.length - 1;
      if (!protectedChars[last] && /[.!?;]/.test(text[last]!)) {
        cut(last + 1, last + 1);
        reset();
        candidate = undefined;
      }
      continue;
    }
    if (candidate && !/^\s+$/.test(value)) {
      const next = value.replace(/[.!?;:]+$/, "");
      if (OBJECT_WORDS.has(next)) cut(candidate.cutAt, candidate.at);
      candidate = undefined;
    }
    // "1." starts an enumeration at the start or after a colon, "2." continues it ("issue 3." ends a sentence)
    const number = /^\d{1,2}[.)]$/.test(value) ? Number.parseInt(value, 10) : 0;
    if (value.includes("\n") || (number > 0 && number === enumerated + 1 && (number > 1 || previous === "" || previous === ":"))) {
      if (number) enumerated = number;
      cut(at, at + value.length);
      reset();
      continue;
    }
    if (/^\s+$/.test(value)) continue;
    if (value === ",") {
      pendingComma = at;
      pendingAnd = -1;
      previous = ",";
      continue;
    }
    const trailing = value.slice(trimEndIndex(value, ".!?;:"));
    const word = value.slice(0, value.length - trailing.length).toLowerCase();
    const sentenceEnd = /[.!?;]/.test(trailing) && !ABBREVIATIONS.has(word);
    if (/^(?:[a-z]\)|[-*•])$/.test(word) && (previous === "" || previous === ":")) {
      cut(at, at + value.length);
      reset();
      continue;
    }
    const pair = previous === "and" ? `and ${word}` : word;
    if (ALWAYS.test(pair) && (previous === "and" || previous === "," || previous === "" || !/^(?:next|also)$/.test(word))) {
      cut(previous === "and" && pendingAnd >= 0 ? pendingAnd : previous === "," && pendingComma >= 0 ? pendingComma : at, at + value.length);
      reset();
      if (sentenceEnd) cut(at + value.length, at + value.length);
      continue;
    }
    if (word === "and") {
      pendingAnd = previous === "," ? pendingComma : at;
      previous = "and";
      continue;
    }
    if (word === "please" && (previous === "and" || previous === ",")) continue;
    const pendingCut = pendingAnd >= 0 ? pendingAnd : previous === "," && pendingComma >= 0 ? pendingComma : -1;
    if (pendingCut >= 0 && STEP_VERBS.has(word)) cut(pendingCut, at);
    else if (pendingCut >= 0 && !trailing && value === word && verbShaped(word)) candidate = { cutAt: pendingCut, at };
    pendingComma = pendingAnd = -1;
    previous = trailing.includes(":") ? ":" : word;
    if (sentenceEnd) {
      cut(at + value.length, at + value.length);
      reset();
    }
  }
  cut(text.length, text.length);
  if (steps.length <= 1) return [task.trim()].filter(Boolean);
  if (steps.length > MAX_TASK_STEPS) steps.splice(MAX_TASK_STEPS - 1, steps.length, steps.slice(MAX_TASK_STEPS - 1).join("; "));
  return steps;
}

/** A task wrapped in one pair of double quotes as a whole, without them (its sentences are no quoted passage). */
function unwrapQuotes(text: string): string {
  const trimmed = text.trim();
  const inner = trimmed.slice(1, -1);
  return /^["“]/.test(trimmed) && /["”]$/.test(trimmed) && !/["“”]/.test(inner) ? inner : text;
}

/** A step without leading connectors and punctuation; empty when no word of 2+ letters is left. */
function clean(step: string): string {
  const end = trimEndIndex(step, " \t\r\n,;:.!?");
  const trimmed = step.slice(0, end).replace(/^[\s,;:.!?\-*•]+/, "").replace(/^(?:and|then|also|so)\s+/i, "").trim();
  return /[A-Za-z]{2}/.test(trimmed) ? trimmed : "";
}

/** Where the run of `chars` at the end of `text` starts (linear, no regex backtracking). */
function trimEndIndex(text: string, chars: string): number {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1]!)) end--;
  return end;
}
