import { matchesGlob } from "@afw/contracts";

/**
 * Whether a tool passes a server's allow and deny lists: it must match one `allow` pattern (when `allow` is given) and
 * no `deny` pattern. Deny wins over allow.
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
