import { AfwError, McpSessionRecordSchema, type McpSessionLookup, type McpSessionRecord, type McpSessionRegistry } from "@afw/contracts";
import { checkIdleTtlMs, checkMcpSessionRecord, isPlausibleMcpSessionId } from "./mcp-session-registry-shared.js";
import { LuaScript, type RedisConnection, type RedisRunOptions } from "./redis-connection.js";
import { parseStored } from "./store-validation.js";

/** Refreshes a session for its owner: KEYS[1] the session hash; ARGV owner, ttl ms, now. */
const TOUCH_SCRIPT = new LuaScript(`
local fields = redis.call('HMGET', KEYS[1], 'owner', 'record')
if not fields[2] then return false end
if fields[1] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'lastSeenAt', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return fields[2]`);

/** Options of {@link createRedisMcpSessionRegistry}. */
export interface RedisMcpSessionRegistryOptions {
  /** The shared connection. */
  connection: RedisConnection;
  /** Prefix of every key. @default "afw:" */
  keyPrefix?: string | undefined;
  /** Clock for `lastSeenAt` (TTLs are kept by Redis). @default Date.now */
  now?: (() => number) | undefined;
  /**
   * Bound of each registry operation in ms (attempts that time out are retried within it). @default max(1000, the
   * connection's `operationTimeoutMs`)
   */
  operationTimeoutMs?: number | undefined;
}

/**
 * {@link McpSessionRegistry} on Redis: one hash per session, `<p>mcp-session:{<id>}` (fields `record`, `owner`,
 * `lastSeenAt`) with a sliding TTL, so every gateway instance accepts a session any instance opened.
 */
export class RedisMcpSessionRegistry implements McpSessionRegistry {
  private readonly connection: RedisConnection;
  private readonly prefix: string;
  private readonly now: () => number;
  private readonly runOptions: RedisRunOptions;

  constructor(options: RedisMcpSessionRegistryOptions) {
    this.connection = options.connection;
    const timeoutMs = options.operationTimeoutMs ?? Math.max(1000, options.connection.operationTimeoutMs);
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0 || timeoutMs > 60_000) {
      throw new AfwError("CONFIG_INVALID", "MCP session registry operationTimeoutMs must be an integer from 1 to 60000");
    }
    this.runOptions = { timeoutMs };
    this.prefix = options.keyPrefix ?? "afw:";
    this.now = options.now ?? Date.now;
  }

  /** The Redis key of a session (URI-encoded id in a hash tag). */
  keyOf(sessionId: string): string {
    return `${this.prefix}mcp-session:{${encodeURIComponent(sessionId)}}`;
  }

  async create(record: McpSessionRecord, options: { idleTtlMs: number }): Promise<boolean> {
    const valid = checkMcpSessionRecord(record);
    const ttl = checkIdleTtlMs(options.idleTtlMs);
    const key = this.keyOf(valid.sessionId);
    const outcome = await this.connection.run("mcp-session-registry", "create", (client) =>
      client
        .multi()
        .del(key)
        .hset(key, "record", JSON.stringify(valid), "owner", valid.owner, "lastSeenAt", String(valid.lastSeenAt))
        .pexpire(key, ttl)
        .exec(),
      undefined,
      this.runOptions,
    );
    return outcome.ok;
  }

  async get(sessionId: string): Promise<McpSessionLookup> {
    if (!isPlausibleMcpSessionId(sessionId)) return { status: "absent" };
    const key = this.keyOf(sessionId);
    const outcome = await this.connection.run("mcp-session-registry", "get", (client) => client.hmget(key, "record", "lastSeenAt"), undefined, this.runOptions);
    if (!outcome.ok) return { status: "unavailable", message: outcome.message };
    const [raw, lastSeenAt] = outcome.value;
    return this.found(key, raw ?? null, lastSeenAt ?? null);
  }

  async touch(sessionId: string, options: { owner: string; idleTtlMs: number }): Promise<McpSessionLookup> {
    const ttl = checkIdleTtlMs(options.idleTtlMs);
    if (!isPlausibleMcpSessionId(sessionId)) return { status: "absent" };
    const key = this.keyOf(sessionId);
    const now = this.now();
    const outcome = await this.connection.run("mcp-session-registry", "touch", (client) => TOUCH_SCRIPT.run(client, [key], [options.owner, ttl, now]), undefined, this.runOptions);
    if (!outcome.ok) return { status: "unavailable", message: outcome.message };
    if (outcome.value === 0) return { status: "forbidden" };
    return this.found(key, typeof outcome.value === "string" ? outcome.value : null, String(now));
  }

  async delete(sessionId: string): Promise<boolean | undefined> {
    if (!isPlausibleMcpSessionId(sessionId)) return false;
    const outcome = await this.connection.run("mcp-session-registry", "delete", (client) => client.del(this.keyOf(sessionId)), undefined, this.runOptions);
    return outcome.ok ? outcome.value > 0 : undefined;
  }

  private found(key: string, raw: string | null, lastSeenAt: string | null): McpSessionLookup {
    if (raw === null) return { status: "absent" };
    const record = parseStored(McpSessionRecordSchema, raw);
    if (!record) {
      this.connection.report({ type: "value-corrupt", store: "mcp-session-registry", key, message: "stored MCP session does not match the schema" });
      return { status: "absent" };
    }
    const seen = Number(lastSeenAt);
    return { status: "found", record: Number.isSafeInteger(seen) && seen >= 0 ? { ...record, lastSeenAt: seen } : record };
  }
}

/**
 * Creates a Redis {@link McpSessionRegistry} on a shared connection.
 * @example
 * ```ts
 * const registry = createRedisMcpSessionRegistry({ connection, keyPrefix: "afw:" });
 * const lookup = await registry.touch(sessionId, { owner: "alice", idleTtlMs: 1_800_000 });
 * ```
 */
export function createRedisMcpSessionRegistry(options: RedisMcpSessionRegistryOptions): RedisMcpSessionRegistry {
  return new RedisMcpSessionRegistry(options);
}
