import { AfwError, type Redactor, type TraceSink } from "@afw/contracts";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import type { DownstreamTools } from "./downstream-tools.js";
import type { GatewayTool, ToolContext } from "./gateway-tool.js";
import { forwardedJsonRpcError, JsonRpcError } from "./tool-call-params.js";
import { newTraceContext } from "./trace-context.js";

/** JSON-RPC code of "resource not found" (MCP). */
const RESOURCE_NOT_FOUND = -32002;
/** Most sessions `resources/list` lists (newest first); the rest are read through the template. */
const LISTED_SESSIONS = 50;

const SESSIONS_PREFIX = "afw://sessions/";
const PLAYBOOKS_PREFIX = "afw://playbooks/";

/** The gateway's own resource templates. */
const OWN_TEMPLATES: ResourceTemplate[] = [
  {
    uriTemplate: `${SESSIONS_PREFIX}{session_id}`,
    name: "session",
    title: "Conversation session",
    description: "A conversation session of universal_query with its turns (question, answer, flow, backend, intent), oldest first, as get_session returns it.",
    mimeType: "application/json",
  },
  {
    uriTemplate: `${PLAYBOOKS_PREFIX}{workflow_id}`,
    name: "playbook",
    title: "Workflow playbook",
    description: "A workflow of the catalog (newest version) with its steps, as get_playbook_details returns it; find ids with search_workflow_catalog.",
    mimeType: "application/json",
  },
];

/** What {@link registerResourcesAndPrompts} needs of the gateway. */
export interface ResourceDependencies {
  /** The gateway's tools by name (`list_sessions`, `get_session`, `get_playbook_details` serve the own resources). */
  tools: ReadonlyMap<string, GatewayTool>;
  downstream: DownstreamTools | undefined;
  redactor: Redactor;
  sink: TraceSink;
}

type Extra = Parameters<Parameters<McpServer["server"]["setRequestHandler"]>[1]>[1];

/** A downstream failure as the JSON-RPC error the client gets (the server's own code when it answered one). */
function asJsonRpcError(error: unknown, redactor: Redactor): JsonRpcError {
  if (error instanceof JsonRpcError) return error;
  const forwarded = forwardedJsonRpcError(error);
  if (forwarded) return new JsonRpcError(forwarded.code, redactor.redact(forwarded.message), redactor.redactValue(forwarded.data));
  if (AfwError.isInstance(error)) {
    const code = error.code === "TOOL_NOT_FOUND" || error.code === "NOT_FOUND" ? RESOURCE_NOT_FOUND : -32603;
    return new JsonRpcError(code, redactor.redact(error.message), { code: error.code });
  }
  return new JsonRpcError(-32603, "internal error");
}

/** Serves `resources/*` and `prompts/*` on one MCP server of the gateway: the gateway's own resources (conversation sessions of the client's tenant, workflow
 * playbooks) and the resources, resource templates and prompts of the downstream servers under namespaced URIs and names. */
export function registerResourcesAndPrompts(mcp: McpServer, deps: ResourceDependencies): () => void {
  const { tools, downstream, redactor, sink } = deps;
  const contextOf = (extra: Extra): ToolContext => {
    const tenant = (extra.authInfo?.extra as { tenant?: unknown } | undefined)?.tenant;
    return {
      trace: newTraceContext(sink, { requestId: String(extra.requestId) }),
      signal: extra.signal,
      tenant: typeof tenant === "string" ? tenant : undefined,
      progress: undefined,
    };
  };
  /** Runs one of the gateway's read-only tools and answers its JSON as the resource's text. */
  const ownResource = async (uri: string, toolName: string, args: Record<string, unknown>, extra: Extra): Promise<ReadResourceResult> => {
    const tool = tools.get(toolName);
    if (!tool) throw new JsonRpcError(RESOURCE_NOT_FOUND, `Resource not found: ${uri.slice(0, 200)}`);
    const parsed = tool.schema.safeParse(args);
    if (!parsed.success) throw new JsonRpcError(RESOURCE_NOT_FOUND, `Resource not found: ${uri.slice(0, 200)}`);
    try {
      const value = await tool.run(parsed.data as never, contextOf(extra));
      return { contents: [{ uri, mimeType: "application/json", text: redactor.redact(JSON.stringify(value), { generic: false }) }] };
    } catch (error) {
      throw asJsonRpcError(error, redactor);
    }
  };
  mcp.server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => {
    const resources: Resource[] = [];
    const listSessions = tools.get("list_sessions");
    if (listSessions) {
      const value = (await listSessions.run({ pattern: "*", limit: LISTED_SESSIONS } as never, contextOf(extra)).catch(() => undefined)) as
        | { sessions?: { session_id: string; turns: number; updated_at: string }[] }
        | undefined;
      for (const session of value?.sessions ?? []) {
        resources.push({
          uri: `${SESSIONS_PREFIX}${encodeURIComponent(session.session_id)}`,
          name: `session ${session.session_id}`,
          description: `Conversation session with ${session.turns} turn(s), last updated ${session.updated_at}.`,
          mimeType: "application/json",
        });
      }
    }
    if (downstream) resources.push(...downstream.manager.listResources());
    return { resources };
  });
  mcp.server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [...OWN_TEMPLATES, ...(downstream ? downstream.manager.listResourceTemplates() : [])],
  }));
  mcp.server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const uri = request.params.uri;
    const decoded = (prefix: string) => {
      try {
        return decodeURIComponent(uri.slice(prefix.length));
      } catch {
        return "";
      }
    };
    if (uri.startsWith(SESSIONS_PREFIX)) return ownResource(uri, "get_session", { session_id: decoded(SESSIONS_PREFIX) }, extra);
    if (uri.startsWith(PLAYBOOKS_PREFIX)) return ownResource(uri, "get_playbook_details", { workflow_id: decoded(PLAYBOOKS_PREFIX) }, extra);
    // `downstream://<server>/<uri>`, or a URI of a server with `namespace: false` (the manager knows which).
    if (downstream) {
      try {
        return await downstream.manager.readResource(uri, { signal: extra.signal });
      } catch (error) {
        throw asJsonRpcError(error, redactor);
      }
    }
    throw new JsonRpcError(RESOURCE_NOT_FOUND, `Resource not found: ${uri.slice(0, 200)}`);
  });
  if (!downstream) return () => undefined;
  mcp.server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: downstream.manager.listPrompts() }));
  mcp.server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    try {
      return await downstream.manager.getPrompt(request.params.name, request.params.arguments ?? {}, { signal: extra.signal });
    } catch (error) {
      const failure = asJsonRpcError(error, redactor);
      // An unknown prompt is invalid params (as the SDK's own prompts answer it).
      throw failure.code === RESOURCE_NOT_FOUND ? new JsonRpcError(-32602, failure.message) : failure;
    }
  });
  return downstream.manager.onCatalogChanged((event) => {
    if (!mcp.isConnected()) return;
    if (event.resources) mcp.sendResourceListChanged();
    if (event.prompts) mcp.sendPromptListChanged();
  });
}
