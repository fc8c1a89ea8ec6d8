import type { GatewayConfig } from "./config-schema.js";

const SENSITIVE_HEADER = /auth|key|token|secret|cookie|password|credential|signature/i;

/** Values of headers whose name suggests a credential. */
function sensitiveHeaderValues(headers: Record<string, string>): string[] {
  return Object.entries(headers).filter(([name]) => SENSITIVE_HEADER.test(name))
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

/** Every secret in a configuration: backend API keys, bearer tokens, values of credential-like headers (`Authorization`, `*-key`, `*token*`, …) of backends, OTLP and downstream HTTP servers,
 * credential-like environment variables of downstream stdio servers (`*TOKEN*`, `*SECRET*`, `*API_KEY*`, …), and passwords embedded in the Redis/Chroma/backend/downstream URLs. */
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
