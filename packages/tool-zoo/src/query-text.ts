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
