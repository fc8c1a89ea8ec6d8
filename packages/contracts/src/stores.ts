import { z } from "zod";
import type { BackendHealth } from "./backend.js";
import { UniversalQueryResultSchema } from "./query.js";
import { IntentSchema } from "./intent.js";

/** Cache scopes: `shared` (organisation-wide answers) or `session` (depends on a conversation). */
export const CacheScopeSchema = z.enum(["shared", "session"]);

/** `shared` or `session`; see {@link CacheScopeSchema}. */
export type CacheScope = z.infer<typeof CacheScopeSchema>;

/** What identifies a cached answer. */
export interface CacheKeyInput {
  /** `shared`, or `session` (then `sessionId` is required). */
  scope: CacheScope;
  /** Gateway-wide flow id the answer came from. */
  flowId: string;
  /** The question as asked; the cache normalises it before hashing. */
  question: string;
  /** Session the answer belongs to (scope `session`). */
  sessionId?: string | undefined;
  /** Tenant the answer belongs to; answers are never shared across tenants. */
  tenant?: string | undefined;
  /**
   * What else changes the answer, e.g. `temperature=0.2;max_tokens=100`: hashed with the
   * question, so answers to other parameters never match. Keys with a variant get no semantic hits.
   */
  variant?: string | undefined;
}

/** Zod schema of {@link CacheEntry}: what the cache stores and validates on read. */
export const CacheEntrySchema = z.object({
  version: z.literal(1),
  result: UniversalQueryResultSchema,
  question: z.string(),
  flowId: z.string(),
  scope: CacheScopeSchema,
  sessionId: z.string().optional(),
  tenant: z.string().optional(),
  createdAt: z.number().int().nonnegative().describe("Epoch milliseconds."),
  ttlSeconds: z.number().int().positive(),
});

/** A cached answer with its metadata. */
export type CacheEntry = z.infer<typeof CacheEntrySchema>;

/** Result of a cache lookup. */
export type CacheLookup =
  | { hit: false; reason: "absent" | "corrupt" | "unavailable" | "expired" }
  | { hit: true; kind: "exact"; entry: CacheEntry }
  | { hit: true; kind: "semantic"; entry: CacheEntry; similarity: number };

/** Which entries to remove. Exactly one selector field should be set. */
export interface CacheInvalidation {
  flowId?: string;
  sessionId?: string;
  scope?: CacheScope;
  tenant?: string;
  all?: boolean;
}

/** Zod schema of {@link CacheStats}. */
export const CacheStatsSchema = z.object({
  hits: z.number().int().nonnegative(),
  semanticHits: z.number().int().nonnegative(),
  misses: z.number().int().nonnegative(),
  writes: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  hitRate: z.number().min(0).max(1),
  semanticGuardRejections: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("Lookups where a near-duplicate was refused because a number, a name or a negation differed."),
  byFlow: z.record(
    z.string(),
    z.object({ hits: z.number().int().nonnegative(), misses: z.number().int().nonnegative(), writes: z.number().int().nonnegative() }),
  ),
});

/** Counters of a cache. */
export type CacheStats = z.infer<typeof CacheStatsSchema>;

/**
 * The response cache. Implementations never throw on store failure: a failed read is a miss
 * (`reason: "unavailable"`), a failed write returns `false`.
 */
export interface ResponseCache {
  /** Looks up an answer. `embedding` enables semantic hits when the cache is configured for them. */
  get(key: CacheKeyInput, options?: { embedding?: Float32Array }): Promise<CacheLookup>;
  /** Stores an answer; resolves `true` once the store acknowledged it. */
  set(key: CacheKeyInput, result: CacheEntry["result"], options: { ttlSeconds: number; embedding?: Float32Array }): Promise<boolean>;
  /** Removes matching entries; resolves to how many were removed. */
  invalidate(selector: CacheInvalidation): Promise<number>;
  /** Current counters. */
  stats(): Promise<CacheStats>;
}

/** Zod schema of {@link SessionTurn}. */
export const SessionTurnSchema = z.object({
  question: z.string(),
  answer: z.string(),
  flowId: z.string().optional(),
  backendId: z.string().optional(),
  intent: IntentSchema.optional(),
  traceId: z.string().optional(),
  remembered: z
    .boolean()
    .optional()
    .describe("True when the answering flow's platform memory holds this turn under the session id (the platform answered it with that id)."),
  tags: z.array(z.string()).optional().describe("Tags the query carried (see `SessionTagsSchema`)."),
  askedAt: z.number().int().nonnegative().describe("Epoch milliseconds."),
  answeredAt: z.number().int().nonnegative().describe("Epoch milliseconds."),
});

/** One question/answer turn of a session. */
export type SessionTurn = z.infer<typeof SessionTurnSchema>;

/** Zod schema of {@link SessionSummary}. */
export const SessionSummarySchema = z.object({
  sessionId: z.string(),
  turns: z.number().int().nonnegative(),
  createdAt: z.number().int().nonnegative(),
  updatedAt: z.number().int().nonnegative(),
  tenant: z.string().optional(),
  tags: z.array(z.string()).optional().describe("Every tag any of its turns carried, sorted."),
});

/** A session without its turns. */
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

/** A session with its turns (oldest first). */
export interface SessionRecord extends SessionSummary {
  turnsList: SessionTurn[];
}

/** What {@link SessionStore.append} did with a turn. */
export interface SessionAppendResult {
  /** True when the turn was written, or is held in the store's write-behind buffer for replay. */
  saved: boolean;
  /** True when the turn waits in the write-behind buffer (the store is unavailable) and is replayed in order when it is back. */
  buffered: boolean;
  /** Turns the session keeps after the write, when the turn was written now. */
  totalTurns?: number | undefined;
}

/** What {@link SessionStore.search} looks for; every given criterion must hold. */
export interface HistoryQuery {
  /** Text: turns whose question or answer share a (stemmed) word with it and, with an embedder, whose question is close in meaning (see `mode`). */
  text?: string | undefined;
  /**
   * How `text` matches: `keyword` (shared stemmed words, most first, then newest), `meaning` (question embeddings by
   * cosine similarity) or `hybrid` (both, fused). @default "hybrid"
   */
  mode?: HistorySearchMode | undefined;
  /** Only turns that carried this tag. */
  tag?: string | undefined;
  /** Only turns of this session. */
  sessionId?: string | undefined;
  /** Only turns answered by this backend id. */
  backendId?: string | undefined;
  /** Only turns answered by this gateway-wide flow id. */
  flowId?: string | undefined;
  /** Only turns asked at or after this epoch-ms time. */
  from?: number | undefined;
  /** Only turns asked at or before this epoch-ms time. */
  to?: number | undefined;
  /** Hits per page. @default 10 */
  limit?: number | undefined;
  /** `nextCursor` of the previous page. */
  cursor?: string | undefined;
}

/** How {@link HistoryQuery.text} matches past turns. */
export type HistorySearchMode = "keyword" | "meaning" | "hybrid";

/** One past turn found by {@link SessionStore.search}. */
export interface HistoryHit {
  sessionId: string;
  turn: SessionTurn;
  /** Query words (stemmed) the turn contains; 0 without `text`. */
  matchedWords: number;
  /** Cosine similarity of the query and the turn's question (searches by meaning only). */
  similarity?: number | undefined;
}

/** A page of {@link HistoryHit}s. */
export interface HistoryPage {
  hits: HistoryHit[];
  /** How `text` was matched (absent without `text`). */
  mode?: HistorySearchMode | undefined;
  /** Pass as `cursor` for the next page; absent on the last one. */
  nextCursor?: string | undefined;
}

/**
 * Conversation memory. `append` is atomic: concurrent appends from several gateway instances
 * keep every turn. Implementations keep the last N turns and slide the TTL on every append.
 */
export interface SessionStore {
  /**
   * Appends a turn; resolves to what became of it (written, held for replay, or not kept).
   * Never resolves `saved: true` for a turn the store may lose while the process lives.
   */
  append(sessionId: string, turn: SessionTurn, options?: { tenant?: string }): Promise<SessionAppendResult>;
  /** The last `limit` turns, oldest first. */
  recent(sessionId: string, limit: number, options?: { tenant?: string }): Promise<SessionTurn[]>;
  /** The whole session, or undefined. */
  get(sessionId: string, options?: { tenant?: string }): Promise<SessionRecord | undefined>;
  /** Sessions whose id matches a glob `pattern` (`*` and `?`) and, with `tag`, that carry that tag; newest first. */
  list(pattern?: string, options?: { tenant?: string; limit?: number; tag?: string }): Promise<SessionSummary[]>;
  /** Deletes a session; resolves true if it existed. */
  delete(sessionId: string, options?: { tenant?: string }): Promise<boolean>;
  /**
   * Searches the tenant's past turns (of every session) by keyword, tag, session, backend, flow and time; paged.
   * Optional: stores without a history index leave it out.
   * @throws AfwError `INVALID_INPUT` for a malformed cursor.
   */
  search?(query: HistoryQuery, options?: { tenant?: string }): Promise<HistoryPage>;
}

/** Zod schema of {@link PerformanceSample}. */
export const PerformanceSampleSchema = z.object({
  backendId: z.string(),
  flowId: z.string().optional().describe("Gateway-wide flow id; absent for backend-level samples."),
  latencyMs: z.number().nonnegative(),
  success: z.boolean(),
  timestamp: z.number().int().nonnegative().describe("Epoch milliseconds."),
  errorCode: z.string().optional(),
  intent: IntentSchema.optional(),
});

/** One measured call. */
export type PerformanceSample = z.infer<typeof PerformanceSampleSchema>;

/** A (backend, flow?) pair whose performance is tracked. */
export interface PerformanceTarget {
  backendId: string;
  flowId?: string | undefined;
}

/**
 * Rolling performance windows: the last 100 samples per backend and per
 * (backend, flow). `record` adds the sample to both the flow's and the backend's window.
 */
export interface PerformanceStore {
  /** Adds one sample. */
  record(sample: PerformanceSample): Promise<void>;
  /** The window of a backend (no flowId) or of one flow, oldest first. */
  window(target: PerformanceTarget): Promise<PerformanceSample[]>;
  /** Every tracked target. */
  targets(): Promise<PerformanceTarget[]>;
}

/** Shared health snapshots, so every gateway instance routes on one view. */
export interface HealthStore {
  /** The latest snapshot of a backend, if fresh. */
  get(backendId: string): Promise<BackendHealth | undefined>;
  /** Stores a snapshot for `ttlMs`. */
  set(health: BackendHealth, ttlMs: number): Promise<void>;
  /** Every fresh snapshot. */
  all(): Promise<BackendHealth[]>;
}

/** Zod schema of {@link CircuitState}. */
export const CircuitStateSchema = z.object({
  key: z.string().describe("`<backendId>` or `<backendId>:<flowId>`."),
  state: z.enum(["closed", "open", "half-open"]),
  failures: z.number().int().nonnegative().describe("Consecutive failures."),
  openedAt: z.number().int().nonnegative().optional(),
  nextProbeAt: z.number().int().nonnegative().optional(),
  updatedAt: z.number().int().nonnegative(),
});

/** Shared circuit-breaker state of one backend or flow. */
export type CircuitState = z.infer<typeof CircuitStateSchema>;

/** Shared circuit-breaker state, so a backend one instance found dead is skipped by all. */
export interface CircuitStateStore {
  /** The state of `key`, or undefined (closed). */
  get(key: string): Promise<CircuitState | undefined>;
  /** Stores the state of `state.key`. */
  set(state: CircuitState): Promise<void>;
  /** Every stored state. */
  all(): Promise<CircuitState[]>;
}


/** Zod schema of {@link McpSessionRecord}: what the MCP session registry stores and validates on read. */
export const McpSessionRecordSchema = z.object({
  sessionId: z.string().min(1).max(256).describe("The `Mcp-Session-Id` handed to the client."),
  owner: z.string().max(256).describe("Name of the bearer token that opened the session; empty when auth is off."),
  tenant: z.string().optional().describe("Tenant of that token, if any."),
  protocolVersion: z.string().min(1).max(64).describe("MCP protocol version negotiated at `initialize`."),
  clientInfo: z
    .object({ name: z.string().max(256), version: z.string().max(256) })
    .optional()
    .describe("The client's `clientInfo` from `initialize`."),
  createdAt: z.number().int().nonnegative().describe("Epoch milliseconds."),
  lastSeenAt: z.number().int().nonnegative().describe("Epoch milliseconds of the latest request of the session."),
});

/** One MCP Streamable HTTP session (`Mcp-Session-Id`) as shared by every gateway instance. */
export type McpSessionRecord = z.infer<typeof McpSessionRecordSchema>;

/**
 * Result of an {@link McpSessionRegistry} lookup: `found`, `absent` (unknown, expired or deleted), `forbidden` (it
 * exists but belongs to another owner; nothing was refreshed) or `unavailable` (the store could not be reached within
 * its bound: the caller decides how to degrade).
 */
export type McpSessionLookup =
  | { status: "found"; record: McpSessionRecord }
  | { status: "absent" }
  | { status: "forbidden" }
  | { status: "unavailable"; message: string };

/**
 * Registry of MCP Streamable HTTP sessions, so that any gateway instance behind a load balancer can accept a session
 * another instance opened.
 */
export interface McpSessionRegistry {
  /** Stores a new session for `idleTtlMs`; resolves `true` once the store acknowledged it. */
  create(record: McpSessionRecord, options: { idleTtlMs: number }): Promise<boolean>;
  /** The session without refreshing it. */
  get(sessionId: string): Promise<McpSessionLookup>;
  /**
   * Looks a session up for `owner` and, when it matches, sets `lastSeenAt` to now and restarts
   * its idle TTL (`idleTtlMs`). Another owner's session resolves `forbidden` untouched.
   */
  touch(sessionId: string, options: { owner: string; idleTtlMs: number }): Promise<McpSessionLookup>;
  /** Removes a session; resolves `true` if it existed, `false` if not, `undefined` when the store was unavailable. */
  delete(sessionId: string): Promise<boolean | undefined>;
}
