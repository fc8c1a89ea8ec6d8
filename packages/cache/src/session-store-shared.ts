import { AfwError, SessionTurnSchema, parseOrThrow, type Embedder, type SessionTurn } from "@afw/contracts";
import { positiveIntegerOption } from "./store-validation.js";

/** Options shared by the Redis and memory session stores. */
export interface SessionStoreOptions {
  /** Turns kept per session (older ones are dropped on append). @default 50 */
  maxTurns?: number | undefined;
  /** Sliding lifetime of a session, renewed by every append. @default 604800000 (7 days) */
  ttlMs?: number | undefined;
  /** Turns `recent` returns when no limit is given. @default 5 */
  recentTurns?: number | undefined;
  /**
   * Embedder of the history index: with one, every turn's question is embedded in the background after its append is
   * acknowledged, and `search` finds turns by meaning (`mode` `meaning` or `hybrid`).
   */
  embedder?: Embedder | undefined;
}

/** Resolved session settings. */
export interface SessionSettings {
  maxTurns: number;
  ttlMs: number;
  recentTurns: number;
  /** Sessions `list` returns when no limit is given. */
  listLimit: number;
  /** Most recently updated sessions `list` looks at (the pattern is applied to these). */
  listScanLimit: number;
}

/**
 * Fills defaults and checks ranges.
 * @throws AfwError `CONFIG_INVALID` for a non-positive setting.
 */
export function sessionSettings(options: SessionStoreOptions = {}): SessionSettings {
  return {
    maxTurns: positiveIntegerOption(options.maxTurns, 50, "maxTurns"),
    ttlMs: positiveIntegerOption(options.ttlMs, 7 * 86_400_000, "ttlMs"),
    recentTurns: positiveIntegerOption(options.recentTurns, 5, "recentTurns"),
    listLimit: 100,
    listScanLimit: 1000,
  };
}

/**
 * Validates a session id and turn before they are stored.
 * @throws AfwError `INVALID_INPUT` for an empty session id or an invalid turn.
 */
export function checkTurn(sessionId: string, turn: SessionTurn): SessionTurn {
  checkSessionId(sessionId);
  return parseOrThrow(SessionTurnSchema, turn, "INVALID_INPUT", "session turn");
}

/**
 * @throws AfwError `INVALID_INPUT` for an empty session id.
 */
export function checkSessionId(sessionId: string): void {
  if (typeof sessionId !== "string" || sessionId.length === 0) throw new AfwError("INVALID_INPUT", "Session id must be a non-empty string");
}

/** A requested `limit`, or the default when absent; never negative. */
export function limitOf(limit: number | undefined, fallback: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.max(0, Math.floor(limit));
}
