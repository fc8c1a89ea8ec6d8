import { AfwError, McpSessionRecordSchema, parseOrThrow, type McpSessionLookup, type McpSessionRecord, type McpSessionRegistry } from "@afw/contracts";
import { LuaScript, type RedisConnection, type RedisRunOptions } from "./redis-connection.js";
import { parseStored, positiveIntegerOption, positiveMs } from "./store-validation.js";

// The MCP session registry (Streamable HTTP `Mcp-Session-Id`s): in memory for one process, on Redis for several.

/** True when `sessionId` could be a session id at all (non-empty, at most 256 characters, visible ASCII as the MCP spec requires). */
function isPlausibleMcpSessionId(sessionId: string): boolean {
  return sessionId.length > 0 && sessionId.length <= 256 && /^[\x21-\x7e]+$/.test(sessionId);
}

/**
 * Validates a record for {@link McpSessionRegistry.create}.
 * @throws AfwError `INVALID_INPUT` when it does not fit the schema or its id is not a plausible session id.
 */
function checkMcpSessionRecord(record: McpSessionRecord): McpSessionRecord {
  const valid = parseOrThrow(McpSessionRecordSchema, record, "INVALID_INPUT", "MCP session record");
  if (!isPlausibleMcpSessionId(valid.sessionId)) throw new AfwError("INVALID_INPUT", "Invalid MCP session record: sessionId must be visible ASCII");
  return valid;
}

/** Options of {@link MemoryMcpSessionRegistry}. */
export interface MemoryMcpSessionRegistryOptions {
  /** Clock in epoch ms (inject one to test expiry). @default Date.now */
  now?: (() => number) | undefined;
  /** Most sessions kept; the least recently seen are dropped beyond it. @default 100000 */
  maxSessions?: number | undefined;
}

/**
 * In-process {@link McpSessionRegistry}: records expire `idleTtlMs` after their latest touch.
 * Enough for one gateway process; several instances need the Redis registry.
 * @example
 * ```ts
 * const registry = new MemoryMcpSessionRegistry();
 * await registry.create({ sessionId, owner: "", protocolVersion: "2025-06-18", createdAt: Date.now(), lastSeenAt: Date.now() }, { idleTtlMs: 1_800_000 });
 * ```
 */
export class MemoryMcpSessionRegistry implements McpSessionRegistry {
  // Map order is least recently seen first: touch re-inserts.
  private readonly sessions = new Map<string, { record: McpSessionRecord; expiresAt: number }>();
  private readonly now: () => number;
  private readonly maxSessions: number;

  constructor(options: MemoryMcpSessionRegistryOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxSessions = positiveIntegerOption(options.maxSessions, 100_000, "maxSessions");
  }

  async create(record: McpSessionRecord, options: { idleTtlMs: number }): Promise<boolean> {
    const valid = checkMcpSessionRecord(record);
    const ttl = positiveMs(options.idleTtlMs, "idleTtlMs");
    this.sessions.delete(valid.sessionId);
    this.sessions.set(valid.sessionId, { record: { ...valid }, expiresAt: this.now() + ttl });
    while (this.sessions.size > this.maxSessions) this.sessions.delete(this.sessions.keys().next().value!);
    return true;
  }

  async get(sessionId: string): Promise<McpSessionLookup> {
    const entry = this.live(sessionId);
    return entry ? { status: "found", record: { ...entry.record } } : { status: "absent" };
  }

  async touch(sessionId: string, options: { owner: string; idleTtlMs: number }): Promise<McpSessionLookup> {
    const ttl = positiveMs(options.idleTtlMs, "idleTtlMs");
    const entry = this.live(sessionId);
    if (!entry) return { status: "absent" };
    if (entry.record.owner !== options.owner) return { status: "forbidden" };
    const now = this.now();
    entry.record = { ...entry.record, lastSeenAt: now };
    entry.expiresAt = now + ttl;
    this.sessions.delete(sessionId);
    this.sessions.set(sessionId, entry);
    return { status: "found", record: { ...entry.record } };
  }

  async delete(sessionId: string): Promise<boolean> {
    const existed = this.live(sessionId) !== undefined;
    this.sessions.delete(sessionId);
    return existed;
  }

  private live(sessionId: string): { record: McpSessionRecord; expiresAt: number } | undefined {
    if (!isPlausibleMcpSessionId(sessionId)) return undefined;
    const entry = this.sessions.get(sessionId);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.sessions.delete(sessionId);
      return undefined;
    }
    return entry;
  }
}

/** Refreshes a session for its owner: KEYS[1] the session hash; ARGV owner, ttl ms, now. */
const TOUCH_SCRIPT = new LuaScript(`
local fields = redis.call('HMGET', KEYS[1], 'owner', 'record')
if not fields[2] then return false end
if fields[1] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'lastSeenAt', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return fields[2]`);

/** Options of {@link RedisMcpSessionRegistry}. */
export interface RedisMcpSessionRegistryOptions {
  /** The shared connection. */
  connection: RedisConnection;
  /** Prefix of every key. @default "afw:" */
  keyPrefix?: string | undefined;
}

/**
 * {@link McpSessionRegistry} on Redis: one hash per session, `<p>mcp-session:{<id>}` (fields `record`, `owner`,
 * `lastSeenAt`) with a sliding TTL, so every gateway instance accepts a session any instance opened. Each operation is
 * bounded by max(1000 ms, the connection's `operationTimeoutMs`); attempts that time out are retried within it.
 */
export class RedisMcpSessionRegistry implements McpSessionRegistry {
  private readonly connection: RedisConnection;
  private readonly prefix: string;
  private readonly runOptions: RedisRunOptions;

  constructor(options: RedisMcpSessionRegistryOptions) {
    this.connection = options.connection;
    this.runOptions = { timeoutMs: Math.max(1000, options.connection.operationTimeoutMs) };
    this.prefix = options.keyPrefix ?? "afw:";
  }

  /** The Redis key of a session (URI-encoded id in a hash tag). */
  keyOf(sessionId: string): string {
    return `${this.prefix}mcp-session:{${encodeURIComponent(sessionId)}}`;
  }

  async create(record: McpSessionRecord, options: { idleTtlMs: number }): Promise<boolean> {
    const valid = checkMcpSessionRecord(record);
    const ttl = positiveMs(options.idleTtlMs, "idleTtlMs");
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
    const ttl = positiveMs(options.idleTtlMs, "idleTtlMs");
    if (!isPlausibleMcpSessionId(sessionId)) return { status: "absent" };
    const key = this.keyOf(sessionId);
    const now = Date.now();
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
