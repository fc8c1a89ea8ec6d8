import { z } from "zod";
import { AfwError, formatZodError, type Intent } from "@afw/contracts";

const DAY_SECONDS = 86_400;

/**
 * How long cached answers live, by cache class. Class names are matched case-insensitively with
 * `_` and spaces read as `-`.
 */
export interface CacheTtlPolicy {
  /** TTL in seconds per cache class (`technical`, `creative`, ...). */
  classes: Readonly<Record<string, number>>;
  /** Cache class used for a flow's first intent when the flow names no class. */
  intentClasses: Readonly<Partial<Record<Intent, string>>>;
  /** TTL in seconds when nothing else matches. */
  defaultTtlSeconds: number;
}

/**
 * The default TTL policy: technical 7 days; creative and strategic 30 days; volatile and
 * document-QA 1 day; anything else 1 day. Intents map to classes: `technical-analysis` and
 * `data-processing` -> technical, `creative-orientation` -> creative, `structural-thinking` ->
 * strategic, `rag-retrieval` -> document-qa; `conversation` uses the default.
 */
export const DEFAULT_CACHE_TTL_POLICY: CacheTtlPolicy = Object.freeze({
  classes: Object.freeze({
    technical: 7 * DAY_SECONDS,
    creative: 30 * DAY_SECONDS,
    strategic: 30 * DAY_SECONDS,
    volatile: DAY_SECONDS,
    "document-qa": DAY_SECONDS,
  }),
  intentClasses: Object.freeze({
    "technical-analysis": "technical",
    "data-processing": "technical",
    "creative-orientation": "creative",
    "structural-thinking": "strategic",
    "rag-retrieval": "document-qa",
  }),
  defaultTtlSeconds: DAY_SECONDS,
});

/** What a TTL is resolved for: a cache class or intent name, or a flow (`UniversalFlow` fits). */
export type CacheTtlSubject =
  | string
  | {
      /** The flow's cache class, e.g. `technical`. Wins over intents. */
      readonly cacheClass?: string | undefined;
      /** The flow's intents, best first; the first one with a class mapping decides. */
      readonly intents?: readonly Intent[] | undefined;
      /** A single intent (e.g. the classified intent of the question). */
      readonly intent?: Intent | undefined;
    };

const ttlSeconds = z.number().int().positive();
const PolicyOverridesSchema = z
  .object({
    classes: z.record(z.string(), ttlSeconds).optional(),
    intentClasses: z.record(z.string(), z.string()).optional(),
    defaultTtlSeconds: ttlSeconds.optional(),
  })
  .strict();

/** Overrides of {@link DEFAULT_CACHE_TTL_POLICY}; see {@link createCacheTtlPolicy}. */
export type CacheTtlPolicyOverrides = {
  classes?: Record<string, number>;
  intentClasses?: Partial<Record<Intent, string>>;
  defaultTtlSeconds?: number;
};

const normalizeClass = (name: string): string => name.trim().toLowerCase().replace(/[\s_]+/g, "-");

/**
 * Builds a TTL policy from the defaults and `overrides` (classes and intent mappings are merged,
 * not replaced).
 *
 * @throws AfwError `CONFIG_INVALID` when a TTL is not a positive integer number of seconds.
 * @example
 * ```ts
 * const policy = createCacheTtlPolicy({ classes: { volatile: 600 }, defaultTtlSeconds: 3600 });
 * resolveCacheTtl("volatile", policy) // 600
 * ```
 */
export function createCacheTtlPolicy(overrides: CacheTtlPolicyOverrides = {}): CacheTtlPolicy {
  const parsed = PolicyOverridesSchema.safeParse(overrides);
  if (!parsed.success) throw new AfwError("CONFIG_INVALID", `Invalid cache TTL policy: ${formatZodError(parsed.error)}`);
  const classes: Record<string, number> = { ...DEFAULT_CACHE_TTL_POLICY.classes };
  for (const [name, ttl] of Object.entries(parsed.data.classes ?? {})) classes[normalizeClass(name)] = ttl;
  return {
    classes,
    intentClasses: { ...DEFAULT_CACHE_TTL_POLICY.intentClasses, ...(parsed.data.intentClasses as Partial<Record<Intent, string>>) },
    defaultTtlSeconds: parsed.data.defaultTtlSeconds ?? DEFAULT_CACHE_TTL_POLICY.defaultTtlSeconds,
  };
}

/**
 * The TTL in seconds for answers of a flow, cache class or intent. A flow's `cacheClass` wins;
 * then its intents (or `intent`) through `policy.intentClasses`; else `policy.defaultTtlSeconds`.
 * A string is read as a class name first, then as an intent.
 *
 * @default policy {@link DEFAULT_CACHE_TTL_POLICY}
 * @example
 * ```ts
 * resolveCacheTtl("technical") // 604800 (7 days)
 * resolveCacheTtl({ cacheClass: "volatile" }) // 86400
 * resolveCacheTtl({ intents: ["creative-orientation"] }) // 2592000 (30 days)
 * ```
 */
export function resolveCacheTtl(subject: CacheTtlSubject, policy: CacheTtlPolicy = DEFAULT_CACHE_TTL_POLICY): number {
  const byClass = (name: string | undefined): number | undefined =>
    name === undefined ? undefined : policy.classes[normalizeClass(name)];
  const byIntent = (intent: string | undefined): number | undefined =>
    intent === undefined ? undefined : byClass(policy.intentClasses[intent as Intent]);
  if (typeof subject === "string") return byClass(subject) ?? byIntent(subject) ?? policy.defaultTtlSeconds;
  const fromClass = byClass(subject.cacheClass);
  if (fromClass !== undefined) return fromClass;
  for (const intent of [...(subject.intents ?? []), ...(subject.intent === undefined ? [] : [subject.intent])]) {
    const ttl = byIntent(intent);
    if (ttl !== undefined) return ttl;
  }
  return policy.defaultTtlSeconds;
}
