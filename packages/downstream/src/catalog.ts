import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { namespaceToolName } from "./namespacing.js";

/** The scheme of namespaced downstream resource URIs: `downstream://<server>/<the server's own URI>`. */
const RESOURCE_PREFIX = "downstream://";

/**
 * The URI under which the gateway lists a downstream server's resource (or resource template):
 * `downstream://<server>/<uri>`, the server's own URI kept whole after the server name, so templates stay templates and
 * {@link parseNamespacedResourceUri} gives the original back.
 * @example
 * ```ts
 * namespaceResourceUri("files", "file:///tmp/a.txt") // "downstream://files/file:///tmp/a.txt"
 * ```
 */
export function namespaceResourceUri(server: string, uri: string): string {
  return `${RESOURCE_PREFIX}${server}/${uri}`;
}

/**
 * Splits a URI made by {@link namespaceResourceUri}; `undefined` for any other URI.
 * @example
 * ```ts
 * parseNamespacedResourceUri("downstream://files/file:///tmp/a.txt") // { server: "files", uri: "file:///tmp/a.txt" }
 * ```
 */
export function parseNamespacedResourceUri(uri: string): { server: string; uri: string } | undefined {
  if (!uri.startsWith(RESOURCE_PREFIX)) return undefined;
  const rest = uri.slice(RESOURCE_PREFIX.length);
  const slash = rest.indexOf("/");
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  return { server: rest.slice(0, slash), uri: rest.slice(slash + 1) };
}

/** What a server offers besides tools, as it listed it. @internal */
export interface ServerCatalog {
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
}

/** An empty catalog. @internal */
export const EMPTY_CATALOG: ServerCatalog = { resources: [], resourceTemplates: [], prompts: [] };

/** Most pages one listing follows. */
const MAX_PAGES = 1_000;

/** Every item of a paginated list (`tools/list`, `resources/list`, …), given one page per cursor. @internal */
export async function allPages<T>(list: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await list(cursor);
    items.push(...result.items);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return items;
}

/** Lists every page of what the server's capabilities announce (a failing list is empty). @internal */
export async function listCatalog(client: Client, timeoutMs: number): Promise<ServerCatalog> {
  const capabilities = client.getServerCapabilities();
  const options = { timeout: timeoutMs };
  const params = (cursor: string | undefined) => (cursor === undefined ? {} : { cursor });
  // A server whose list fails offers none of these.
  const listed = <T>(announced: unknown, page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>): Promise<T[]> =>
    announced ? allPages(page).catch(() => []) : Promise.resolve([]);
  const [resources, resourceTemplates, prompts] = await Promise.all([
    listed(capabilities?.resources, async (cursor) => {
      const result = await client.listResources(params(cursor), options);
      return { items: result.resources, nextCursor: result.nextCursor };
    }),
    listed(capabilities?.resources, async (cursor) => {
      const result = await client.listResourceTemplates(params(cursor), options);
      return { items: result.resourceTemplates, nextCursor: result.nextCursor };
    }),
    listed(capabilities?.prompts, async (cursor) => {
      const result = await client.listPrompts(params(cursor), options);
      return { items: result.prompts, nextCursor: result.nextCursor };
    }),
  ]);
  return { resources, resourceTemplates, prompts };
}

/** A server as its names are exposed: its name, and whether names and URIs get it as a namespace. @internal */
export interface Exposure {
  name: string;
  namespace: boolean;
}

const exposeUri = (server: Exposure, uri: string) => (server.namespace ? namespaceResourceUri(server.name, uri) : uri);

/** A server's resources, templates and prompts as the gateway lists them (namespaced unless `namespace: false`). @internal */
export function exposeCatalog(server: Exposure, catalog: ServerCatalog): ServerCatalog {
  return {
    resources: catalog.resources.map((resource) => ({ ...resource, uri: exposeUri(server, resource.uri) })),
    resourceTemplates: catalog.resourceTemplates.map((template) => ({ ...template, uriTemplate: exposeUri(server, template.uriTemplate) })),
    prompts: catalog.prompts.map((prompt) => ({ ...prompt, name: server.namespace ? namespaceToolName(server.name, prompt.name) : prompt.name })),
  };
}

/** Exposes the URIs inside a `resources/read` result. @internal */
export function exposeReadResult(server: Exposure, result: ReadResourceResult): ReadResourceResult {
  return { ...result, contents: result.contents.map((content) => ({ ...content, uri: exposeUri(server, content.uri) })) };
}

/** Exposes the URIs of embedded resources and resource links in a `prompts/get` result. @internal */
export function exposePromptResult(server: Exposure, result: GetPromptResult): GetPromptResult {
  return {
    ...result,
    messages: result.messages.map((message) => {
      const content = message.content;
      if (content.type === "resource") return { ...message, content: { ...content, resource: { ...content.resource, uri: exposeUri(server, content.resource.uri) } } };
      if (content.type === "resource_link") return { ...message, content: { ...content, uri: exposeUri(server, content.uri) } };
      return message;
    }),
  };
}
