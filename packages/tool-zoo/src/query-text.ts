/** A query split into what the user wants done and the literal content it carries. */
export interface QueryParts {
  /** What to do: the query without quotes and code, entities replaced by their kind (`acme/api` → `repository`). */
  intent: string;
  /** The literal content removed from the intent: quotes, code, entity values. */
  quoted: string[];
  /** Words for the kinds of entities recognised (`file`, `repository`, `url web page`, …). */
  kinds: string[];
  /** The intent without the entity words: only what the user typed (for server detection). */
  bare?: string;
}

import { isStepVerb } from "./task-steps.js";

const IMAGE_EXTENSIONS = new Set(["png", "jpg", "jpeg", "gif", "svg", "webp", "bmp", "ico", "tiff", "heic"]);
const AUDIO_EXTENSIONS = new Set(["mp3", "wav", "ogg", "flac", "m4a"]);

function fileKind(path: string): string {
  const extension = /\.([A-Za-z][A-Za-z0-9]{0,5})$/.exec(path)?.[1]?.toLowerCase();
  if (!extension) return "file";
  if (IMAGE_EXTENSIONS.has(extension)) return "image file";
  if (AUDIO_EXTENSIONS.has(extension)) return "audio file";
  if (extension === "pdf") return "pdf file";
  return "file";
}

/**
 * Verbs of communication and of committing to memory (English grammar: verbs that take a reported-content complement),
 * in their common inflections; "keep" / "bear" for "keep in mind that …".
 */
const REPORTING_VERB =
  "say|says|said|tell|tells|told|write|writes|wrote|written|post|posts|posted|send|sends|sent|reply|replies|replied|respond|responds|" +
  "responded|announce|announces|announced|mention|mentions|mentioned|note|notes|noted|jot|jots|jotted|record|records|recorded|log|logs|" +
  "logged|remember|remembers|remembered|memori[sz]e|memori[sz]es|memori[sz]ed|remind|reminds|reminded|notify|notifies|notified|inform|" +
  "informs|informed|message|messages|messaged|keep|keeps|kept|bear|bears";
/**
 * A reporting verb, at most six words for the addressee or place ("tell the team in #general"), then "that", "saying" or
 * "says" or a colon, then the content up to the end of its sentence (at most 400 characters; bounded, linear).
 */
const REPORTED_CONTENT = new RegExp(
  `\\b(${REPORTING_VERB})\\b((?:\\s+[^\\s.;!?:]+){0,6}?)(?:\\s+(that|saying|says)\\s+|\\s*:\\s+)([^.;!?\\n]{1,400})`,
  "gi",
);
/** Words after "that" that make it a pronoun or determiner, not the start of a clause ("note that down", "send that file"). */
const NOT_A_CLAUSE_START = /^(?:down|up|out|off|in|on|for|to|as|away|back|again|please|now|one|too|here|there|somewhere|with|by|at)\b/i;
/** A finite verb among the first words of a clause ("Bob works", "the deploy is done", "we moved", "it'll"). */
const FINITE_VERB = /^(?:\S+\s+){0,3}?(?:is|are|was|were|be|been|will|won't|has|have|had|can|can't|could|should|would|must|may|might|does|doesn't|do|don't|did|didn't|isn't|aren't|wasn't|weren't|\w+'(?:s|re|ll|ve|d)|\w{2,}(?:s|ed))\b/i;

/**
 * The content clause of a request to say, send or remember something ("remember that Bob works at Acme"): the clause
 * is what the message or fact is, not the operation asked for. Returns the query without the clause and the clause, or
 * `undefined` when the query has none. A "that" clause needs three words and a finite verb ("send that file to Bob"
 * keeps its words); the clause ends at the end of its sentence, at "then", or at "and" before a step verb.
 */
function reportedContent(text: string): { rest: string; content: string[] } | undefined {
  const content: string[] = [];
  let rest = "";
  let from = 0;
  REPORTED_CONTENT.lastIndex = 0;
  for (let found = REPORTED_CONTENT.exec(text); found; found = REPORTED_CONTENT.exec(text)) {
    const [match, verb, gap, marker, clause] = found as unknown as [string, string, string, string | undefined, string];
    const trimmed = clause.trim();
    if (marker?.toLowerCase() === "that" && (trimmed.split(/\s+/).length < 3 || NOT_A_CLAUSE_START.test(trimmed) || !FINITE_VERB.test(trimmed))) {
      // not a clause: look for another verb after this one
      REPORTED_CONTENT.lastIndex = found.index + verb.length;
      continue;
    }
    // the clause ends before a next step: ", then …", "and then …", "and close …"
    let end = clause.length;
    const next = /,?\s+(?:and\s+)?then\s|\s+and\s+(\w+)/gi;
    for (let step = next.exec(clause); step; step = next.exec(clause)) {
      if (step[1] === undefined || isStepVerb(step[1].toLowerCase())) {
        end = step.index;
        break;
      }
    }
    content.push(clause.slice(0, end).trim());
    rest += `${text.slice(from, found.index)}${verb}${gap} `;
    from = found.index + match.length - (clause.length - end);
    REPORTED_CONTENT.lastIndex = from;
  }
  return content.length ? { rest: rest + text.slice(from), content } : undefined;
}

/**
 * Separates what a query asks for from the content it carries (`post 'deploy done' in #releases` matches on "post … in"):
 * quotes, code-like spans and entity values go to `quoted`, entities leave the word for their kind in `intent`.
 */
export function splitQuotedContent(query: string): QueryParts {
  const quoted: string[] = [];
  const kinds: string[] = [];
  let intent = query.replace(
    /(^|[\s(:=,])(["'`“‘])([^"'`”’\n]{1,200}?)(["'`”’])(?=$|[\s).,;:!?])/g,
    (_match, before: string, _open, inner: string) => {
      quoted.push(inner);
      return `${before} `;
    },
  );
  const reported = reportedContent(intent);
  if (reported) {
    intent = reported.rest;
    quoted.push(...reported.content);
  }
  const replace = (pattern: RegExp, kind: (value: string) => string) => {
    intent = intent.replace(pattern, (match: string, before: string, value: string) => {
      quoted.push(value);
      const word = kind(value);
      if (word) kinds.push(word);
      return `${before} ${word ? `\u0001${word}\u0001` : ""} `;
    });
  };
  replace(/(^|\s)(https?:\/\/\S+|www\.\S+)/g, () => "url web page");
  replace(/(^|\s)([\w.+-]+@[\w-]+\.[\w.]+)/g, () => "email");
  // code-like spans: calls, indexing, assignments, snake_case identifiers
  replace(/(^|\s)(\S*[([{=]\S*|[A-Za-z0-9]+_[A-Za-z0-9_]+)/g, () => "");
  // file paths: anything with a file extension, or rooted at ~ / ./
  replace(/(^|\s)((?:~|\.{1,2})?\/?(?:[\w@.-]+\/)*\.?[\w@-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,5})(?=$|[\s,;:!?)]|\.(?:\s|$))/g, fileKind);
  replace(/(^|\s)((?:~|\.{1,2})?\/[\w@.-]+(?:\/[\w@.-]*)*|~)(?=$|[\s,;:!?)])/g, () => "path directory");
  // IANA time zone names (Europe/London, America/New_York)
  replace(/(^|\s)((?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)\/[A-Za-z_]+(?:\/[A-Za-z_]+)?)(?=$|[\s,;:!?)]|\.(?:\s|$))/g, () => "timezone");
  // owner/name pairs
  replace(/(^|\s)([A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*)(?=$|[\s,;:!?)]|\.(?:\s|$))/g, () => "repository");
  // issue-tracker keys such as ABC-123 (project key, dash, number)
  replace(/(^|\s)([A-Z][A-Z0-9]{1,9}-\d+)(?=$|[\s,;:!?)]|\.(?:\s|$))/g, () => "issue");
  // #name after "in", "to", "on", "into", "from": a chat channel ("post it to #ops"); elsewhere a channel, an anchor or a
  // CSS id ("click #submit"): content only
  replace(/(\b(?:in|to|on|into|from)\s+)(#[A-Za-z][\w-]*)/gi, () => "channel");
  replace(/(^|\s)(#[A-Za-z][\w-]*)/g, () => "");
  const bare = intent.replace(/\u0001[^\u0001]*\u0001/g, " ");
  return { intent: intent.replace(/\u0001/g, "").replace(/\s+/g, " ").trim(), quoted, kinds, bare: bare.replace(/\s+/g, " ").trim() };
}
