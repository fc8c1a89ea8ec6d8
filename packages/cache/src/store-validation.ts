import { AfwError } from "@afw/contracts";
import type { z } from "zod";

/** Parses a stored JSON value with `schema`; undefined when it is corrupt or foreign. */
export function parseStored<S extends z.ZodType>(schema: S, raw: string | null | undefined): z.infer<S> | undefined {
  if (raw === null || raw === undefined) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A positive integer option, or its default. @throws AfwError `CONFIG_INVALID` otherwise. */
export function positiveIntegerOption(value: number | undefined, fallback: number, name: string): number {
  const resolved = value ?? fallback;
  if (!Number.isInteger(resolved) || resolved < 1) throw new AfwError("CONFIG_INVALID", `${name} must be a positive integer`);
  return resolved;
}

/**
 * A duration in whole milliseconds.
 * @throws AfwError `INVALID_INPUT` naming `name` when `value` is not a positive number.
 */
export function positiveMs(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new AfwError("INVALID_INPUT", `${name} must be a positive number of milliseconds`);
  return Math.ceil(value);
}
