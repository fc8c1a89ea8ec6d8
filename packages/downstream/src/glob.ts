const cache = new Map<string, RegExp>();

function globToRegExp(pattern: string): RegExp {
  let regex = cache.get(pattern);
  if (regex) return regex;
  let source = "^";
  for (const char of pattern) {
    if (char === "*") source += ".*";
    else if (char === "?") source += ".";
    else source += char.replace(/[.+^${}()|[\]\\/-]/g, "\\$&");
  }
  regex = new RegExp(`${source}$`, "s");
  if (cache.size > 1000) cache.clear();
  cache.set(pattern, regex);
  return regex;
}

/**
 * Whether `name` matches the glob `pattern`: `*` matches any run of characters (also none), `?`
 * exactly one; everything else matches itself, case-sensitively.
 *
 * @example
 * ```ts
 * matchesGlob("read_file", "read_*") // true
 * matchesGlob("write_file", "read_*") // false
 * ```
 */
export function matchesGlob(name: string, pattern: string): boolean {
  return globToRegExp(pattern).test(name);
}

/**
 * Whether a tool passes a server's allow and deny lists: it must match one `allow` pattern (when
 * `allow` is given) and no `deny` pattern. Deny wins over allow.
 *
 * @example
 * ```ts
 * isToolAllowed("delete_file", { allow: ["*"], deny: ["delete_*"] }) // false
 * ```
 */
export function isToolAllowed(toolName: string, lists: { allow?: readonly string[] | undefined; deny?: readonly string[] | undefined }): boolean {
  if (lists.deny?.some((pattern) => matchesGlob(toolName, pattern))) return false;
  if (lists.allow === undefined) return true;
  return lists.allow.some((pattern) => matchesGlob(toolName, pattern));
}
