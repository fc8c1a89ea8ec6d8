import { cosineSimilarity, takeOldest, type CacheInvalidation, type CacheKeyInput, type CacheLookup, type CacheStats, type ResponseCache } from "@afw/contracts";
import { Keyspace, type CacheGroup } from "./keyspace.js";
import {
  checkSelector,
  semanticEmbedding,
  lookupIncrements,
  parseStoredEntry,
  locateCacheKey,
  selectorMatches,
  statsFromFields,
  pickSemanticHit,
  type CacheGetOptions,
  type ResponseCacheOptions,
  ResponseCacheCore,
  type CacheWrite,
} from "./response-cache-shared.js";
import { EventReporter, type StoreEventOptions } from "./store-events.js";

/** One stored answer of the memory cache: the serialised entry, as Redis would hold it. */
export interface MemoryCacheRecord {
  /** JSON of the `CacheEntry` (validated again on read). */
  value: string;
  /** Epoch ms after which the record is gone. */
  expiresAt: number;
  /** Its group, for invalidation and semantic lookups. */
  readonly group: CacheGroup;
  /** The group's id (its key stem). */
  readonly groupKey: string;
  /** Question embedding, when stored for semantic hits. */
  embedding?: Float32Array | undefined;
}

/** Options of {@link MemoryResponseCache}. */
export interface MemoryResponseCacheOptions extends ResponseCacheOptions, StoreEventOptions {
  /** Most entries kept; the least recently used go first. @default 10000 */
  maxEntries?: number;
  /** Clock in epoch ms (inject one to test expiry without waiting). @default Date.now */
  now?: () => number;
  /** Storage map (inject one to inspect or tamper with records in tests). */
  storage?: Map<string, MemoryCacheRecord>;
}

/**
 * In-process {@link ResponseCache}: the same keys, validation, TTLs, invalidation, semantic hits and stats as the Redis
 * cache, for one gateway process.
 */
export class MemoryResponseCache extends ResponseCacheCore implements ResponseCache {
  private readonly storage: Map<string, MemoryCacheRecord>;
  private readonly groups = new Map<string, Set<string>>();
  private readonly counters: Record<string, number> = {};
  private readonly now: () => number;
  private readonly maxEntries: number;
  private readonly events: EventReporter;

  constructor(options: MemoryResponseCacheOptions = {}) {
    super(new Keyspace(""), options);
    this.storage = options.storage ?? new Map();
    this.now = options.now ?? Date.now;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.events = new EventReporter(options);
  }

  async get(key: CacheKeyInput, options: CacheGetOptions = {}): Promise<CacheLookup> {
    const { group, normalized, entryKey: storageKey } = locateCacheKey(this.keyspace, key);
    const record = this.storage.get(storageKey);
    let miss: CacheLookup & { hit: false } = { hit: false, reason: "absent" };
    if (record) {
      if (record.expiresAt <= this.now()) {
        this.remove(storageKey);
        miss = { hit: false, reason: "expired" };
      } else {
        const parsed = parseStoredEntry(record.value, group, normalized);
        if ("entry" in parsed) {
          this.storage.delete(storageKey);
          this.storage.set(storageKey, record);
          this.count(lookupIncrements(group.flowId, "exact", false));
          return { hit: true, kind: "exact", entry: parsed.entry };
        }
        this.events.report({ type: "value-corrupt", store: "response-cache", key: storageKey, message: parsed.corrupt, scope: group.scope, flowId: group.flowId }, options.trace);
        miss = { hit: false, reason: "corrupt" };
      }
    }
    let guardRejected = false;
    const embedding = semanticEmbedding(this.semantic, key, options.embedding);
    if (embedding) {
      const semantic = await this.semanticLookup(group, embedding, key.question);
      guardRejected = semantic.guardRejected;
      if (semantic.lookup) {
        this.count(lookupIncrements(group.flowId, "semantic", false, guardRejected));
        return semantic.lookup;
      }
    }
    this.count(lookupIncrements(group.flowId, "miss", miss.reason === "corrupt", guardRejected));
    return miss;
  }

  protected async write({ group, hash, entry, embedding, now }: CacheWrite): Promise<boolean> {
    const storageKey = this.keyspace.cacheEntry(group, hash);
    const groupKey = this.keyspace.cacheGroupBase(group);
    this.storage.delete(storageKey);
    this.storage.set(storageKey, {
      value: JSON.stringify(entry),
      expiresAt: now + entry.ttlSeconds * 1000,
      group,
      groupKey,
      embedding: embedding && Float32Array.from(embedding),
    });
    let members = this.groups.get(groupKey);
    if (!members) this.groups.set(groupKey, (members = new Set()));
    members.add(storageKey);
    if (this.storage.size > this.maxEntries) {
      const oldest = takeOldest(this.storage);
      if (oldest) this.forget(oldest[0], oldest[1]);
    }
    return true;
  }

  async invalidate(selector: CacheInvalidation): Promise<number> {
    checkSelector(selector);
    let removed = 0;
    for (const [storageKey, record] of [...this.storage]) {
      if (!selectorMatches(selector, record.group)) continue;
      this.remove(storageKey);
      if (record.expiresAt > this.now()) removed++;
    }
    return removed;
  }

  async stats(): Promise<CacheStats> {
    return statsFromFields(this.counters);
  }

  private semanticLookup(group: CacheGroup, embedding: Float32Array, question: string): Promise<{ lookup?: CacheLookup; guardRejected: boolean }> {
    const members = this.groups.get(this.keyspace.cacheGroupBase(group));
    if (!members) return Promise.resolve({ guardRejected: false });
    const now = this.now();
    const candidates: Array<{ key: string; record: MemoryCacheRecord; similarity: number }> = [];
    let compared = 0;
    for (const storageKey of members) {
      if (compared >= this.semantic.maxCandidates) break;
      const record = this.storage.get(storageKey);
      if (!record?.embedding || record.expiresAt <= now || record.embedding.length !== embedding.length) continue;
      compared++;
      const similarity = cosineSimilarity(record.embedding, embedding);
      if (similarity >= this.semantic.threshold) candidates.push({ key: storageKey, record, similarity });
    }
    return pickSemanticHit(question, group, candidates, (candidate) => candidate.record.value);
  }

  private remove(storageKey: string): void {
    const record = this.storage.get(storageKey);
    this.storage.delete(storageKey);
    if (record) this.forget(storageKey, record);
  }

  /** Drops a removed record's key from its group. */
  private forget(storageKey: string, record: MemoryCacheRecord): void {
    const members = this.groups.get(record.groupKey);
    members?.delete(storageKey);
    if (members?.size === 0) this.groups.delete(record.groupKey);
  }

  protected clock(): number {
    return this.now();
  }

  protected count(increments: Record<string, number>): void {
    for (const [field, amount] of Object.entries(increments)) this.counters[field] = (this.counters[field] ?? 0) + amount;
  }
}
