import type { ToolDescriptor } from "@afw/contracts";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { DownstreamServerConfig } from "./config.js";
import { isToolAllowed } from "./tool-filter.js";
import { namespaceToolName } from "./namespacing.js";

/**
 * A downstream tool as the manager lists it: a contracts {@link ToolDescriptor} (`server`, the
 * tool's own `name`, description after overrides, schemas, annotations, tags) plus the
 * namespaced name agents call it by and whether it can be called right now.
 */
export interface DownstreamTool extends ToolDescriptor {
  /** The name to expose to MCP clients and to pass to `callTool`: `server__tool`, or the tool's own name with `namespace: false`. */
  namespacedName: string;
  /**
   * False while the server is backing off after a crash or hang, has given up (`crashed`), or the manager is stopped.
   */
  available: boolean;
}

/**
 * Applies a server's allow/deny lists, tool overrides and tags to the tools it listed.
 * @internal
 */
export function toDownstreamTools(config: DownstreamServerConfig, tools: readonly Tool[], available: boolean): DownstreamTool[] {
  const result: DownstreamTool[] = [];
  for (const tool of tools) {
    if (!isToolAllowed(tool.name, config)) continue;
    const override = Object.hasOwn(config.toolOverrides, tool.name) ? config.toolOverrides[tool.name] : undefined;
    const title = override?.title ?? tool.title ?? (typeof tool.annotations?.title === "string" ? tool.annotations.title : undefined);
    const descriptor: DownstreamTool = {
      server: config.name,
      name: tool.name,
      namespacedName: config.namespace ? namespaceToolName(config.name, tool.name) : tool.name,
      description: override?.description ?? tool.description ?? "",
      inputSchema: (tool.inputSchema ?? { type: "object" }) as Record<string, unknown>,
      tags: [...new Set([...config.tags, ...(override?.tags ?? [])])],
      available,
    };
    if (title !== undefined) descriptor.title = title;
    if (tool.outputSchema) descriptor.outputSchema = tool.outputSchema as Record<string, unknown>;
    if (tool.annotations) descriptor.annotations = { ...tool.annotations } as Record<string, unknown>;
    result.push(descriptor);
  }
  return result;
}

/**
 * The MCP `Tool` to expose for a downstream tool: its namespaced name, (overridden) description, title, schemas and
 * annotations. Use it for the gateway's `tools/list` in `all` and `routed` modes.
 * @example
 * ```ts
 * server.setRequestHandler(ListToolsRequestSchema, () => ({
 *   tools: manager.listTools({ availableOnly: true }).map(toMcpTool),
 * }));
 * ```
 */
export function toMcpTool(tool: DownstreamTool): Tool {
  const mcpTool: Tool = {
    name: tool.namespacedName,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool["inputSchema"],
  };
  if (tool.title !== undefined) mcpTool.title = tool.title;
  if (tool.outputSchema !== undefined) mcpTool.outputSchema = tool.outputSchema as Tool["outputSchema"];
  if (tool.annotations !== undefined) mcpTool.annotations = tool.annotations as Tool["annotations"];
  return mcpTool;
}
