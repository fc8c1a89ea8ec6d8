import type { CacheScope } from "@afw/contracts";

/** The identity of a group of cache entries: one flow, in one scope, tenant and (scope `session`) session. */
export interface CacheGroup {
  /** `shared` or `session`. */
  readonly scope: CacheScope;
  /** Gateway-wide flow id. */
  readonly flowId: string;
  /** Session (scope `session` only). */
  readonly sessionId?: string | undefined;
  /** Tenant, when answers are separated by tenant. */
  readonly tenant?: string | undefined;
}

const encode = (value: string): string => encodeURIComponent(value);

/** Escapes the glob characters of Redis `SCAN MATCH` patterns. */
export function escapeRedisPattern(value: string): string {
  return value.replace(/[*?[\]\\]/g, (char) => `\\${char}`);
}

/**
 * The Redis key layout. Every component is URI-encoded, so ids containing `:`, `{` or `}` cannot collide with each other
 * or break a hash tag.
 */
export class Keyspace {
  /** @param prefix Prefix of every key, e.g. `afw:`. */
  constructor(readonly prefix: string) {}

  private tenantPart(tenant: string | undefined): string {
    return tenant === undefined ? "" : `t:${encode(tenant)}:`;
  }

  /** The hash tag body shared by all keys of one session. */
  sessionTag(sessionId: string, tenant?: string): string {
    return `${this.tenantPart(tenant)}${encode(sessionId)}`;
  }

  /** Common stem of a cache group's keys. */
  cacheGroupBase(group: CacheGroup): string {
    const flow = encode(group.flowId);
    if (group.scope === "session") {
      return `${this.prefix}cache:{${this.sessionTag(group.sessionId ?? "", group.tenant)}}:session:flow:${flow}`;
    }
    return `${this.prefix}cache:{${this.tenantPart(group.tenant)}shared:flow:${flow}}`;
  }

  /** Key of one cached answer. */
  cacheEntry(group: CacheGroup, questionHash: string): string {
    return `${this.cacheGroupBase(group)}:q:${questionHash}`;
  }

  /** Set of the question hashes cached in a group. */
  cacheGroupIndex(group: CacheGroup): string {
    return `${this.cacheGroupBase(group)}:idx`;
  }

  /** Hash of question hash -> embedding (semantic hits) of a group. */
  cacheGroupEmbeddings(group: CacheGroup): string {
    return `${this.cacheGroupBase(group)}:emb`;
  }

  /** Sorted set of every cache group (member: the group as a JSON array, score: its latest expiry). */
  get cacheRegistry(): string {
    return `${this.prefix}cache-groups`;
  }

  /** Hash of shared cache counters. */
  get cacheStats(): string {
    return `${this.prefix}cache-stats`;
  }

  /** `SCAN MATCH` pattern of every cache entry and group key. */
  get cacheKeyPattern(): string {
    return `${escapeRedisPattern(this.prefix)}cache:*`;
  }

  /** List of a session's turns (JSON, oldest first). */
  sessionTurns(sessionId: string, tenant?: string): string {
    return `${this.prefix}session:{${this.sessionTag(sessionId, tenant)}}`;
  }

  /** Hash of a session's metadata (`createdAt`, `updatedAt`, ...). */
  sessionMeta(sessionId: string, tenant?: string): string {
    return `${this.sessionTurns(sessionId, tenant)}:meta`;
  }

  /** Sorted set of the ids of a session's latest turns (makes a replayed append a no-op). */
  sessionTurnIds(sessionId: string, tenant?: string): string {
    return `${this.sessionTurns(sessionId, tenant)}:ids`;
  }

  /** Set of the tags any turn of a session carried. */
  sessionTags(sessionId: string, tenant?: string): string {
    return `${this.sessionTurns(sessionId, tenant)}:tags`;
  }

  /** Sorted set of a tenant's sessions carrying `tag`, by `updatedAt`. */
  sessionTagIndex(tag: string, tenant?: string): string {
    return `${this.prefix}sessions:${this.tenantPart(tenant)}tag:${encode(tag)}`;
  }

  /**
   * Start of every history key of a tenant: one hash tag per tenant, so that a search's multi-key reads (`MGET`,
   * pipelines, `MULTI`) and the indexer's writes stay in one slot of a Redis Cluster.
   */
  private historyBase(tenant: string | undefined): string {
    return `${this.prefix}history:{${this.tenantPart(tenant)}h}:`;
  }

  /** A turn's history document (JSON of session id and turn), by turn id. */
  historyDoc(turnId: string, tenant?: string): string {
    return `${this.historyBase(tenant)}doc:${encode(turnId)}`;
  }

  /** A turn's question embedding (int8 bytes), by turn id. */
  historyVector(turnId: string, tenant?: string): string {
    return `${this.historyBase(tenant)}vec:${encode(turnId)}`;
  }

  /** A tenant's sketch log: fixed-size records (question sketch, turn id) appended as turns are embedded. */
  historySketches(tenant?: string): string {
    return `${this.historyBase(tenant)}sketches`;
  }

  /** Set of `[tenant, turn id]` JSON members of turns written but not embedded yet. */
  get historyPending(): string {
    return `${this.prefix}history:pending`;
  }

  /**
   * Sorted set of a tenant's turn ids by `askedAt`: every turn (`all`), or those with a stemmed
   * word (`w`), a tag (`tag`) or of a session (`s`).
   */
  historySet(kind: "all" | "w" | "tag" | "s", value: string, tenant?: string): string {
    return `${this.historyBase(tenant)}${kind}:${encode(value)}`;
  }

  /** Sorted set of a tenant's sessions by `updatedAt`. */
  sessionIndex(tenant?: string): string {
    return `${this.prefix}sessions:${this.tenantPart(tenant)}index`;
  }

  /** List of a backend's (or one of its flows') recent samples. */
  performanceWindow(backendId: string, flowId?: string): string {
    const base = `${this.prefix}perf:{${encode(backendId)}}`;
    return flowId === undefined ? base : `${base}:flow:${encode(flowId)}`;
  }

  /** Set of tracked performance targets. */
  get performanceTargets(): string {
    return `${this.prefix}perf-targets`;
  }

  /** A backend's health snapshot (with TTL). */
  health(backendId: string): string {
    return `${this.prefix}health:{${encode(backendId)}}`;
  }

  /** Set of backend ids with a snapshot. */
  get healthIndex(): string {
    return `${this.prefix}health-index`;
  }

  /** Hash of circuit key -> state. */
  get circuits(): string {
    return `${this.prefix}circuits`;
  }

  /** Token bucket of one rate-limit key (a token name or client address): one key, its own slot. */
  rateLimit(key: string): string {
    return `${this.prefix}ratelimit:{${encode(key)}}`;
  }
}

/** Serialises a cache group for the registry. */
export function encodeCacheGroup(group: CacheGroup): string {
  return JSON.stringify([group.scope, group.flowId, group.sessionId ?? null, group.tenant ?? null]);
}

/** Parses a registry member; undefined when it is not one. */
export function decodeCacheGroup(member: string): CacheGroup | undefined {
  try {
    const value: unknown = JSON.parse(member);
    if (!Array.isArray(value) || value.length !== 4) return undefined;
    const [scope, flowId, sessionId, tenant] = value as unknown[];
    if ((scope !== "shared" && scope !== "session") || typeof flowId !== "string") return undefined;
    if (sessionId !== null && typeof sessionId !== "string") return undefined;
    if (tenant !== null && typeof tenant !== "string") return undefined;
    return {
      scope,
      flowId,
      ...(sessionId === null ? {} : { sessionId }),
      ...(tenant === null ? {} : { tenant }),
    };
  } catch {
    return undefined;
  }
}
