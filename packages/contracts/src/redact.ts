/** The text that replaces a secret. */
export const REDACTED = "[REDACTED]";

/** Secrets shorter than this are not redacted by value (they would mangle ordinary text). */
const MIN_SECRET_LENGTH = 6;
/** Shortest base64 run searched for (shorter runs would match ordinary words). */
const MIN_ENCODED_LENGTH = 6;

/** Credential shapes redacted even when the secret itself is not known (all linear-time). */
const GENERIC: readonly [RegExp, string][] = [
  // Authorization schemes
  [/\b(Bearer|Basic|Token)(\s+)[A-Za-z0-9._~+/=-]{6,}/gi, `$1$2${REDACTED}`],
  // key=value / "key": "value" pairs whose key looks secret (the value may be an auth scheme + token, handled above)
  [
    /\b([A-Za-z0-9_-]*(?:api[_-]?key|token|secret|password|passwd|pwd|credential)[A-Za-z0-9_-]*["']?\s*[:=]\s*["']?)(?!Bearer\b|Basic\b|Token\b|\[REDACTED\])([^\s"'&,;}]{4,})/gi,
    `$1${REDACTED}`,
  ],
  // password of user:password@ in URLs
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+(?=@)/gi, `$1${REDACTED}`],
  // Redis AUTH arguments
  [/\b(AUTH\s+)\S+(\s+\S+)?/g, `$1${REDACTED}`],
  // well-known token shapes
  [/\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}\b/g, REDACTED],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, REDACTED],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g, REDACTED],
];

/**
 * The base64 runs that encode `secret` wherever it sits inside a larger encoded string (e.g. base64 of `Bearer <key>` or
 * `user:<key>`): one per byte offset 0, 1, 2, cut to the characters that depend on the secret's bytes alone.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    const first = Math.ceil((offset * 8) / 6);
    const last = Math.floor(((offset + bytes.length) * 8) / 6);
    const run = encoded.slice(first, last);
    if (run.length >= MIN_ENCODED_LENGTH) forms.push(run, run.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return forms;
}

/** Every form of a secret that is redacted: raw, URL-encoded, JSON-escaped, base64 and base64url. */
function formsOf(secret: string): string[] {
  return [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1), ...base64Forms(secret)];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Removes secrets from text and values before they reach a log line, a trace event, an error message or a tool result:
 * every known secret in raw, URL-encoded, JSON-escaped, base64 and base64url form (base64 at each byte offset, so
 * `base64("Bearer " + key)` is caught too), plus generic credential shapes.
 */
export interface Redactor {
  /**
   * Returns `text` with every known secret replaced by `[REDACTED]`, and (unless `generic: false`) generic credential
   * shapes too (`Bearer …`, `apiKey=…`, passwords in URLs, `sk-…`, `ghp_…`, Redis `AUTH …`).
   */
  redact(text: string, options?: { generic?: boolean }): string;
  /** Deep copy of `value` with every string redacted (objects, arrays; other values kept). */
  redactValue<T>(value: T): T;
  /** Adds secrets to redact from now on. Short or empty values are ignored. */
  addSecrets(...secrets: (string | undefined)[]): void;
  /** Number of known secrets (for diagnostics; never the secrets themselves). */
  readonly size: number;
}

/**
 * Creates a {@link Redactor} for the given secrets (values shorter than six characters are ignored).
 * @example
 * ```ts
 * const redactor = createRedactor(["sk-live-123456"]);
 * redactor.redact("failed with key sk-live-123456"); // "failed with key [REDACTED]"
 * redactor.redact(`Basic ${btoa("user:sk-live-123456")}`); // "Basic [REDACTED]"
 * ```
 */
export function createRedactor(secrets: Iterable<string | undefined> = []): Redactor {
  const known = new Set<string>();
  let pattern: RegExp | undefined;
  const rebuild = () => {
    const forms = new Set([...known].flatMap(formsOf));
    const sorted = [...forms].sort((a, b) => b.length - a.length).map(escapeRegExp);
    pattern = sorted.length > 0 ? new RegExp(sorted.join("|"), "g") : undefined;
  };
  const add = (secret: string | undefined) => {
    if (typeof secret !== "string") return false;
    const trimmed = secret.trim();
    if (trimmed.length < MIN_SECRET_LENGTH || known.has(trimmed)) return false;
    known.add(trimmed);
    return true;
  };
  for (const secret of secrets) add(secret);
  rebuild();

  const redact = (text: string, options?: { generic?: boolean }): string => {
    let out = pattern ? text.replace(pattern, REDACTED) : text;
    if (options?.generic === false) return out;
    for (const [generic, replacement] of GENERIC) out = out.replace(generic, replacement);
    return out;
  };

  const redactValue = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") return redact(value);
    if (depth > 32 || value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
    if (value instanceof Error) return { name: value.name, message: redact(value.message) };
    if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = redactValue(item, depth + 1);
    return out;
  };

  return {
    redact,
    redactValue: <T>(value: T) => redactValue(value, 0) as T,
    addSecrets(...more) {
      let changed = false;
      for (const secret of more) changed = add(secret) || changed;
      if (changed) rebuild();
    },
    get size() {
      return known.size;
    },
  };
}

/**
 * One-off {@link Redactor.redact} of `text` with `secrets` and the generic shapes.
 * @example
 * ```ts
 * redactSecrets("401 for token abc123xyz", ["abc123xyz"]) // "401 for token [REDACTED]"
 * redactSecrets("connect to redis://u:hunter22@host failed") // "connect to redis://u:[REDACTED]@host failed"
 * ```
 */
export function redactSecrets(text: string, secrets: Iterable<string | undefined> = []): string {
  return createRedactor(secrets).redact(text);
}
