const MIN_SECRET_LENGTH = 6;

/**
 * The literal secrets of one server's configuration: env values, header values (and the token after an auth scheme), and
 * URL passwords and query values.
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
