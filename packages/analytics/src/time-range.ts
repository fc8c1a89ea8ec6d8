import { z } from "zod";
import { AfwError } from "@afw/contracts";

/** Zod schema of {@link TimeRangePreset}. */
export const TimeRangePresetSchema = z.enum(["1h", "24h", "7d"]);

/** A named time range ending now: the last hour, day or week. */
export type TimeRangePreset = z.infer<typeof TimeRangePresetSchema>;

/** Length in milliseconds of each named time range. */
const PRESET_MS: Readonly<Record<string, number>> = { "1h": 3_600_000, "24h": 86_400_000, "7d": 604_800_000 };

/** A point in time: epoch milliseconds, an ISO 8601 string or a `Date`. */
export type TimeInput = number | string | Date;

/**
 * A time range: a preset (`1h`, `24h`, `7d`, ending now) or explicit bounds. A missing `to` means
 * now; a missing `from` means the beginning of time.
 */
export type TimeRange = TimeRangePreset | { from?: TimeInput | undefined; to?: TimeInput | undefined };

/** A resolved time range in epoch milliseconds; both bounds inclusive. */
export interface ResolvedTimeRange {
  /** First included millisecond. */
  from: number;
  /** Last included millisecond. */
  to: number;
}

/**
 * Converts a {@link TimeInput} to epoch milliseconds.
 *
 * @throws AfwError `INVALID_INPUT` when the value is not a valid time.
 */
export function toEpochMs(value: TimeInput, what = "time"): number {
  const ms = typeof value === "number" ? value : value instanceof Date ? value.getTime() : Date.parse(value);
  if (!Number.isFinite(ms)) throw new AfwError("INVALID_INPUT", `invalid ${what}: ${String(value)}`);
  return ms;
}

/**
 * Resolves a {@link TimeRange} against `now` into inclusive epoch-millisecond bounds.
 *
 * @example
 * ```ts
 * resolveTimeRange("1h", 10_000_000) // { from: 6_400_000, to: 10_000_000 }
 * resolveTimeRange({ from: "2025-01-01T00:00:00Z" }, now) // { from: 1735689600000, to: now }
 * ```
 * @throws AfwError `INVALID_INPUT` for an unknown preset, a malformed bound or `from` after `to`.
 */
export function resolveTimeRange(range: TimeRange, now: number = Date.now()): ResolvedTimeRange {
  if (typeof range === "string") {
    const length = PRESET_MS[range];
    if (length === undefined) throw new AfwError("INVALID_INPUT", `unknown time range '${range}' (use 1h, 24h or 7d)`);
    return { from: now - length, to: now };
  }
  const from = range.from === undefined ? 0 : toEpochMs(range.from, "from");
  const to = range.to === undefined ? now : toEpochMs(range.to, "to");
  if (from > to) throw new AfwError("INVALID_INPUT", "the time range's 'from' is after its 'to'");
  return { from, to };
}

/** The time fields of an analytics tool's input. */
export interface TimeRangeInput {
  range?: TimeRangePreset | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** The time range of an analytics tool input: explicit `from`/`to` win over the preset `range` (default `24h`). */
export function timeRangeOfInput(input: TimeRangeInput): TimeRange {
  if (input.from !== undefined || input.to !== undefined) return { from: input.from, to: input.to };
  return input.range ?? "24h";
}
