import { cosineSimilarity, type CacheInvalidation, type CacheKeyInput, type CacheLookup, type CacheStats, type ResponseCache } from "@afw/contracts";
import { Cluster } from "ioredis";
import { Keyspace, decodeCacheGroup, encodeCacheGroup, type CacheGroup } from "./keyspace.js";
import { LuaScript, type RedisClient, type RedisConnection } from "./redis-connection.js";
import { RedisCounters } from "./redis-counters.js";
import {
  checkSelector,
  decodeEmbedding,
  encodeEmbedding,
  semanticEmbedding,
  pickSemanticHit,
  lookupIncrements,
  parseStoredEntry,
  locateCacheKey,
  selectorMatches,
  statsFromFields,
  type CacheGetOptions,
  type ResponseCacheOptions,
  ResponseCacheCore,
  type CacheWrite,
} from "./response-cache-shared.js";

/** Writes an entry, its group index member and (optionally) its embedding atomically; all keys share one slot. */
const SET_SCRIPT = new LuaScript(`
local ttl = tonumber(ARGV[2])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('SADD', KEYS[2], ARGV[3])
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
  if redis.call('PTTL', KEYS[3]) < ttl then redis.call('PEXPIRE', KEYS[3], ttl) end
end
return 1`);

/**
 * Removes up to ARGV[2] entries of a group: pops their hashes from the group index and deletes the entries (ARGV[1] ..
 * hash, same hash tag, so the same slot) and their embeddings.
 */
const INVALIDATE_GROUP_SCRIPT = new LuaScript(`
local members = redis.call('SPOP', KEYS[1], tonumber(ARGV[2]))
local removed = 0
for i = 1, #members do
  removed = removed + redis.call('DEL', ARGV[1] .. members[i])
  redis.call('HDEL', KEYS[2], members[i])
end
if #members < tonumber(ARGV[2]) then redis.call('DEL', KEYS[2]) end
return { removed, #members }`);

const ENTRY_KEY = /:q:[0-9a-f]{64}$/;

/** Options of {@link RedisResponseCache}. */
export interface RedisResponseCacheOptions extends ResponseCacheOptions {
  /** The shared connection (see `RedisConnection`). */
  connection: RedisConnection;
  /** Prefix of every key. @default "afw:" */
  keyPrefix?: string | undefined;
}

/** SCAN/ZSCAN `COUNT` and entries removed per script call during invalidation. */
const BATCH_SIZE = 500;

type GetOutcome = { lookup: CacheLookup; corrupt?: { key: string; message: string }; guardRejected?: boolean };

/** {@link ResponseCache} on Redis. */
export class RedisResponseCache extends ResponseCacheCore implements ResponseCache {
  private readonly connection: RedisConnection;
  private readonly counters: RedisCounters;

  constructor(options: RedisResponseCacheOptions) {
    super(new Keyspace(options.keyPrefix ?? "afw:"), options);
    this.connection = options.connection;
    this.counters = new RedisCounters(this.connection, this.keyspace.cacheStats);
  }

  async get(key: CacheKeyInput, options: CacheGetOptions = {}): Promise<CacheLookup> {
    const { group, normalized, entryKey: entryKey } = locateCacheKey(this.keyspace, key);
    const embedding = semanticEmbedding(this.semantic, key, options.embedding);
    const outcome = await this.connection.run(
      "response-cache",
      "get",
      async (client): Promise<GetOutcome> => {
        const raw = await client.get(entryKey);
        let corrupt: GetOutcome["corrupt"];
        if (raw !== null) {
          const parsed = parseStoredEntry(raw, group, normalized);
          if ("entry" in parsed) return { lookup: { hit: true, kind: "exact", entry: parsed.entry } };
          corrupt = { key: entryKey, message: parsed.corrupt };
        }
        let guardRejected = false;
        if (embedding) {
          const semantic = await this.semanticLookup(client, group, embedding, key.question);
          guardRejected = semantic.guardRejected;
          if (semantic.lookup) return { lookup: semantic.lookup, guardRejected, ...(corrupt ? { corrupt } : {}) };
        }
        return { lookup: { hit: false, reason: corrupt ? "corrupt" : "absent" }, guardRejected, ...(corrupt ? { corrupt } : {}) };
      },
      options.trace,
    );
    if (!outcome.ok) {
      this.counters.add(lookupIncrements(group.flowId, "miss", true));
      return { hit: false, reason: "unavailable" };
    }
    const { lookup, corrupt, guardRejected } = outcome.value;
    if (corrupt) {
      this.connection.report(
        { type: "value-corrupt", store: "response-cache", key: corrupt.key, message: corrupt.message, scope: group.scope, flowId: group.flowId },
        options.trace,
      );
    }
    this.counters.add(lookupIncrements(group.flowId, !lookup.hit ? "miss" : lookup.kind, corrupt !== undefined && !lookup.hit, guardRejected));
    return lookup;
  }

  protected async write({ group, hash, entry, embedding, now, trace }: CacheWrite): Promise<boolean> {
    const ttlMs = entry.ttlSeconds * 1000;
    const outcome = await this.connection.run(
      "response-cache",
      "set",
      (client) =>
        Promise.all([
          client.zadd(this.keyspace.cacheRegistry, "GT", now + ttlMs, encodeCacheGroup(group)),
          SET_SCRIPT.run(
            client,
            [this.keyspace.cacheEntry(group, hash), this.keyspace.cacheGroupIndex(group), this.keyspace.cacheGroupEmbeddings(group)],
            [JSON.stringify(entry), ttlMs, hash, embedding ? encodeEmbedding(embedding) : ""],
          ),
        ]),
      trace,
    );
    return outcome.ok;
  }

  protected clock(): number {
    return Date.now();
  }

  protected count(increments: Record<string, number>): void {
    this.counters.add(increments);
  }

  async invalidate(selector: CacheInvalidation): Promise<number> {
    checkSelector(selector);
    // A tenant's "all" goes through its groups; only an unscoped "all" may wipe the keyspace.
    return selector.all === true && selector.tenant === undefined ? this.invalidateAll() : this.invalidateGroups(selector);
  }

  /** Writes counter increments still pending (sent in the background) to Redis. */
  async flushCounters(): Promise<void> {
    await this.counters.flush();
  }

  async stats(): Promise<CacheStats> {
    const shared = await this.counters.read();
    return statsFromFields(shared ?? this.counters.local);
  }

  private async semanticLookup(client: RedisClient, group: CacheGroup, embedding: Float32Array, question: string): Promise<{ lookup?: CacheLookup; guardRejected: boolean }> {
    const embeddingsKey = this.keyspace.cacheGroupEmbeddings(group);
    const candidates: Array<{ hash: string; similarity: number }> = [];
    let compared = 0;
    let cursor = "0";
    do {
      const [next, flat] = await client.hscan(embeddingsKey, cursor, "COUNT", Math.min(100, this.semantic.maxCandidates));
      cursor = next;
      for (let i = 0; i + 1 < flat.length && compared < this.semantic.maxCandidates; i += 2) {
        const stored = decodeEmbedding(flat[i + 1] ?? "");
        if (!stored || stored.length !== embedding.length) continue;
        compared++;
        const similarity = cosineSimilarity(stored, embedding);
        if (similarity >= this.semantic.threshold) candidates.push({ hash: flat[i] ?? "", similarity });
      }
    } while (cursor !== "0" && compared < this.semantic.maxCandidates);
    const best = candidates.sort((a, b) => b.similarity - a.similarity).slice(0, 5);
    return pickSemanticHit(question, group, best, async (candidate) => {
      const raw = await client.get(this.keyspace.cacheEntry(group, candidate.hash));
      if (raw !== null) return raw;
      // The entry expired; drop its embedding and index member.
      client.hdel(embeddingsKey, candidate.hash).catch(() => {});
      client.srem(this.keyspace.cacheGroupIndex(group), candidate.hash).catch(() => {});
      return undefined;
    });
  }

  private async invalidateGroups(selector: CacheInvalidation): Promise<number> {
    const registry = this.keyspace.cacheRegistry;
    await this.connection.run("response-cache", "invalidate", (client) => client.zremrangebyscore(registry, "-inf", Date.now()));
    const groups: CacheGroup[] = [];
    let cursor = "0";
    do {
      const outcome = await this.connection.run("response-cache", "invalidate", (client) => client.zscan(registry, cursor, "COUNT", BATCH_SIZE));
      if (!outcome.ok) return 0;
      const [next, flat] = outcome.value;
      cursor = next;
      for (let i = 0; i < flat.length; i += 2) {
        const group = decodeCacheGroup(flat[i] ?? "");
        if (group && selectorMatches(selector, group)) groups.push(group);
      }
    } while (cursor !== "0");
    let removed = 0;
    for (const group of groups) {
      const keys = [this.keyspace.cacheGroupIndex(group), this.keyspace.cacheGroupEmbeddings(group)];
      const entryStem = `${this.keyspace.cacheGroupBase(group)}:q:`;
      for (;;) {
        const outcome = await this.connection.run("response-cache", "invalidate", (client) =>
          INVALIDATE_GROUP_SCRIPT.run(client, keys, [entryStem, BATCH_SIZE]),
        );
        if (!outcome.ok) return removed;
        const [deleted, popped] = outcome.value as [number, number];
        removed += deleted;
        if (popped < BATCH_SIZE) break;
      }
    }
    return removed;
  }

  private async invalidateAll(): Promise<number> {
    let removed = 0;
    const cluster = this.connection.client instanceof Cluster;
    const completed = await this.connection.scan("response-cache", "invalidate", this.keyspace.cacheKeyPattern, BATCH_SIZE, async (keys) => {
      const entries = keys.filter((key) => ENTRY_KEY.test(key));
      const others = keys.filter((key) => !ENTRY_KEY.test(key));
      const outcome = await this.connection.run("response-cache", "invalidate", async (client) => {
        // A Cluster cannot delete keys of several slots in one command.
        const unlink = async (batch: string[]) =>
          batch.length === 0 ? 0 : cluster ? (await Promise.all(batch.map((key) => client.unlink(key)))).reduce((a, b) => a + b, 0) : client.unlink(...batch);
        const [deleted] = await Promise.all([unlink(entries), unlink(others)]);
        return deleted;
      });
      if (outcome.ok) removed += outcome.value;
    });
    if (completed) await this.connection.run("response-cache", "invalidate", (client) => client.unlink(this.keyspace.cacheRegistry));
    return removed;
  }
}
