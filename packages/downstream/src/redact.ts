/** What {@link redactSecrets} puts in place of a secret. */
export const REDACTED = "[REDACTED]";

const MIN_SECRET_LENGTH = 6;

const GENERIC_PATTERNS: readonly RegExp[] = [
  // Authorization schemes
  /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{6,}/gi,
  // key=value / key: value pairs whose key looks secret
  /\b([A-Za-z0-9_-]*(?:api[_-]?key|token|secret|password|passwd|pwd|credential|auth)[A-Za-z0-9_-]*)(["']?\s*[:=]\s*["']?)([^\s"'&,;]{4,})/gi,
  // user:password@ in URLs
  /(\/\/[^/\s:@]+:)([^@\s/]+)(@)/g,
  // well-known token shapes
  /\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g,
];

/**
 * Replaces secrets in `text` with {@link REDACTED}: every literal in `secrets` (values of six or
 * more characters: configured env values, header values, URL credentials) and generic shapes
 * (`Bearer …`, `token=…`, `api_key: …`, `user:pass@`, `sk-…`, `ghp_…`, `xoxb-…`). Used for every
 * error message, status field and trace event that may contain downstream output.
 *
 * @example
 * ```ts
 * redactSecrets("401 for token abc123xyz", ["abc123xyz"]) // "401 for token [REDACTED]"
 * ```
 */
export function redactSecrets(text: string, secrets: Iterable<string> = []): string {
  let result = text;
  const literals = [...new Set([...secrets].filter((s) => s.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
  for (const secret of literals) result = result.split(secret).join(REDACTED);
  result = result
    .replace(GENERIC_PATTERNS[0]!, (_m, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(GENERIC_PATTERNS[1]!, (match: string, key: string, separator: string, value: string) =>
      // the token after an auth scheme was redacted just above
      /^(Bearer|Basic|Token|\[REDACTED)/i.test(value) ? match : `${key}${separator}${REDACTED}`,
    )
    .replace(GENERIC_PATTERNS[2]!, (_m, before: string, _password: string, at: string) => `${before}${REDACTED}${at}`);
  for (const pattern of GENERIC_PATTERNS.slice(3)) result = result.replace(pattern, REDACTED);
  return result;
}

/**
 * The literal secrets of one server's configuration: env values, header values (and the token
 * after an auth scheme), and URL passwords and query values. Values shorter than six characters
 * are ignored (redacting them would garble messages more than it protects).
 */
export function collectSecrets(config: {
  env?: Record<string, string> | undefined;
  headers?: Record<string, string> | undefined;
  url?: string | undefined;
}): string[] {
  const secrets: string[] = [];
  for (const value of Object.values(config.env ?? {})) secrets.push(value);
  for (const value of Object.values(config.headers ?? {})) {
    secrets.push(value);
    const token = /^\s*\S+\s+(\S+)\s*$/.exec(value)?.[1];
    if (token) secrets.push(token);
  }
  if (config.url) {
    try {
      const url = new URL(config.url);
      if (url.password) secrets.push(decodeURIComponent(url.password), url.password);
      for (const value of url.searchParams.values()) secrets.push(value);
    } catch {
      // an invalid URL is reported by validation, not here
    }
  }
  return secrets.filter((s) => s.length >= MIN_SECRET_LENGTH);
}
