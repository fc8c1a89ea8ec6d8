import { AfwError, toAfwError, type Redactor, type TraceSink } from "@afw/contracts";
import type { DownstreamCaller, DownstreamProgress } from "@afw/downstream";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  SetLevelRequestSchema,
  type CallToolResult,
  type ListToolsResult,
  type LoggingLevel,
} from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { z } from "zod";
import type { GatewayConfig } from "./config-schema.js";
import { CALL_TOOL_NAME, type DownstreamSessionState, type DownstreamTools } from "./downstream-tools.js";
import { registerResourcesAndPrompts } from "./gateway-resources.js";
import { routeElicitationOf } from "./route-elicitation.js";
import { ToolFailure, type GatewayTool, type ToolContext } from "./gateway-tool.js";
import type { GatewayMetrics } from "./metrics.js";
import { invalidArguments, InvalidParamsError, JsonRpcError, ToolsCallRequestSchema } from "./tool-call-params.js";
import { GATEWAY_TOOLS } from "./tool-schemas.js";
import { newTraceContext } from "./trace-context.js";

const bigintAsString = (_key: string, item: unknown) => (typeof item === "bigint" ? item.toString() : item);

/** JSON text of a tool's value, bigints as decimal strings. A replacer slows every stringify down, so it only runs for a value the plain
 * stringify refuses (a bigint: TypeError); the text is the same either way. */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return JSON.stringify(value, bigintAsString);
  }
}

/** Tools a tenant-scoped token may not call: they read data of every tenant (question texts, per-flow analytics)
 * or change the gateway for all tenants (new backends, the flow registry). */
const TENANT_FORBIDDEN_TOOLS: ReadonlySet<string> = new Set([
  "backend_connect",
  "sync_flow_registry",
  "pattern_analysis",
  "analytics_dashboard",
  "analyze_flow",
  "export_metrics",
]);

/** What {@link createMcpServerFactory} needs of the gateway. */
export interface McpServerDependencies {
  config: GatewayConfig;
  tools: GatewayTool[];
  downstream: DownstreamTools | undefined;
  redactor: Redactor;
  sink: TraceSink;
  metrics: GatewayMetrics;
  logger: Logger;
  serverInfo: { name: string; version: string };
}

/** Returns the gateway's `createMcpServer`: each call builds one MCP server (one connection) with the gateway's tools, resources and prompts, the downstream servers' tools, and one tools/call handler that
 * validates arguments (typed `INVALID_INPUT`), redacts, counts metrics, forwards what downstream servers send while a call runs, and never lets an exception reach the client. */
export function createMcpServerFactory({ config, tools, downstream, redactor, sink, metrics, logger, serverInfo }: McpServerDependencies): () => McpServer {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const callToolSchema = z.object(GATEWAY_TOOLS.call_tool.shape).strict();
  const taskTextOf = (name: string, args: Record<string, unknown>): string | undefined => {
    if ((name === "universal_query" || name === "flowise_query" || name === "explain_routing") && typeof args["question"] === "string") return args["question"];
    if (name === "search_tools" && typeof args["query"] === "string") return args["query"];
    return undefined;
  };
  const errorResult = (body: Record<string, unknown>): CallToolResult => ({
    content: [{ type: "text", text: redactor.redact(jsonText(body)) }],
    isError: true,
  });
  type Extra = Parameters<Parameters<McpServer["server"]["setRequestHandler"]>[1]>[1];
  /** One MCP server (connection) of the gateway, as the forwarding of downstream messages needs it. */
  interface Connection {
    readonly mcp: McpServer;
    session: DownstreamSessionState | undefined;
    /** The level the client set with `logging/setLevel` (undefined: every message). */
    logLevel: LoggingLevel | undefined;
  }
  const severity = (level: LoggingLevel) => LoggingLevelSchema.options.indexOf(level);
  /** The downstream caller of one tools/call: the server's log messages, sampling and elicitation requests go to this client, on the stream of this request. */
  const downstreamCaller = (connection: Connection, extra: Extra, send: (task: () => Promise<void>) => void): DownstreamCaller => {
    const server = connection.mcp.server;
    const capabilities = server.getClientCapabilities();
    const options = { relatedRequestId: extra.requestId };
    const caller: DownstreamCaller = {
      key: connection,
      log: (message) => {
        if (connection.logLevel !== undefined && severity(message.level) < severity(connection.logLevel)) return;
        const params = {
          level: message.level,
          logger: message.logger === undefined ? message.server : `${message.server}/${message.logger}`,
          data: redactor.redactValue(message.data),
        };
        send(() => extra.sendNotification({ method: "notifications/message", params }));
      },
    };
    if (capabilities === undefined || capabilities.sampling !== undefined) {
      caller.createMessage = (params, { signal }) =>
        capabilities === undefined
          ? extra.sendRequest({ method: "sampling/createMessage", params }, CreateMessageResultSchema, { signal })
          : (server.createMessage(params, { ...options, signal }) as ReturnType<NonNullable<DownstreamCaller["createMessage"]>>);
    }
    if (capabilities === undefined || capabilities.elicitation !== undefined) {
      caller.elicit = (params, { signal }) =>
        capabilities === undefined
          ? extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema, { signal })
          : server.elicitInput(params as Parameters<typeof server.elicitInput>[0], { ...options, signal });
    }
    return caller;
  };
  const dispatch = async (
    name: string,
    rawArguments: Record<string, unknown> | undefined,
    extra: Extra,
    connection?: Connection,
  ): Promise<CallToolResult> => {
    const session = connection?.session;
    const started = performance.now();
    const args = rawArguments ?? {};
    const sessionId = typeof args["session_id"] === "string" ? args["session_id"] : undefined;
    const trace = newTraceContext(sink, { requestId: String(extra.requestId), sessionId });
    const elapsedMs = () => Math.round((performance.now() - started) * 1000) / 1000;
    const gatewayTool = byName.get(name);
    const fail = (error: AfwError): CallToolResult => {
      metrics.observeToolCall(name.slice(0, 64), "error", elapsedMs() / 1000, error.code);
      const body = gatewayTool?.errorBody
        ? gatewayTool.errorBody(error, { trace, elapsedMs: elapsedMs() })
        : { error: error.message, code: error.code, ...(error.details ? { details: error.details } : {}), trace_id: trace.traceId };
      return errorResult(body);
    };
    /** Invalid arguments: a tool error, or JSON-RPC -32602 when `arguments` was left out altogether. */
    const failArguments = (issues: z.ZodError): CallToolResult => {
      const error = invalidArguments(name, issues);
      if (rawArguments === undefined) throw new InvalidParamsError(error.message);
      return fail(error);
    };
    // What is sent during the call (progress, downstream log messages) goes out in order, before the result.
    let sent: Promise<void> = Promise.resolve();
    const send = (task: () => Promise<void>) => {
      sent = sent.then(task).catch(() => undefined);
    };
    const progressToken = extra._meta?.progressToken;
    if (!gatewayTool && downstream && (name === CALL_TOOL_NAME || downstream.isDownstreamName(name))) {
      let target = name;
      let targetArguments = args;
      if (name === CALL_TOOL_NAME) {
        const parsedCall = callToolSchema.safeParse(args);
        if (!parsedCall.success) return failArguments(parsedCall.error);
        target = parsedCall.data.name;
        targetArguments = parsedCall.data.arguments;
      }
      const onProgress =
        progressToken === undefined
          ? undefined
          : (progress: DownstreamProgress) => {
              const params = { progressToken, ...progress, ...(progress.message === undefined ? {} : { message: redactor.redact(progress.message, { generic: false }) }) };
              send(() => extra.sendNotification({ method: "notifications/progress", params }));
            };
      try {
        const result = await downstream
          .call(session, target, targetArguments, {
            trace,
            signal: extra.signal,
            ...(onProgress ? { onProgress } : {}),
            ...(connection ? { caller: downstreamCaller(connection, extra, send) } : {}),
          }).finally(() => sent);
        metrics.observeToolCall(name === CALL_TOOL_NAME ? name : "downstream", result.isError ? "error" : "success", elapsedMs() / 1000);
        return result;
      } catch (error) {
        if (error instanceof JsonRpcError) {
          metrics.observeToolCall(name === CALL_TOOL_NAME ? name : "downstream", "error", elapsedMs() / 1000, "TOOL_EXECUTION_FAILED");
          throw new JsonRpcError(error.code, redactor.redact(error.message), redactor.redactValue(error.data));
        }
        return fail(toAfwError(error, "TOOL_EXECUTION_FAILED"));
      }
    }
    if (!gatewayTool) return fail(new AfwError("TOOL_NOT_FOUND", `unknown tool '${name.slice(0, 100)}'`));
    const parsed = gatewayTool.schema.safeParse(args);
    if (!parsed.success) return failArguments(parsed.error);
    let progressCount = 0;
    const progress =
      progressToken === undefined
        ? undefined
        : (message: string) => {
            const params = { progressToken, progress: ++progressCount, message: redactor.redact(message, { generic: false }) };
            send(() => extra.sendNotification({ method: "notifications/progress", params }));
          };
    const authExtra = extra.authInfo?.extra as { tenant?: unknown } | undefined;
    const context: ToolContext = {
      trace,
      signal: extra.signal,
      tenant: typeof authExtra?.tenant === "string" ? authExtra.tenant : undefined,
      progress,
      ...(connection ? { elicitation: routeElicitationOf(connection.mcp.server, extra.requestId) } : {}),
    };
    if (context.tenant !== undefined && TENANT_FORBIDDEN_TOOLS.has(name)) {
      return fail(new AfwError("FORBIDDEN", `${name} spans every tenant (or changes the gateway for all of them): use a token without a tenant`));
    }
    try {
      const value = await gatewayTool.run(parsed.data as never, context);
      await sent;
      const taskText = session && downstream ? taskTextOf(name, args) : undefined;
      if (taskText !== undefined) await downstream!.remember(session!, taskText).catch(() => undefined);
      metrics.observeToolCall(name, "success", elapsedMs() / 1000);
      return { content: [{ type: "text", text: redactor.redact(jsonText(value), { generic: false }) }] };
    } catch (error) {
      await sent;
      if (error instanceof ToolFailure) {
        metrics.observeToolCall(name, "error", elapsedMs() / 1000, error.body.code);
        return errorResult(error.body);
      }
      const afw = toAfwError(error);
      if (!AfwError.isInstance(error)) {
        logger.error({ tool: name, traceId: trace.traceId, err: { message: String((error as Error)?.message ?? error), stack: (error as Error)?.stack } }, "tool failed unexpectedly");
      }
      return fail(afw);
    }
  };
  // One JSON Schema validator for every MCP server of this gateway: the SDK would build a new Ajv
  // instance per server, i.e. per request in stateless HTTP mode.
  let jsonSchemaValidator: AjvJsonSchemaValidator | undefined;
  const createMcpServer = (): McpServer => {
    jsonSchemaValidator ??= new AjvJsonSchemaValidator();
    const mcp = new McpServer(serverInfo, {
      // Logging: downstream servers' log messages are forwarded (filtered by `logging/setLevel`).
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true },
        ...(downstream ? { prompts: { listChanged: true }, logging: {} } : {}),
      },
      jsonSchemaValidator,
      ...(config.server.instructions ? { instructions: config.server.instructions } : {}),
    });
    for (const gatewayTool of tools) {
      mcp.registerTool(
        gatewayTool.name,
        { title: gatewayTool.title, description: gatewayTool.description, inputSchema: gatewayTool.shape, annotations: gatewayTool.annotations },
        // Calls are dispatched by the handler below; this callback is never reached.
        async () => ({ content: [], isError: true }),
      );
    }
    const stopCatalogNotifications = registerResourcesAndPrompts(mcp, { tools: byName, downstream, redactor, sink });
    const connection: Connection = { mcp, session: undefined, logLevel: undefined };
    if (downstream) {
      const tools = downstream;
      const state = tools.openSession(() => mcp.sendToolListChanged());
      connection.session = state;
      mcp.server.setRequestHandler(SetLevelRequestSchema, async (request) => {
        connection.logLevel = request.params.level;
        return {};
      });
      if (tools.exposure === "search") {
        const { title, description, shape, annotations } = GATEWAY_TOOLS.call_tool;
        mcp.registerTool(CALL_TOOL_NAME, { title, description, inputSchema: shape, annotations }, async () => ({ content: [], isError: true }));
      }
      // tools/list: the gateway's tools as the SDK lists them, then the downstream tools of the exposure mode.
      const handlers = (mcp.server as unknown as { _requestHandlers?: Map<string, (request: unknown, extra: unknown) => Promise<ListToolsResult>> })._requestHandlers;
      const sdkList = handlers?.get("tools/list");
      if (!sdkList) throw new AfwError("INTERNAL", "the MCP SDK's tools/list handler was not found (SDK internals changed)");
      mcp.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
        const base = await sdkList(request, extra);
        const trace = newTraceContext(sink, { requestId: String(extra.requestId) });
        const extraTools = await tools.listTools(state, trace);
        // The gateway's own tools win over a downstream tool of the same name (`namespace: false`).
        const own = new Set(base.tools.map((tool) => tool.name));
        return { ...base, tools: [...base.tools, ...extraTools.filter((tool) => !own.has(tool.name))] };
      });
      const previousOnClose = mcp.server.onclose;
      mcp.server.onclose = () => {
        stopCatalogNotifications();
        tools.release(state);
        // A pooled server (stateless HTTP) serves another client next: forget this one's level and capabilities
        // (the SDK keeps those of the last initialize; it has no public reset).
        connection.logLevel = undefined;
        (mcp.server as unknown as { _clientCapabilities?: unknown })._clientCapabilities = undefined;
        previousOnClose?.();
      };
    }
    // Our own tools/call handler: typed INVALID_INPUT errors, redaction, metrics, and no exception ever reaching the client.
    mcp.server.setRequestHandler(ToolsCallRequestSchema, async (request, extra) => {
      try {
        return await dispatch(request.params.name, request.params.arguments, extra, connection);
      } catch (error) {
        if (error instanceof JsonRpcError) throw error;
        logger.error({ err: { message: String((error as Error)?.message ?? error) } }, "tool dispatch failed");
        return errorResult({ error: "internal error", code: "INTERNAL" });
      }
    });
    return mcp;
  };
  return createMcpServer;
}
