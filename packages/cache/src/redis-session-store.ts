import { randomUUID } from "node:crypto";
import { z } from "zod";
import { matchesGlob, redactSecrets, SessionTurnSchema, type HistoryHit, type HistoryPage, type HistoryQuery, type SessionAppendResult, type SessionRecord, type SessionStore, type SessionSummary, type SessionTurn } from "@afw/contracts";
import { MAX_QUERY_WORDS, cursorAt, cursorOffset, pageSize, passesFilters, stemmedWords, turnWords } from "./history-search.js";
import { idfWeights, meaningScore, searchMode } from "./history-vectors.js";
import { Keyspace } from "./keyspace.js";
import { RERANK, RedisHistoryVectors } from "./redis-history-vectors.js";
import { LuaScript, type RedisClient, type RedisConnection } from "./redis-connection.js";
import { checkSessionId, checkTurn, limitOf, sessionSettings, type SessionSettings, type SessionStoreOptions } from "./session-store-shared.js";
import { SessionWriteBuffer, type PendingTurn, type SessionBufferOptions } from "./session-write-buffer.js";
import { parseStored, positiveIntegerOption } from "./store-validation.js";

/**
 * Appends a turn atomically and at most once: a turn whose id is in the session's id set (a replayed or retried append
 * that was written already) is skipped.
 */
const APPEND_SCRIPT = new LuaScript(`
if redis.call('ZSCORE', KEYS[3], ARGV[7]) then
  return {redis.call('LLEN', KEYS[1]), redis.call('SMEMBERS', KEYS[4])}
end
local kept = redis.call('RPUSH', KEYS[1], ARGV[1])
local max = tonumber(ARGV[2])
if kept > max then
  redis.call('LTRIM', KEYS[1], -max, -1)
  kept = max
end
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[7])
redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -(2 * max) - 1)
redis.call('HSETNX', KEYS[2], 'createdAt', ARGV[4])
redis.call('HSET', KEYS[2], 'sessionId', ARGV[5], 'tenant', ARGV[6], 'updatedAt', ARGV[4])
if #ARGV > 7 then
  redis.call('SADD', KEYS[4], unpack(ARGV, 8))
end
if redis.call('EXISTS', KEYS[4]) == 1 then
  redis.call('PEXPIRE', KEYS[4], ARGV[3])
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return {kept, redis.call('SMEMBERS', KEYS[4])}`);

/** Options of {@link RedisSessionStore}. */
export interface RedisSessionStoreOptions extends SessionStoreOptions {
  /** The shared connection (see `RedisConnection`). */
  connection: RedisConnection;
  /** Prefix of every key. @default "afw:" */
  keyPrefix?: string | undefined;
  /** Clock for `createdAt`/`updatedAt` and the session index (TTLs are kept by Redis). @default Date.now */
  now?: (() => number) | undefined;
  /**
   * Bound of one append, longer than the connection's `operationTimeoutMs` so that a slow but
   * working Redis still takes the turn. @default max(1000, the connection's `operationTimeoutMs`)
   */
  appendTimeoutMs?: number | undefined;
  /** Bounds of the write-behind buffer that keeps turns while Redis is away. */
  buffer?: SessionBufferOptions | undefined;
  /** How often buffered turns are replayed while Redis stays away (also on every reconnect). @default 1000 */
  replayIntervalMs?: number | undefined;
}

const ignore = () => {};

/** {@link SessionStore} on Redis. */
export class RedisSessionStore implements SessionStore {
  private readonly connection: RedisConnection;
  private readonly keyspace: Keyspace;
  private readonly settings: SessionSettings;
  private readonly now: () => number;
  private readonly appendTimeoutMs: number;
  private readonly replayIntervalMs: number;
  private readonly buffer: SessionWriteBuffer;
  private replayTimer: NodeJS.Timeout | undefined;
  private readonly onReady = () => {
    void this.replay();
    this.vectors?.kick();
  };
  /** The meaning index, with an embedder. */
  private readonly vectors: RedisHistoryVectors | undefined;
  private closed = false;

  /** @throws AfwError `CONFIG_INVALID` for a non-positive setting. */
  constructor(options: RedisSessionStoreOptions) {
    this.now = options.now ?? Date.now;
    this.connection = options.connection;
    this.keyspace = new Keyspace(options.keyPrefix ?? "afw:");
    this.settings = sessionSettings(options);
    this.appendTimeoutMs = positiveIntegerOption(options.appendTimeoutMs, Math.max(1000, this.connection.operationTimeoutMs), "appendTimeoutMs");
    this.replayIntervalMs = positiveIntegerOption(options.replayIntervalMs, 1000, "replayIntervalMs");
    this.buffer = new SessionWriteBuffer(options.buffer);
    this.vectors = options.embedder ? new RedisHistoryVectors(this.connection, this.keyspace, options.embedder, this.settings.ttlMs, this.replayIntervalMs) : undefined;
    this.connection.client.on("ready", this.onReady);
    if (this.connection.ready) this.vectors?.kick();
  }

  /** Turns waiting in the write-behind buffer. */
  get bufferedTurns(): number {
    return this.buffer.size;
  }

  /** The Redis keys of a session: its turns list and metadata hash. */
  keysOf(sessionId: string, tenant?: string): { turns: string; meta: string } {
    return { turns: this.keyspace.sessionTurns(sessionId, tenant), meta: this.keyspace.sessionMeta(sessionId, tenant) };
  }

  async append(sessionId: string, turn: SessionTurn, options: { tenant?: string } = {}): Promise<SessionAppendResult> {
    const valid = checkTurn(sessionId, turn);
    const entry: PendingTurn = { sessionId, tenant: options.tenant, id: randomUUID(), json: JSON.stringify(valid), turn: valid, at: this.now() };
    if (!this.buffer.holds(sessionId, options.tenant)) {
      const total = await this.write(entry, true);
      if (total !== undefined) return { saved: true, buffered: false, totalTurns: total };
    }
    if (!this.buffer.offer(entry)) {
      this.connection.report({ type: "session-turn-dropped", store: "session-store", buffered: this.buffer.size });
      return { saved: false, buffered: false };
    }
    this.connection.report({ type: "session-turn-buffered", store: "session-store", buffered: this.buffer.size });
    this.scheduleReplay();
    return { saved: true, buffered: true };
  }

  /**
   * Writes the buffered turns now (each session's in order); resolves to the number written.
   * Runs by itself on reconnect and every `replayIntervalMs` while turns wait.
   */
  async replay(): Promise<number> {
    if (this.buffer.size === 0 || !this.connection.ready) return 0;
    const written = await this.buffer.drain((entry) => this.write(entry, false).then((total) => total !== undefined));
    if (written > 0) this.connection.report({ type: "session-turns-replayed", store: "session-store", turns: written, buffered: this.buffer.size });
    if (this.buffer.size > 0) this.scheduleReplay();
    return written;
  }

  /** Stops replaying (buffered turns are written by a last {@link RedisSessionStore.replay} first, if Redis is up). */
  async close(): Promise<void> {
    await this.replay();
    this.closed = true;
    await this.vectors?.close();
    clearTimeout(this.replayTimer);
    this.connection.client.off("ready", this.onReady);
  }

  /** Runs the idempotent append script; the turn count, or undefined when Redis failed. */
  private async write(entry: PendingTurn, reportFailure: boolean): Promise<number | undefined> {
    const { turns, meta } = this.keysOf(entry.sessionId, entry.tenant);
    const ids = this.keyspace.sessionTurnIds(entry.sessionId, entry.tenant);
    const index = this.keyspace.sessionIndex(entry.tenant);
    const tags = [...new Set(entry.turn.tags ?? [])];
    const tagSet = this.keyspace.sessionTags(entry.sessionId, entry.tenant);
    const args = [entry.json, this.settings.maxTurns, this.settings.ttlMs, entry.at, entry.sessionId, entry.tenant ?? "", entry.id, ...tags];
    const fn = async (client: RedisClient) => {
      const indexed = Promise.all([client.zadd(index, "GT", entry.at, entry.sessionId), client.pexpire(index, this.settings.ttlMs)]).catch(ignore);
      const [reply] = await Promise.all([APPEND_SCRIPT.run(client, [turns, meta, ids, tagSet], args), indexed]);
      const [count, sessionTags] = Array.isArray(reply) ? reply : [reply, []];
      // Every tag of the session is re-scored, so listing by tag is newest first like listing all.
      const allTags = Array.isArray(sessionTags) ? sessionTags.map(String) : [];
      await Promise.all(
        allTags.flatMap((tag) => {
          const tagIndex = this.keyspace.sessionTagIndex(tag, entry.tenant);
          return [client.zadd(tagIndex, "GT", entry.at, entry.sessionId), client.pexpire(tagIndex, this.settings.ttlMs)];
        }),
      ).catch(ignore);
      // The turn is saved either way; a turn the history index missed is not found by `search_history`: say so.
      await this.indexHistory(client, entry).catch((error: unknown) => {
        const message = redactSecrets(error instanceof Error ? error.message : String(error));
        this.connection.report({ type: "cache-unavailable", store: "session-store", operation: "history-index", message });
      });
      this.vectors?.kick();
      return Number(count);
    };
    const options = { timeoutMs: this.appendTimeoutMs };
    const outcome = reportFailure ? await this.connection.run("session-store", "append", fn, undefined, options) : await this.connection.execute(fn, options);
    return outcome.ok ? outcome.value : undefined;
  }

  /** Indexes a written turn for {@link RedisSessionStore.search} (idempotent: keyed by the turn id). */
  private async indexHistory(client: RedisClient, entry: PendingTurn): Promise<void> {
    const ttl = this.settings.ttlMs;
    const at = entry.turn.askedAt;
    const sets = [
      this.keyspace.historySet("all", "", entry.tenant),
      this.keyspace.historySet("s", entry.sessionId, entry.tenant),
      ...turnWords(entry.turn).map((word) => this.keyspace.historySet("w", word, entry.tenant)),
      ...[...new Set(entry.turn.tags ?? [])].map((tag) => this.keyspace.historySet("tag", tag, entry.tenant)),
    ];
    const pipeline = client.pipeline();
    pipeline.set(this.keyspace.historyDoc(entry.id, entry.tenant), JSON.stringify({ s: entry.sessionId, t: entry.turn }), "PX", ttl);
    for (const key of sets) pipeline.zadd(key, at, entry.id).pexpire(key, ttl);
    // a pipeline answers each command's error in its replies instead of rejecting
    const failed = (await pipeline.exec())?.find(([error]) => error);
    if (failed) throw failed[0];
    // After the document is written (the indexer drops a pending turn without one), and on its own: the pending set is
    // shared by every tenant, so on a Cluster it lives in another slot than the tenant's keys.
    if (this.vectors) await client.sadd(this.keyspace.historyPending, this.vectors.pendingMember(entry.id, entry.tenant));
  }

  /** Searches the tenant's past turns (see {@link SessionStore.search}). */
  async search(query: HistoryQuery, options: { tenant?: string } = {}): Promise<HistoryPage> {
    const offset = cursorOffset(query.cursor);
    const limit = pageSize(query);
    const words = query.text === undefined ? [] : stemmedWords(query.text, MAX_QUERY_WORDS);
    let mode = query.text === undefined ? undefined : searchMode(query, this.vectors !== undefined);
    if (mode === "keyword" && words.length === 0) return { hits: [], mode };
    const tenant = options.tenant;
    const min = query.from ?? "-inf";
    const max = query.to === undefined ? "+inf" : query.to;
    const sources =
      mode !== undefined
        ? words.map((word) => this.keyspace.historySet("w", word, tenant))
        : [
            query.sessionId !== undefined
              ? this.keyspace.historySet("s", query.sessionId, tenant)
              : query.tag !== undefined
                ? this.keyspace.historySet("tag", query.tag, tenant)
                : this.keyspace.historySet("all", "", tenant),
          ];
    const scan = this.settings.listScanLimit;
    const hybrid = mode === "hybrid" && sources.length > 0;
    // The query is embedded (on the embedding worker) while Redis reads the candidate lists.
    const [vector, listed] = await Promise.all([
      mode === "meaning" || mode === "hybrid" ? this.vectors!.embedQuery(query.text!) : undefined,
      this.connection.run(
        "session-store",
        "search",
        (client) =>
          Promise.all([
            Promise.all(sources.map((key) => client.zrevrangebyscore(key, max, min, "WITHSCORES", "LIMIT", 0, scan))),
            hybrid ? Promise.all([this.keyspace.historySet("all", "", tenant), ...sources].map((key) => client.zcard(key))) : [],
          ]),
        undefined,
        { timeoutMs: this.appendTimeoutMs },
      ),
    ]);
    if (mode !== undefined && vector === undefined) mode = "keyword";
    if (mode === "keyword" && words.length === 0) return { hits: [], mode };
    const withMode = mode === undefined ? {} : { mode };
    if (!listed.ok) return { hits: [], ...withMode };
    const [lists, sizes] = listed.value;
    const outcome = await this.connection.run(
      "session-store",
      "search",
      async (client) => {
        const weights = hybrid ? idfWeights(sizes.slice(1), sizes[0] ?? 0) : [];
        const candidates = new Map<string, { matched: number; share: number; at: number; score: number; similarity?: number }>();
        lists.forEach((list, w) => {
          for (let i = 0; i + 1 < list.length; i += 2) {
            const id = list[i]!;
            const found = candidates.get(id);
            if (found) {
              found.matched += 1;
              found.share += weights[w] ?? 0;
            } else candidates.set(id, { matched: 1, share: weights[w] ?? 0, at: Number(list[i + 1]), score: 0 });
          }
        });
        for (const candidate of candidates.values()) candidate.score = candidate.matched;
        if (vector && (mode === "meaning" || mode === "hybrid")) {
          // Only the RERANK keyword candidates with the largest share are re-ranked by their vectors.
          const byShare = [...candidates].sort(([, a], [, b]) => b.share - a.share || b.matched - a.matched || b.at - a.at);
          for (const [id] of byShare.slice(RERANK)) candidates.delete(id);
          for (const id of await this.vectors!.candidates(client, vector, tenant)) if (!candidates.has(id)) candidates.set(id, { matched: 0, share: 0, at: 0, score: 0 });
        }
        // A session or tag filter drops candidates outside its set before any vector or document is read.
        const filterSet = mode === undefined ? undefined : query.sessionId !== undefined ? this.keyspace.historySet("s", query.sessionId, tenant) : query.tag !== undefined ? this.keyspace.historySet("tag", query.tag, tenant) : undefined;
        if (filterSet !== undefined && candidates.size > 0) {
          const ids = [...candidates.keys()];
          (await client.zmscore(filterSet, ...ids)).forEach((score, i) => score === null && candidates.delete(ids[i]!));
        }
        if (vector && (mode === "meaning" || mode === "hybrid")) {
          const similarities = await this.vectors!.similarities(client, [...candidates.keys()], vector, tenant);
          for (const [id, candidate] of candidates) {
            const sim = similarities.get(id) ?? 0;
            const score = meaningScore(mode, sim, candidate.matched, candidate.share);
            if (score === undefined) candidates.delete(id);
            else Object.assign(candidate, { score, similarity: sim });
          }
        }
        const ordered = [...candidates].sort(([idA, a], [idB, b]) => b.score - a.score || b.at - a.at || (idA < idB ? -1 : idA > idB ? 1 : 0));
        const hits: HistoryHit[] = [];
        const missing: string[] = [];
        const wanted = offset + limit + 1;
        for (let start = 0; start < ordered.length && hits.length < wanted; start += 100) {
          const batch = ordered.slice(start, start + 100);
          const replies = await client.mget(...batch.map(([id]) => this.keyspace.historyDoc(id, tenant)));
          batch.forEach(([, candidate], i) => {
            const raw = replies[i];
            if (raw === null) missing.push(batch[i]![0]);
            if (typeof raw !== "string" || hits.length >= wanted) return;
            const hit = parseHistoryDoc(raw);
            if (hit === undefined || !passesFilters(query, hit.sessionId, hit.turn)) return;
            hits.push({ ...hit, matchedWords: words.length > 0 ? candidate.matched : 0, ...(candidate.similarity === undefined ? {} : { similarity: candidate.similarity }) });
          });
        }
        // Ids whose document expired (its session's TTL passed) leave the sets they were read from.
        if (missing.length > 0) for (const key of sources) client.zrem(key, ...missing).catch(ignore);
        return hits;
      },
      undefined,
      { timeoutMs: this.appendTimeoutMs },
    );
    if (!outcome.ok) return { hits: [], ...withMode };
    const page = outcome.value.slice(offset, offset + limit);
    return outcome.value.length > offset + limit ? { hits: page, nextCursor: cursorAt(offset + limit), ...withMode } : { hits: page, ...withMode };
  }

  private scheduleReplay(): void {
    if (this.replayTimer !== undefined || this.closed) return;
    this.replayTimer = setTimeout(() => {
      this.replayTimer = undefined;
      void this.replay();
    }, this.replayIntervalMs);
    this.replayTimer.unref();
  }

  /** `stored` turns followed by the session's buffered ones not among them (a replay may be landing). */
  private withBuffered(sessionId: string, tenant: string | undefined, stored: readonly string[]): string[] {
    const pending = this.buffer.pending(sessionId, tenant);
    if (pending.length === 0) return [...stored];
    const seen = new Set(stored);
    return [...stored, ...pending.filter((entry) => !seen.has(entry.json)).map((entry) => entry.json)];
  }

  async recent(sessionId: string, limit?: number, options: { tenant?: string } = {}): Promise<SessionTurn[]> {
    checkSessionId(sessionId);
    const count = limitOf(limit, this.settings.recentTurns);
    if (count === 0) return [];
    const key = this.keyspace.sessionTurns(sessionId, options.tenant);
    const outcome = await this.connection.run("session-store", "recent", (client) => client.lrange(key, -count, -1));
    const turns = this.withBuffered(sessionId, options.tenant, outcome.ok ? outcome.value : []);
    return this.parseTurns(key, turns.slice(-count));
  }

  async get(sessionId: string, options: { tenant?: string } = {}): Promise<SessionRecord | undefined> {
    checkSessionId(sessionId);
    const { turns, meta } = this.keysOf(sessionId, options.tenant);
    // Not on the query path: a slow Redis gets the append bound rather than a false "no session".
    const tagSet = this.keyspace.sessionTags(sessionId, options.tenant);
    const outcome = await this.connection.run(
      "session-store",
      "get",
      (client) => Promise.all([client.lrange(turns, 0, -1), client.hgetall(meta), client.smembers(tagSet)]),
      undefined,
      { timeoutMs: this.appendTimeoutMs },
    );
    const [stored, found, storedTags] = outcome.ok ? outcome.value : [[], {}, []];
    const pending = this.buffer.pending(sessionId, options.tenant);
    if (stored.length === 0 && Object.keys(found).length === 0 && pending.length === 0) return undefined;
    const rawTurns = this.withBuffered(sessionId, options.tenant, stored).slice(-this.settings.maxTurns);
    const fields = pending.length === 0 ? found : { createdAt: String(pending[0]!.at), ...found, updatedAt: String(pending.at(-1)!.at) };
    const turnsList = this.parseTurns(turns, rawTurns);
    const tags = new Set(storedTags);
    for (const entry of pending) for (const tag of entry.turn.tags ?? []) tags.add(tag);
    return { ...summaryOf(sessionId, options.tenant, fields, turnsList.length, [...tags]), turnsList };
  }

  async list(pattern = "*", options: { tenant?: string; limit?: number; tag?: string } = {}): Promise<SessionSummary[]> {
    const limit = limitOf(options.limit, this.settings.listLimit);
    const index = options.tag === undefined ? this.keyspace.sessionIndex(options.tenant) : this.keyspace.sessionTagIndex(options.tag, options.tenant);
    const now = this.now();
    const outcome = await this.connection.run("session-store", "list", async (client) => {
      await client.zremrangebyscore(index, "-inf", now - this.settings.ttlMs);
      const ids = (await client.zrevrange(index, 0, this.settings.listScanLimit - 1)).filter((id) => matchesGlob(id, pattern));
      const summaries: SessionSummary[] = [];
      const missing: string[] = [];
      for (let start = 0; start < ids.length && summaries.length < limit; start += limit) {
        const batch = ids.slice(start, start + limit);
        const details = await Promise.all(
          batch.map((id) => {
            const keys = this.keysOf(id, options.tenant);
            return Promise.all([client.hgetall(keys.meta), client.llen(keys.turns), client.smembers(this.keyspace.sessionTags(id, options.tenant))]);
          }),
        );
        batch.forEach((id, i) => {
          const [fields, length, tags] = details[i] ?? [{}, 0, []];
          if (Object.keys(fields).length === 0) missing.push(id);
          else if (summaries.length < limit) summaries.push(summaryOf(id, options.tenant, fields, length, tags));
        });
      }
      if (missing.length > 0) client.zrem(index, ...missing).catch(ignore);
      return summaries;
    });
    return outcome.ok ? outcome.value : [];
  }

  async delete(sessionId: string, options: { tenant?: string } = {}): Promise<boolean> {
    checkSessionId(sessionId);
    const { turns, meta } = this.keysOf(sessionId, options.tenant);
    const ids = this.keyspace.sessionTurnIds(sessionId, options.tenant);
    const index = this.keyspace.sessionIndex(options.tenant);
    const tagSet = this.keyspace.sessionTags(sessionId, options.tenant);
    const outcome = await this.connection.run("session-store", "delete", async (client) => {
      const historySet = this.keyspace.historySet("s", sessionId, options.tenant);
      const [tags, turnIds] = await Promise.all([client.smembers(tagSet), client.zrange(historySet, "0", "-1")]);
      if (turnIds.length > 0) {
        const pipeline = client.pipeline();
        for (const id of turnIds) pipeline.del(this.keyspace.historyDoc(id, options.tenant));
        pipeline.del(historySet);
        await pipeline.exec();
      }
      const [deleted] = await Promise.all([
        client.del(turns, meta, ids, tagSet),
        client.zrem(index, sessionId),
        ...tags.map((tag) => client.zrem(this.keyspace.sessionTagIndex(tag, options.tenant), sessionId)),
      ]);
      return deleted > 0;
    });
    if (!outcome.ok) return false; // nothing changed; buffered turns stay for replay
    const hadBuffered = this.buffer.pending(sessionId, options.tenant).length > 0;
    this.buffer.discard(sessionId, options.tenant);
    return outcome.value || hadBuffered;
  }

  private parseTurns(key: string, raw: readonly string[]): SessionTurn[] {
    const turns: SessionTurn[] = [];
    for (const value of raw) {
      const turn = parseStored(SessionTurnSchema, value);
      if (turn) turns.push(turn);
      else this.connection.report({ type: "value-corrupt", store: "session-store", key, message: "stored turn does not match the session turn schema" });
    }
    return turns;
  }
}

const HistoryDocSchema = z.object({ s: z.string(), t: SessionTurnSchema });

function parseHistoryDoc(raw: string): { sessionId: string; turn: SessionTurn } | undefined {
  const doc = parseStored(HistoryDocSchema, raw);
  return doc && { sessionId: doc.s, turn: doc.t };
}

function summaryOf(sessionId: string, tenant: string | undefined, fields: Record<string, string>, turns: number, tags: readonly string[] = []): SessionSummary {
  const number = (value: string | undefined) => {
    const parsed = Number(value);
    return Number.isInteger(parsed) && parsed >= 0 ? parsed : 0;
  };
  const updatedAt = number(fields["updatedAt"]);
  return {
    sessionId,
    turns,
    createdAt: fields["createdAt"] === undefined ? updatedAt : number(fields["createdAt"]),
    updatedAt,
    ...(tenant === undefined ? {} : { tenant }),
    ...(tags.length === 0 ? {} : { tags: [...tags].sort() }),
  };
}
