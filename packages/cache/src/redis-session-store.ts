import { SessionTurnSchema, type SessionRecord, type SessionStore, type SessionSummary, type SessionTurn } from "@afw/contracts";
import { globToRegExp } from "./glob.js";
import { Keyspace } from "./keyspace.js";
import { LuaScript, type RedisConnection } from "./redis-connection.js";
import { checkSessionId, checkTurn, limitOf, sessionSettings, type SessionSettings, type SessionStoreOptions } from "./session-store-shared.js";

/**
 * Appends a turn atomically: RPUSH, LTRIM to the last ARGV[2], metadata update, sliding PEXPIRE.
 * KEYS[1] turns list, KEYS[2] metadata hash (same hash tag, so the same slot).
 * ARGV: turn JSON, max turns, ttl ms, now, session id, tenant ('' for none). Returns turns kept.
 */
const APPEND_SCRIPT = new LuaScript(`
local kept = redis.call('RPUSH', KEYS[1], ARGV[1])
local max = tonumber(ARGV[2])
if kept > max then
  redis.call('LTRIM', KEYS[1], -max, -1)
  kept = max
end
redis.call('HSETNX', KEYS[2], 'createdAt', ARGV[4])
redis.call('HSET', KEYS[2], 'sessionId', ARGV[5], 'tenant', ARGV[6], 'updatedAt', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return kept`);

/** Options of {@link createRedisSessionStore}. */
export interface RedisSessionStoreOptions extends SessionStoreOptions {
  /** The shared connection (see `createRedisConnection`). */
  connection: RedisConnection;
  /** Prefix of every key. @default "afw:" */
  keyPrefix?: string | undefined;
  /** Clock for `createdAt`/`updatedAt` and the session index (TTLs are kept by Redis). @default Date.now */
  now?: (() => number) | undefined;
}

const ignore = () => {};

/**
 * {@link SessionStore} on Redis. A session is a list of turns (`<p>session:{<id>}`) and a metadata
 * hash (`<p>session:{<id>}:meta`) in one slot; appends run as one Lua script, so concurrent appends
 * from any number of gateway instances keep every turn. A sorted set per tenant indexes sessions
 * by `updatedAt` for `list`. Turns are validated on read (corrupt ones are skipped and reported).
 * When Redis fails, `append` resolves 0, reads resolve empty and `delete` false.
 */
export class RedisSessionStore implements SessionStore {
  private readonly connection: RedisConnection;
  private readonly keyspace: Keyspace;
  private readonly settings: SessionSettings;
  private readonly now: () => number;

  constructor(options: RedisSessionStoreOptions) {
    this.now = options.now ?? Date.now;
    this.connection = options.connection;
    this.keyspace = new Keyspace(options.keyPrefix ?? "afw:");
    this.settings = sessionSettings(options);
  }

  /** The Redis keys of a session: its turns list and metadata hash. */
  keysOf(sessionId: string, tenant?: string): { turns: string; meta: string } {
    return { turns: this.keyspace.sessionTurns(sessionId, tenant), meta: this.keyspace.sessionMeta(sessionId, tenant) };
  }

  async append(sessionId: string, turn: SessionTurn, options: { tenant?: string } = {}): Promise<number> {
    const valid = checkTurn(sessionId, turn);
    const { turns, meta } = this.keysOf(sessionId, options.tenant);
    const index = this.keyspace.sessionIndex(options.tenant);
    const now = this.now();
    const outcome = await this.connection.run("session-store", "append", async (client) => {
      const kept = APPEND_SCRIPT.run(client, [turns, meta], [JSON.stringify(valid), this.settings.maxTurns, this.settings.ttlMs, now, sessionId, options.tenant ?? ""]);
      const indexed = Promise.all([client.zadd(index, now, sessionId), client.pexpire(index, this.settings.ttlMs)]).catch(ignore);
      const [count] = await Promise.all([kept, indexed]);
      return Number(count);
    });
    return outcome.ok ? outcome.value : 0;
  }

  async recent(sessionId: string, limit?: number, options: { tenant?: string } = {}): Promise<SessionTurn[]> {
    checkSessionId(sessionId);
    const count = limitOf(limit, this.settings.recentTurns);
    if (count === 0) return [];
    const key = this.keyspace.sessionTurns(sessionId, options.tenant);
    const outcome = await this.connection.run("session-store", "recent", (client) => client.lrange(key, -count, -1));
    return outcome.ok ? this.parseTurns(key, outcome.value) : [];
  }

  async get(sessionId: string, options: { tenant?: string } = {}): Promise<SessionRecord | undefined> {
    checkSessionId(sessionId);
    const { turns, meta } = this.keysOf(sessionId, options.tenant);
    const outcome = await this.connection.run("session-store", "get", (client) => Promise.all([client.lrange(turns, 0, -1), client.hgetall(meta)]));
    if (!outcome.ok) return undefined;
    const [rawTurns, fields] = outcome.value;
    if (rawTurns.length === 0 && Object.keys(fields).length === 0) return undefined;
    const turnsList = this.parseTurns(turns, rawTurns);
    return { ...summaryOf(sessionId, options.tenant, fields, turnsList.length), turnsList };
  }

  async list(pattern = "*", options: { tenant?: string; limit?: number } = {}): Promise<SessionSummary[]> {
    const matcher = globToRegExp(pattern);
    const limit = limitOf(options.limit, this.settings.listLimit);
    const index = this.keyspace.sessionIndex(options.tenant);
    const now = this.now();
    const outcome = await this.connection.run("session-store", "list", async (client) => {
      await client.zremrangebyscore(index, "-inf", now - this.settings.ttlMs);
      const ids = (await client.zrevrange(index, 0, this.settings.listScanLimit - 1)).filter((id) => matcher.test(id));
      const summaries: SessionSummary[] = [];
      const missing: string[] = [];
      for (let start = 0; start < ids.length && summaries.length < limit; start += limit) {
        const batch = ids.slice(start, start + limit);
        const details = await Promise.all(
          batch.map((id) => {
            const keys = this.keysOf(id, options.tenant);
            return Promise.all([client.hgetall(keys.meta), client.llen(keys.turns)]);
          }),
        );
        batch.forEach((id, i) => {
          const [fields, length] = details[i] ?? [{}, 0];
          if (Object.keys(fields).length === 0) missing.push(id);
          else if (summaries.length < limit) summaries.push(summaryOf(id, options.tenant, fields, length));
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
    const index = this.keyspace.sessionIndex(options.tenant);
    const outcome = await this.connection.run("session-store", "delete", async (client) => {
      const [deleted] = await Promise.all([client.del(turns, meta), client.zrem(index, sessionId)]);
      return deleted > 0;
    });
    return outcome.ok && outcome.value;
  }

  private parseTurns(key: string, raw: readonly string[]): SessionTurn[] {
    const turns: SessionTurn[] = [];
    for (const value of raw) {
      let json: unknown;
      try {
        json = JSON.parse(value);
      } catch {
        json = undefined;
      }
      const parsed = SessionTurnSchema.safeParse(json);
      if (parsed.success) turns.push(parsed.data);
      else this.connection.report({ type: "value-corrupt", store: "session-store", key, message: "stored turn does not match the session turn schema" });
    }
    return turns;
  }
}

function summaryOf(sessionId: string, tenant: string | undefined, fields: Record<string, string>, turns: number): SessionSummary {
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
  };
}

/**
 * Creates a Redis {@link SessionStore} on a shared connection.
 *
 * @example
 * ```ts
 * const sessions = createRedisSessionStore({ connection, maxTurns: 50, ttlMs: 7 * 86_400_000 });
 * await sessions.append("s-1", { question, answer, flowId, askedAt, answeredAt });
 * const context = await sessions.recent("s-1", 5);
 * ```
 */
export function createRedisSessionStore(options: RedisSessionStoreOptions): RedisSessionStore {
  return new RedisSessionStore(options);
}
