/**
 * The separator between a server name and a tool name in a namespaced tool name
 * (`server__tool`). Server names may not contain it, so the first occurrence splits the two.
 */
export const NAMESPACE_SEPARATOR = "__";

/**
 * The namespaced name of a downstream tool: `server__tool`.
 *
 * @example
 * ```ts
 * namespaceToolName("github", "merge_pull_request") // "github__merge_pull_request"
 * ```
 */
export function namespaceToolName(server: string, tool: string): string {
  return `${server}${NAMESPACE_SEPARATOR}${tool}`;
}

/**
 * Splits a namespaced tool name at the first {@link NAMESPACE_SEPARATOR}. Returns `undefined` when
 * the name has no separator or either part is empty. The server part is not checked against any
 * configuration: use the manager's `getTool` for that.
 *
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
