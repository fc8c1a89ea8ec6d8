import type { GatewayConfig } from "./config-schema.js";

/** The text that replaces a secret. */
export const REDACTED = "[REDACTED]";

/** Secrets shorter than this are not redacted by value (they would mangle ordinary text). */
const MIN_SECRET_LENGTH = 6;

/** Generic credential shapes, redacted even when the secret itself is not known. */
const GENERIC_PATTERNS: readonly RegExp[] = [
  /(\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  /((?:api[_-]?key|x-api-key|apikey|token|password|secret)["']?\s*[:=]\s*["']?)[^\s"'&,;}]{6,}/gi,
  /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+(?=@)/gi,
];

/**
 * Removes secrets from text and values before they reach a log line, a trace event, an error
 * message or a tool result. Built from every configured secret (API keys, header values, bearer
 * tokens, passwords in URLs) plus generic credential patterns; secrets added at run time (e.g.
 * by `backend_connect`) are redacted from then on.
 */
export interface Redactor {
  /**
   * Returns `text` with every known secret replaced by `[REDACTED]`, and (unless
   * `generic: false`) generic credential shapes too (`Bearer …`, `apiKey=…`, passwords in URLs).
   */
  redact(text: string, options?: { generic?: boolean }): string;
  /** Deep copy of `value` with every string redacted (objects, arrays; other values kept). */
  redactValue<T>(value: T): T;
  /** Adds secrets to redact from now on. Short or empty values are ignored. */
  addSecrets(...secrets: (string | undefined)[]): void;
  /** Number of known secrets (for diagnostics; never the secrets themselves). */
  readonly size: number;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Creates a {@link Redactor} for the given secrets.
 *
 * @example
 * ```ts
 * const redactor = createRedactor(["sk-live-123456"]);
 * redactor.redact("failed with key sk-live-123456"); // "failed with key [REDACTED]"
 * ```
 */
export function createRedactor(secrets: Iterable<string | undefined> = []): Redactor {
  const known = new Set<string>();
  let pattern: RegExp | undefined;
  const rebuild = () => {
    const sorted = [...known].sort((a, b) => b.length - a.length).map(escapeRegExp);
    pattern = sorted.length > 0 ? new RegExp(sorted.join("|"), "g") : undefined;
  };
  const add = (secret: string | undefined) => {
    if (typeof secret !== "string") return false;
    const trimmed = secret.trim();
    if (trimmed.length < MIN_SECRET_LENGTH || known.has(trimmed)) return false;
    known.add(trimmed);
    // Also the URL-encoded form, which ends up in query strings and URLs.
    const encoded = encodeURIComponent(trimmed);
    if (encoded !== trimmed) known.add(encoded);
    return true;
  };
  for (const secret of secrets) add(secret);
  rebuild();

  const redact = (text: string, options?: { generic?: boolean }): string => {
    let out = pattern ? text.replace(pattern, REDACTED) : text;
    if (options?.generic === false) return out;
    for (const generic of GENERIC_PATTERNS) {
      generic.lastIndex = 0;
      if (generic.test(out)) {
        generic.lastIndex = 0;
        out = out.replace(generic, `$1${REDACTED}`);
      }
    }
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

const SENSITIVE_HEADER = /auth|key|token|secret|cookie|password|credential|signature/i;

/** Values of headers whose name suggests a credential. */
function sensitiveHeaderValues(headers: Record<string, string>): string[] {
  return Object.entries(headers)
    .filter(([name]) => SENSITIVE_HEADER.test(name))
    .flatMap(([, value]) => {
      // `Bearer abc` / `Basic abc`: the credential alone is the secret too.
      const parts = value.split(/\s+/);
      return parts.length === 2 && parts[1] ? [value, parts[1]] : [value];
    });
}

function urlPassword(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.password ? decodeURIComponent(parsed.password) : undefined;
  } catch {
    return undefined;
  }
}

const SENSITIVE_ENV_NAME = /token|secret|password|passwd|api[_-]?key|auth|credential|private/i;

/**
 * Every secret in a configuration: backend API keys, bearer tokens, values of credential-like
 * headers (`Authorization`, `*-key`, `*token*`, …) of backends, OTLP and downstream HTTP servers,
 * credential-like environment variables of downstream stdio servers (`*TOKEN*`, `*SECRET*`,
 * `*API_KEY*`, …), and passwords embedded in the Redis/Chroma/backend/downstream URLs.
 */
export function configSecrets(config: GatewayConfig): string[] {
  const secrets: (string | undefined)[] = [];
  for (const backend of config.backends) {
    secrets.push(backend.apiKey, urlPassword(backend.baseURL), ...sensitiveHeaderValues(backend.headers));
  }
  for (const token of config.http.authTokens) secrets.push(typeof token === "string" ? token : token.token);
  secrets.push(urlPassword(config.redis?.url), urlPassword(config.chroma?.url));
  if (config.trace.otlp) secrets.push(...sensitiveHeaderValues(config.trace.otlp.headers));
  for (const server of config.downstream.servers) {
    if (server.transport === "http") secrets.push(urlPassword(server.url), ...sensitiveHeaderValues(server.headers));
    else {
      for (const [name, value] of Object.entries(server.env)) if (SENSITIVE_ENV_NAME.test(name)) secrets.push(value);
    }
  }
  return secrets.filter((s): s is string => typeof s === "string" && s.length > 0);
}
