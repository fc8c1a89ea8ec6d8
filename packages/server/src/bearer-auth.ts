import { createHash, timingSafeEqual } from "node:crypto";
import type { AuthTokenConfig } from "./config-schema.js";

/** The identity behind an accepted bearer token (never the token itself). */
export interface AuthenticatedClient {
  /** Token name (`token-<n>` when unnamed), for logs, metrics and rate limits. */
  name: string;
  /** Tenant of the token, if configured. */
  tenant?: string;
  /** Requests per minute allowed for this token, if it overrides the default. */
  requestsPerMinute?: number;
}

/** Checks bearer tokens; see {@link createBearerAuthenticator}. */
export interface BearerAuthenticator {
  /** True when at least one token is configured (auth is required). */
  readonly enabled: boolean;
  /** Every token (for the redactor); never log these. */
  readonly secrets: readonly string[];
  /** The client of a valid `Authorization: Bearer <token>` header, or undefined. */
  authenticate(authorizationHeader: string | undefined): AuthenticatedClient | undefined;
}

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

/** Creates a bearer-token checker. */
export function createBearerAuthenticator(tokens: readonly (string | AuthTokenConfig)[]): BearerAuthenticator {
  const entries = tokens.map((entry, index) => {
    const config = typeof entry === "string" ? { token: entry } : entry;
    return {
      digest: digest(config.token),
      client: {
        name: config.name ?? `token-${index + 1}`,
        ...(config.tenant === undefined ? {} : { tenant: config.tenant }),
        ...(config.requestsPerMinute === undefined ? {} : { requestsPerMinute: config.requestsPerMinute }),
      } satisfies AuthenticatedClient,
      token: config.token,
    };
  });
  return {
    enabled: entries.length > 0,
    secrets: entries.map((e) => e.token),
    authenticate(header) {
      if (!header) return undefined;
      const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
      if (!match) return undefined;
      const presented = digest(match[1]!);
      let found: AuthenticatedClient | undefined;
      for (const entry of entries) {
        if (timingSafeEqual(presented, entry.digest) && found === undefined) found = entry.client;
      }
      return found;
    },
  };
}
