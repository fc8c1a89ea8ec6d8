import type { Intent } from "@afw/contracts";

const DAY_SECONDS = 86_400;

/** How long cached answers live, by cache class. */
export interface CacheTtlPolicy {
  /** TTL in seconds per cache class (`technical`, `creative`, ...). */
  classes: Readonly<Record<string, number>>;
  /** Cache class used for a flow's first intent when the flow names no class. */
  intentClasses: Readonly<Partial<Record<Intent, string>>>;
  /** TTL in seconds when nothing else matches. */
  defaultTtlSeconds: number;
}

/**
 * The default TTL policy: technical 7 days; creative and strategic 30 days; volatile and document-QA 1 day; anything
 * else 1 day.
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
