import { z } from "zod";

/** Longest glob pattern accepted from a client. */
export const MAX_GLOB_LENGTH = 256;

/** Zod schema of a client-supplied glob (`*` any run, `?` one character), bounded in length. */
export const GlobPatternSchema = z
  .string()
  .min(1, "pattern must not be empty")
  .max(MAX_GLOB_LENGTH, `pattern must be at most ${MAX_GLOB_LENGTH} characters`);

/**
 * Whether `text` matches the glob `pattern`: `*` matches any run of characters (also none), `?` exactly one; everything
 * else matches itself, case-sensitively.
 * @example
 * ```ts
 * matchesGlob("read_file", "read_*") // true
 * matchesGlob("write_file", "read_?ile") // false
 * ```
 */
export function matchesGlob(text: string, pattern: string, step?: () => void): boolean {
  const t = Array.from(text);
  const p = Array.from(pattern);
  let ti = 0;
  let pi = 0;
  let star = -1;
  let resume = 0;
  while (ti < t.length) {
    step?.();
    if (pi < p.length && (p[pi] === "?" || (p[pi] !== "*" && p[pi] === t[ti]))) {
      ti++;
      pi++;
    } else if (pi < p.length && p[pi] === "*") {
      star = pi++;
      resume = ti;
    } else if (star >= 0) {
      pi = star + 1;
      ti = ++resume;
    } else return false;
  }
  while (pi < p.length && p[pi] === "*") pi++;
  return pi === p.length;
}

