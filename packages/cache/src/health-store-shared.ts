import { AfwError } from "@afw/contracts";

/**
 * A snapshot TTL in whole milliseconds.
 * @throws AfwError `INVALID_INPUT` when `ttlMs` is not a positive number.
 */
export function checkTtlMs(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new AfwError("INVALID_INPUT", "ttlMs must be a positive number of milliseconds");
  return Math.ceil(ttlMs);
}
