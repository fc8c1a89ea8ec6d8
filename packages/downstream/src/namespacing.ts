import { createHash } from "node:crypto";

/**
 * The separator between a server name and a tool name in a namespaced tool name
 * (`server__tool`). Server names may not contain it, so the first occurrence splits the two.
 */
export const NAMESPACE_SEPARATOR = "__";

/** Longest tool name some LLM APIs accept; longer namespaced names are shortened. */
const MAX_TOOL_NAME_LENGTH = 64;
/** Hex digits of the hash suffix of a shortened name (48 bits). */
const HASH_LENGTH = 12;
const SHORTENED_PATTERN = new RegExp(`_[0-9a-f]{${HASH_LENGTH}}$`);

/**
 * The namespaced name of a downstream tool: `server__tool`.
 * @example
 * ```ts
 * namespaceToolName("github", "merge_pull_request") // "github__merge_pull_request"
 * namespaceToolName("github", "x".repeat(80)).length // 64
 * ```
 */
export function namespaceToolName(server: string, tool: string): string {
  const full = `${server}${NAMESPACE_SEPARATOR}${tool}`;
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full;
  const hash = createHash("sha256").update(`${server}\u0000${tool}`).digest("hex").slice(0, HASH_LENGTH);
  return `${full.slice(0, MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}

/**
 * True when `name` may be a name shortened by {@link namespaceToolName} (64 characters ending in `_` and 12 hex digits).
 * @internal
 */
export function mayBeShortenedName(name: string): boolean {
  return name.length === MAX_TOOL_NAME_LENGTH && SHORTENED_PATTERN.test(name);
}

/**
 * Splits a namespaced tool name at the first `__`.
 * @example
 * ```ts
 * parseNamespacedToolName("files__read__text") // { server: "files", tool: "read__text" }
 * parseNamespacedToolName("read_file")         // undefined
 * ```
 */
export function parseNamespacedToolName(namespacedName: string): { server: string; tool: string } | undefined {
  const index = namespacedName.indexOf(NAMESPACE_SEPARATOR);
  if (index <= 0) return undefined;
  const tool = namespacedName.slice(index + NAMESPACE_SEPARATOR.length);
  if (tool.length === 0) return undefined;
  return { server: namespacedName.slice(0, index), tool };
}
