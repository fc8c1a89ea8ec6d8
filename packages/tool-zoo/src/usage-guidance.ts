/**
 * Usage guidance in tool descriptions: the clauses and sentences addressed to the calling model about when and how to
 * call a tool ("always call this tool when the user asks …", "if you don't know the ID list notifications first",
 * "do not use it for local files", "Prefer this tool over …", "(requires admin rights)", "Note: …"), as opposed to what
 * the tool does. Their words talk about other things (the user, knowing, other tools), so the index weighs them less.
 *
 * Recognised from general English and the way tool descriptions are written, never from particular tools. Descriptions
 * are untrusted input: the text is cut into blocks, sentences and clauses by plain scans, and the first
 * {@link MATCH_PREFIX} characters of each clause are matched against patterns anchored at its start with bounded
 * repetitions only, so the work is linear in the text's length.
 */

/** A description split into what the tool does and the usage guidance addressed to its caller. */
export interface UsageGuidanceSplit {
  /** The description without its guidance (the input itself when it has none). */
  purpose: string;
  /** The guidance clauses and sentences, each ending a sentence (empty when there are none). */
  guidance: string;
}

/** Longest clause (in characters) matched against the patterns: openers sit at the start. */
const MATCH_PREFIX = 160;
/** Longest parenthetical looked at on its own. */
const MAX_PARENTHETICAL = 300;

/** Words that may come before an opener without changing it ("and always call this tool …", "then do not use …"). */
const LEAD = String.raw`^(?:(?:and|but|or|so|then|also|otherwise|however|instead|please|always|only|just|first|else|thus)\s+){0,3}`;
/** Who the guidance is addressed to or talks about. */
const CALLER = String.raw`(?:you|the\s+user|a\s+user|the\s+caller|the\s+assistant|the\s+agent|the\s+model|the\s+llm)`;

/** Clause openers of usage guidance (tested on a clause's first {@link MATCH_PREFIX} characters, lower-cased). */
const GUIDANCE_OPENERS: readonly RegExp[] = [
  // "use this tool when …", "call this function to …", "invoke it …", "use these …"
  new RegExp(String.raw`${LEAD}(?:use|call|invoke)\s+(?:this|it|these|them)\b`),
  // "use when …", "use only for …", "use instead of …"
  new RegExp(String.raw`${LEAD}use\s+(?:when|whenever|if|for|to|before|after|only|instead|with|in\s+combination)\b`),
  // "when to use this tool:", "when not to use"
  new RegExp(String.raw`${LEAD}when\s+(?:not\s+)?to\s+(?:use|call)\b`),
  // "do not use it for …", "don't pass …", "never call …", "avoid calling …"
  new RegExp(String.raw`${LEAD}(?:do\s+not|don't|dont|never\s+(?:use|call|invoke)|avoid\s+(?:using|calling))\b`),
  // conditionals addressed to the caller: "if you don't know …", "when the user asks …", "unless you …", "if unsure …"
  new RegExp(String.raw`${LEAD}(?:if|when|whenever|unless|once|before|after)\s+(?:${CALLER}|needed|necessary|unsure|not\s+sure|in\s+doubt|possible|available)\b`),
  // "you should provide …", "the user must …"
  new RegExp(String.raw`${LEAD}${CALLER}\s+(?:should|must|can|may|might|could|need|needs|will\s+need|have\s+to|has\s+to|are\s+expected)\b`),
  // "call list_x first", "first call …", "call this twice"
  new RegExp(String.raw`${LEAD}call\s`),
  // "prefer this tool over …", "prefer using …", "preferred over …" (not "preferred ingredients")
  new RegExp(String.raw`${LEAD}(?:prefer(?:ably)?\s+(?:this|these|it|using|calling|to)\b|preferred\s+(?:over|to)\b|prefer\s+\S+(?:\s+\S+){0,5}\s+(?:over|instead)\b)`),
  // "requires admin rights", "required: …"
  new RegExp(String.raw`${LEAD}(?:requires\b|required\s*:)`),
  // "make sure …", "ensure that you …", "be sure to …", "remember to …"
  new RegExp(String.raw`${LEAD}(?:make\s+sure|be\s+sure|ensure\s+(?:that\s+)?${CALLER}|remember\s+to|do\s+not\s+forget)\b`),
  // "this tool should only be used …", "should be called …", "must be used …"
  new RegExp(String.raw`${LEAD}(?:(?:this|the)\s+(?:tool|function|endpoint|method)\s+)?(?:should|must|can|may)\s+(?:only\s+|not\s+|never\s+)?be\s+(?:used|called|invoked)\b`),
  // "it is recommended to …"
  new RegExp(String.raw`${LEAD}(?:it\s+is|it's)\s+(?:recommended|advisable|best|important|required)\b`),
];

/** A label that makes the whole sentence guidance: "Note: …", "IMPORTANT: …", "Tip: …". */
const GUIDANCE_LABEL = /^(?:note|notes|nb|important|tip|tips|hint|warning|caution|reminder|usage|usage\s+notes?)\s*:/;

/** A clause opening with a subordinating conjunction. */
const SUBORDINATE = /^(?:if|when|whenever|unless|once|before|after|while|in\s+order\s+to)\b/;

/** A parenthetical that speaks to the caller: "(you may …)", "(check with the user if not sure)". */
const ADDRESSED = /\b(?:you|your|if\s+(?:not\s+sure|unsure|needed|necessary))\b/;

/** Abbreviations whose final period does not end a sentence. */
const ABBREVIATION = /(?:^|[\s(])(?:e\.g|i\.e|etc|vs|cf|approx|incl|no|ex)$/i;

/** Whether a clause (trimmed) opens with usage guidance. */
export function isGuidanceClause(clause: string): boolean {
  const head = clause.slice(0, MATCH_PREFIX).toLowerCase().replace(/[’`]/g, "'").replace(/\s+/g, " ").trim();
  if (!head) return false;
  return GUIDANCE_LABEL.test(head) || GUIDANCE_OPENERS.some((pattern) => pattern.test(head));
}

/** Lines grouped into blocks: a blank line or a bullet / numbered item starts a new block. */
function blocksOf(text: string): string[] {
  const blocks: string[] = [];
  let current = "";
  for (const rawLine of text.split("\n")) {
    const line = rawLine.trim();
    const startsItem = /^(?:[-•+*]|\d{1,3}[.)])\s/.test(line);
    if (!line || startsItem) {
      if (current) blocks.push(current);
      current = line;
    } else current = current ? `${current} ${line}` : line;
  }
  if (current) blocks.push(current);
  return blocks;
}

/** Sentences of a block: ends at `.`, `!` or `?` before whitespace, except after common abbreviations. */
function sentencesOf(block: string): string[] {
  const sentences: string[] = [];
  let start = 0;
  for (let i = 0; i < block.length; i++) {
    const char = block[i];
    if ((char === "." || char === "!" || char === "?") && (i + 1 === block.length || block[i + 1] === " ")) {
      if (char === "." && ABBREVIATION.test(block.slice(Math.max(start, i - 8), i))) continue;
      sentences.push(block.slice(start, i + 1).trim());
      start = i + 1;
    }
  }
  const tail = block.slice(start).trim();
  if (tail) sentences.push(tail);
  return sentences;
}

/** A piece of a sentence: its text (with the separator that ended it) and whether it is guidance. */
interface Piece {
  text: string;
  guidance: boolean;
}

/**
 * Clauses of a sentence: cut after `,` `;` `:` and around dashes; a parenthetical is a piece of its own when it opens
 * with guidance ("(requires …)", "(check with the user …)"). From the first guidance clause on, the rest of the
 * sentence is guidance ("always call this tool when …, if you don't know …").
 */
function piecesOf(sentence: string): Piece[] {
  const pieces: Piece[] = [];
  let start = 0;
  let inGuidance = false;
  const push = (end: number) => {
    const text = sentence.slice(start, end);
    if (text.trim()) {
      inGuidance ||= isGuidanceClause(text.trim());
      pieces.push({ text, guidance: inGuidance });
    }
    start = end;
  };
  for (let i = 0; i < sentence.length; i++) {
    const char = sentence[i];
    if (char === "(") {
      const window = sentence.slice(i + 1, i + 1 + MAX_PARENTHETICAL);
      const length = window.indexOf(")");
      const close = i + 1 + length;
      if (length >= 0 && !window.slice(0, length).includes("(")) {
        const inner = sentence.slice(i + 1, close).trim();
        if (isGuidanceClause(inner) || ADDRESSED.test(inner.slice(0, MATCH_PREFIX).toLowerCase())) {
          push(i);
          pieces.push({ text: sentence.slice(i, close + 1), guidance: true });
          start = close + 1;
        }
        i = close;
      }
      continue;
    }
    const next = sentence[i + 1];
    if ((char === "," || char === ";" || char === ":") && next === " ") push(i + 1);
    else if ((char === "—" || char === "–" || char === "-") && sentence[i - 1] === " " && next === " ") push(i);
  }
  push(sentence.length);
  // a subordinate clause leading into guidance belongs to it ("If updating, you should provide the SHA …")
  for (let i = pieces.length - 2; i >= 0; i--) {
    if (pieces[i + 1]!.guidance && !pieces[i]!.guidance && SUBORDINATE.test(pieces[i]!.text.trimStart().slice(0, 16).toLowerCase())) pieces[i]!.guidance = true;
  }
  return pieces;
}

/** Ends a text with a sentence mark, dropping a trailing clause separator. */
function asSentence(text: string): string {
  let end = text.length;
  while (end > 0 && " \t\n,;:—–-".includes(text[end - 1]!)) end--;
  const trimmed = text.slice(0, end).trim();
  return !trimmed || /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/**
 * Splits a plain-text description (Markdown already stripped; newlines separate lines) into what the tool does and
 * its usage guidance. The first clause of the description is always purpose (tool descriptions start with what the
 * tool does); a description without guidance comes back unchanged as `purpose`.
 *
 * @example
 * ```ts
 * splitUsageGuidance("Get a notification, always call this tool when the user asks about one.")
 * // { purpose: "Get a notification.", guidance: "always call this tool when the user asks about one." }
 * ```
 */
export function splitUsageGuidance(description: string): UsageGuidanceSplit {
  const purpose: string[] = [];
  const guidance: string[] = [];
  let first = true;
  let found = false;
  for (const block of blocksOf(description)) {
    const purposeSentences: string[] = [];
    for (const sentence of sentencesOf(block)) {
      const pieces = piecesOf(sentence);
      if (first && pieces[0]) pieces[0].guidance = false;
      first = false;
      const kept = pieces
        .filter((p) => !p.guidance)
        .map((p) => p.text)
        .join("")
        .replace(/ +([.!?,;:])/g, "$1");
      const moved = pieces.filter((p) => p.guidance).map((p) => p.text).join(" ");
      if (moved.trim()) {
        found = true;
        guidance.push(asSentence(moved.replace(/\s+/g, " ")));
        if (kept.trim()) purposeSentences.push(asSentence(kept));
      } else purposeSentences.push(sentence);
    }
    if (purposeSentences.length) purpose.push(purposeSentences.join(" "));
  }
  return found ? { purpose: purpose.join("\n"), guidance: guidance.join(" ") } : { purpose: description, guidance: "" };
}
