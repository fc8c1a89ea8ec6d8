import {
  AfwError,
  CacheEntrySchema,
  type CacheEntry,
  type CacheInvalidation,
  type CacheKeyInput,
  type CacheLookup,
  type CacheStats,
  type TraceContext,
  type UniversalQueryResult,
} from "@afw/contracts";
import type { CacheGroup, Keyspace } from "./keyspace.js";
import { hashNormalizedQuestion, normalizeQuestion } from "./question-hash.js";
import { questionsAgree } from "./semantic-guard.js";
import { parseStored } from "./store-validation.js";

/** Semantic (near-duplicate) hits; off unless `enabled`. */
export interface SemanticCacheOptions {
  /** Serve near-duplicate questions from the cache. @default false */
  enabled?: boolean;
  /** Smallest cosine similarity that counts as the same question. @default 0.95 */
  threshold?: number;
}

/** Options shared by the Redis and memory response caches. */
export interface ResponseCacheOptions {
  /** Semantic hits; see {@link SemanticCacheOptions}. */
  semantic?: SemanticCacheOptions | undefined;
}

/** Options of `get`: an embedding for semantic hits and a per-request trace context. */
export interface CacheGetOptions {
  /** Embedding of the question; enables a semantic lookup when the exact key misses. */
  embedding?: Float32Array;
  /** Trace context of the request (overrides the store's). */
  trace?: TraceContext;
}

/** Options of `set`. */
export interface CacheSetOptions {
  /** Lifetime of the entry in whole seconds (see `DEFAULT_CACHE_TTL_POLICY`). */
  ttlSeconds: number;
  /** Embedding of the question, stored for semantic hits (when enabled). */
  embedding?: Float32Array;
  /** False for flows marked non-cacheable: `set` then refuses. @default true */
  cacheable?: boolean;
  /** True for partial results (an interrupted stream, a truncated answer): `set` then refuses. @default false */
  partial?: boolean;
  /** Trace context of the request (overrides the store's). */
  trace?: TraceContext;
}

/** Resolved semantic settings. */
export interface SemanticSettings {
  enabled: boolean;
  threshold: number;
  /** Most stored embeddings compared per lookup (per flow, scope, tenant and session). */
  maxCandidates: number;
}

/** Fills semantic defaults and checks ranges. */
export function semanticSettings(options: SemanticCacheOptions | undefined): SemanticSettings {
  const threshold = options?.threshold ?? 0.95;
  if (!(threshold > 0 && threshold <= 1)) throw new AfwError("CONFIG_INVALID", "semantic.threshold must be in (0, 1]");
  return { enabled: options?.enabled ?? false, threshold, maxCandidates: 200 };
}

/**
 * The group (flow, scope, tenant, session) of a key.
 * @throws AfwError `INVALID_INPUT` when `flowId` is empty or scope `session` has no `sessionId`.
 */
export function cacheGroupOf(key: CacheKeyInput): CacheGroup {
  if (!key.flowId) throw new AfwError("INVALID_INPUT", "Cache key needs a flowId");
  if (key.scope === "session") {
    if (!key.sessionId) throw new AfwError("INVALID_INPUT", "Cache key of scope 'session' needs a sessionId");
    return { scope: "session", flowId: key.flowId, sessionId: key.sessionId, ...(key.tenant === undefined ? {} : { tenant: key.tenant }) };
  }
  if (key.scope !== "shared") throw new AfwError("INVALID_INPUT", "Cache scope must be 'shared' or 'session'");
  return { scope: "shared", flowId: key.flowId, ...(key.tenant === undefined ? {} : { tenant: key.tenant }) };
}

/** A cache key with its group, normalised question and question hash computed. */
export interface ResolvedCacheKey {
  group: CacheGroup;
  /** {@link normalizeQuestion} of the question. */
  normalized: string;
  /** SHA-256 (hex) of `normalized` (and the key's `variant`, when it has one). */
  hash: string;
}

/** Resolved keys by key object, with the fields they were computed from (a mutated key is resolved again). */
const resolvedKeys = new WeakMap<CacheKeyInput, { key: Readonly<CacheKeyInput>; resolved: ResolvedCacheKey }>();

/**
 * The group and question hash of a key, computed once per key object: `get` and then `set` with the same object (the
 * miss path) normalise and hash the question once.
 * @throws AfwError `INVALID_INPUT` like {@link cacheGroupOf}.
 */
export function resolveCacheKey(key: CacheKeyInput): ResolvedCacheKey {
  const memo = resolvedKeys.get(key);
  if (
    memo &&
    memo.key.question === key.question &&
    memo.key.flowId === key.flowId &&
    memo.key.scope === key.scope &&
    memo.key.sessionId === key.sessionId &&
    memo.key.tenant === key.tenant &&
    memo.key.variant === key.variant
  ) {
    return memo.resolved;
  }
  const group = cacheGroupOf(key);
  const normalized = normalizeQuestion(key.question);
  // A variant (parameters that change the answer) is hashed with the question; without one the hash is the question's alone.
  const hash = hashNormalizedQuestion(key.variant ? `${normalized}\u0000${key.variant}` : normalized);
  const resolved: ResolvedCacheKey = { group, normalized, hash };
  resolvedKeys.set(key, { key: { ...key }, resolved });
  return resolved;
}

/** {@link resolveCacheKey} plus the key of the entry in `keyspace`. */
export function locateCacheKey(keyspace: Keyspace, key: CacheKeyInput): ResolvedCacheKey & { entryKey: string } {
  const resolved = resolveCacheKey(key);
  return { ...resolved, entryKey: keyspace.cacheEntry(resolved.group, resolved.hash) };
}

/** The embedding a lookup or write of `key` uses: only with semantic hits on, and never for a key with a `variant`. */
export function semanticEmbedding(semantic: SemanticSettings, key: CacheKeyInput, embedding: Float32Array | undefined): Float32Array | undefined {
  return semantic.enabled && !key.variant ? embedding : undefined;
}

/**
 * Checks `set` arguments.
 * @throws AfwError `INVALID_INPUT` for a TTL that is not a positive number of seconds.
 */
export function entryToStore(key: CacheKeyInput, group: CacheGroup, result: unknown, options: CacheSetOptions, now: number): CacheEntry | undefined {
  if (!Number.isFinite(options.ttlSeconds) || options.ttlSeconds <= 0) {
    throw new AfwError("INVALID_INPUT", "ttlSeconds must be a positive number of seconds");
  }
  if (options.cacheable === false || options.partial === true) return undefined;
  if (typeof result !== "object" || result === null) return undefined;
  const record = result as Record<string, unknown>;
  if ("error" in record || record["partial"] === true || record["isError"] === true) return undefined;
  const answer = record["result"];
  const metadata = record["_mcp_metadata"];
  if (typeof answer !== "string" || answer.trim().length === 0) return undefined;
  if (typeof metadata !== "object" || metadata === null || typeof (metadata as Record<string, unknown>)["flow_id"] !== "string") return undefined;
  return {
    version: 1,
    result: result as UniversalQueryResult,
    question: key.question,
    flowId: group.flowId,
    scope: group.scope,
    ...(group.sessionId === undefined ? {} : { sessionId: group.sessionId }),
    ...(group.tenant === undefined ? {} : { tenant: group.tenant }),
    createdAt: Math.floor(now),
    ttlSeconds: Math.ceil(options.ttlSeconds),
  };
}

/**
 * Parses a stored value (untrusted: validated with `CacheEntrySchema`) and checks it belongs to
 * `group` (and, given, to the question whose {@link normalizeQuestion} is `normalizedQuestion`).
 */
export function parseStoredEntry(raw: string, group: CacheGroup, normalizedQuestion?: string): { entry: CacheEntry } | { corrupt: string } {
  const entry = parseStored(CacheEntrySchema, raw);
  if (!entry) return { corrupt: "stored value is not JSON of a cache entry" };
  if (entry.flowId !== group.flowId || entry.scope !== group.scope || entry.tenant !== group.tenant || entry.sessionId !== group.sessionId) {
    return { corrupt: "stored entry belongs to another flow, scope, tenant or session" };
  }
  if (normalizedQuestion !== undefined && normalizeQuestion(entry.question) !== normalizedQuestion) {
    return { corrupt: "stored entry belongs to another question" };
  }
  return { entry };
}

/** True when `group` is selected by `selector`. */
export function selectorMatches(selector: CacheInvalidation, group: CacheGroup): boolean {
  // `all` with a tenant means everything of that tenant, never another tenant's entries.
  if (selector.all === true) return selector.tenant === undefined || selector.tenant === group.tenant;
  return (
    (selector.flowId === undefined || selector.flowId === group.flowId) &&
    (selector.sessionId === undefined || selector.sessionId === group.sessionId) &&
    (selector.scope === undefined || selector.scope === group.scope) &&
    (selector.tenant === undefined || selector.tenant === group.tenant)
  );
}

/**
 * Checks an invalidation selector.
 * @throws AfwError `INVALID_INPUT` when no selector field is set.
 */
export function checkSelector(selector: CacheInvalidation): void {
  const set = [selector.flowId, selector.sessionId, selector.scope, selector.tenant].some((value) => value !== undefined);
  if (selector.all !== true && !set) {
    throw new AfwError("INVALID_INPUT", "Cache invalidation needs flowId, sessionId, scope, tenant or all: true");
  }
}

/** Float32 bytes as base64 (how embeddings are stored). */
export function encodeEmbedding(embedding: Float32Array): string {
  return Buffer.from(embedding.buffer, embedding.byteOffset, embedding.byteLength).toString("base64");
}

/** Inverse of {@link encodeEmbedding}; undefined for malformed input. */
export function decodeEmbedding(encoded: string): Float32Array | undefined {
  const bytes = Buffer.from(encoded, "base64");
  if (bytes.byteLength === 0 || bytes.byteLength % 4 !== 0) return undefined;
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

/** Field of a per-flow counter in the stats hash. */
export function flowStatField(flowId: string, counter: "hits" | "misses" | "writes"): string {
  return `flow:${encodeURIComponent(flowId)}:${counter}`;
}

/** Builds {@link CacheStats} from counter fields (`hits`, `flow:<id>:hits`, ...). */
export function statsFromFields(fields: Readonly<Record<string, number | string>>): CacheStats {
  const read = (name: string): number => {
    const value = Number(fields[name] ?? 0);
    return Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
  };
  const byFlow: CacheStats["byFlow"] = {};
  for (const field of Object.keys(fields)) {
    const match = /^flow:(.*):(hits|misses|writes)$/.exec(field);
    if (!match?.[1] || !match[2]) continue;
    let flowId: string;
    try {
      flowId = decodeURIComponent(match[1]);
    } catch {
      continue;
    }
    const flow = (byFlow[flowId] ??= { hits: 0, misses: 0, writes: 0 });
    flow[match[2] as "hits" | "misses" | "writes"] = read(field);
  }
  const hits = read("hits");
  const semanticHits = read("semanticHits");
  const misses = read("misses");
  const lookups = hits + semanticHits + misses;
  return {
    hits,
    semanticHits,
    misses,
    writes: read("writes"),
    errors: read("errors"),
    hitRate: lookups === 0 ? 0 : (hits + semanticHits) / lookups,
    semanticGuardRejections: read("semanticGuardRejections"),
    byFlow,
  };
}

/** Counter increments for one lookup outcome (`guardRejected`: the semantic guard refused a near-duplicate). */
export function lookupIncrements(flowId: string, outcome: "exact" | "semantic" | "miss", error: boolean, guardRejected = false): Record<string, number> {
  const increments: Record<string, number> = {};
  if (guardRejected) increments["semanticGuardRejections"] = 1;
  if (outcome === "exact") increments["hits"] = 1;
  else if (outcome === "semantic") increments["semanticHits"] = 1;
  else increments["misses"] = 1;
  increments[flowStatField(flowId, outcome === "miss" ? "misses" : "hits")] = 1;
  if (error) increments["errors"] = 1;
  return increments;
}

/**
 * The first candidate (most similar first) whose stored value the guard lets answer `question` (a number, a name or
 * a negation must not differ; see `questionsAgree`); `read` gives a candidate's stored value, undefined when gone.
 */
export async function pickSemanticHit<C extends { similarity: number }>(
  question: string,
  group: CacheGroup,
  candidates: readonly C[],
  read: (candidate: C) => string | undefined | Promise<string | undefined>,
): Promise<{ lookup?: CacheLookup; guardRejected: boolean }> {
  let guardRejected = false;
  for (const candidate of [...candidates].sort((a, b) => b.similarity - a.similarity)) {
    const raw = await read(candidate);
    const parsed = raw === undefined ? undefined : parseStoredEntry(raw, group);
    if (parsed === undefined || !("entry" in parsed)) continue;
    if (!questionsAgree(question, parsed.entry.question)) guardRejected = true;
    else return { lookup: { hit: true, kind: "semantic", entry: parsed.entry, similarity: Math.min(1, candidate.similarity) }, guardRejected };
  }
  return { guardRejected };
}

/** One answer `set` writes: its group, question hash, entry and (semantic hits on) question embedding. */
export interface CacheWrite {
  group: CacheGroup;
  hash: string;
  entry: CacheEntry;
  embedding: Float32Array | undefined;
  now: number;
  trace: TraceContext | undefined;
}

/** What the Redis and memory response caches share: the key layout, semantic settings, `keyOf`, and `set`'s checks and counts. */
export abstract class ResponseCacheCore {
  protected readonly semantic: SemanticSettings;

  protected constructor(
    protected readonly keyspace: Keyspace,
    options: ResponseCacheOptions,
  ) {
    this.semantic = semanticSettings(options.semantic);
  }

  /** The storage key of `key` (on Redis, its Redis key). */
  keyOf(key: CacheKeyInput): string {
    return locateCacheKey(this.keyspace, key).entryKey;
  }

  async set(key: CacheKeyInput, result: UniversalQueryResult, options: CacheSetOptions): Promise<boolean> {
    const { group, hash } = resolveCacheKey(key);
    const now = this.clock();
    const entry = entryToStore(key, group, result, options, now);
    if (!entry) return false;
    const written = await this.write({ group, hash, entry, embedding: semanticEmbedding(this.semantic, key, options.embedding), now, trace: options.trace });
    this.count(written ? { writes: 1, [flowStatField(group.flowId, "writes")]: 1 } : { errors: 1 });
    return written;
  }

  /** Epoch ms now. */
  protected abstract clock(): number;
  /** Stores one checked answer; false when the store failed. */
  protected abstract write(write: CacheWrite): Promise<boolean>;
  /** Adds counter increments (`hits`, `flow:<id>:writes`, ...). */
  protected abstract count(increments: Record<string, number>): void;
}
