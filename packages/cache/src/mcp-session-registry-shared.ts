import { AfwError, McpSessionRecordSchema, type McpSessionRecord } from "@afw/contracts";
import { checkInput } from "./store-validation.js";

/** Longest accepted session id (ids come from clients' `Mcp-Session-Id` headers). */
export const MAX_MCP_SESSION_ID_LENGTH = 256;

/** True when `sessionId` could be a session id at all (non-empty, bounded, visible ASCII as the MCP spec requires). */
export function isPlausibleMcpSessionId(sessionId: string): boolean {
  return sessionId.length > 0 && sessionId.length <= MAX_MCP_SESSION_ID_LENGTH && /^[\x21-\x7e]+$/.test(sessionId);
}

/**
 * A registry TTL in whole milliseconds.
 * @throws AfwError `INVALID_INPUT` when `idleTtlMs` is not a positive number.
 */
export function checkIdleTtlMs(idleTtlMs: number): number {
  if (!Number.isFinite(idleTtlMs) || idleTtlMs <= 0) throw new AfwError("INVALID_INPUT", "idleTtlMs must be a positive number of milliseconds");
  return Math.ceil(idleTtlMs);
}

/**
 * Validates a record for {@link McpSessionRegistry.create}.
 * @throws AfwError `INVALID_INPUT` when it does not fit the schema or its id is not a plausible session id.
 */
export function checkMcpSessionRecord(record: McpSessionRecord): McpSessionRecord {
  const valid = checkInput(McpSessionRecordSchema, record, "MCP session record");
  if (!isPlausibleMcpSessionId(valid.sessionId)) throw new AfwError("INVALID_INPUT", "Invalid MCP session record: sessionId must be visible ASCII");
  return valid;
}
