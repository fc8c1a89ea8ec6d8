import type { McpSessionLookup, McpSessionRecord, McpSessionRegistry } from "@afw/contracts";
import { checkIdleTtlMs, checkMcpSessionRecord, isPlausibleMcpSessionId } from "./mcp-session-registry-shared.js";
import { positiveIntegerOption } from "./store-validation.js";

/** Options of {@link createMemoryMcpSessionRegistry}. */
export interface MemoryMcpSessionRegistryOptions {
  /** Clock in epoch ms (inject one to test expiry). @default Date.now */
  now?: (() => number) | undefined;
  /** Most sessions kept; the least recently seen are dropped beyond it. @default 100000 */
  maxSessions?: number | undefined;
}

/**
 * In-process {@link McpSessionRegistry}: records expire `idleTtlMs` after their latest touch.
 * Enough for one gateway process; several instances need the Redis registry.
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

  /** Sessions currently held (expired ones included until they are next looked at). */
  get size(): number {
    return this.sessions.size;
  }

  async create(record: McpSessionRecord, options: { idleTtlMs: number }): Promise<boolean> {
    const valid = checkMcpSessionRecord(record);
    const ttl = checkIdleTtlMs(options.idleTtlMs);
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
    const ttl = checkIdleTtlMs(options.idleTtlMs);
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

/**
 * Creates an in-memory {@link McpSessionRegistry}.
 * @example
 * ```ts
 * const registry = createMemoryMcpSessionRegistry();
 * await registry.create({ sessionId, owner: "", protocolVersion: "2025-06-18", createdAt: Date.now(), lastSeenAt: Date.now() }, { idleTtlMs: 1_800_000 });
 * ```
 */
export function createMemoryMcpSessionRegistry(options: MemoryMcpSessionRegistryOptions = {}): MemoryMcpSessionRegistry {
  return new MemoryMcpSessionRegistry(options);
}
