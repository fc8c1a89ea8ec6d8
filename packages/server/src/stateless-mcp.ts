import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { CALL_TOOL_NAME } from "./downstream-tools.js";
import type { GatewayServer } from "./gateway-types.js";
import { jsonRpcError } from "./http-guards.js";

/** Idle MCP servers kept for reuse by stateless requests. */
const SERVER_POOL_SIZE = 64;

type RequestId = string | number;
type Message = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: { requestId?: unknown; name?: unknown; _meta?: { progressToken?: unknown } }; result?: unknown; error?: unknown };

const key = (owner: string, id: RequestId) => `${owner}\u0000${typeof id}:${String(id)}`;

/** Whether a message of a POST is a JSON-RPC request, as far as routing its cancellations needs: `jsonrpc` "2.0", a method and a string or
 * integer id (the SDK's `isJSONRPCRequest` also runs its strict zod schema; a message failing only that is refused by the SDK with its
 * transport, so listing its id for the life of that transport routes nothing differently). */
const isRequestMessage = (m: Message): m is Message & { id: RequestId } =>
  m?.jsonrpc === "2.0" && typeof m.method === "string" && (typeof m.id === "string" || Number.isInteger(m.id));

/** The SDK's in-flight bookkeeping of one MCP server (internal fields; undefined when the SDK renames them). */
type ProtocolState = { _responseHandlers?: { size: number }; _requestHandlerAbortControllers?: { size: number } };

/** Whether `Error.stackTraceLimit` can be set (it can in Node; a frozen `Error` keeps the SDK's close as it is). */
const stackLimitWritable = Object.getOwnPropertyDescriptor(Error, "stackTraceLimit")?.writable === true;

/**
 * Closes a POST's transport (the SDK's Protocol then resets the pooled server). On every close the SDK builds a "Connection closed"
 * `McpError` for the answers it still awaits from the client, and aborts the handlers still running; when there are neither (the usual
 * case: the response is over), nothing ever reads that error, so its stack trace, most of the cost of a close, is not captured.
 */
function closeTransport(transport: StreamableHTTPServerTransport, server: McpServer): Promise<void> {
  const state = server.server as unknown as ProtocolState;
  if (!stackLimitWritable || state._responseHandlers?.size !== 0 || state._requestHandlerAbortControllers?.size !== 0) return transport.close();
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return transport.close();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Stateless MCP over the SDK's Streamable HTTP transport on pooled MCP servers. */
export interface StatelessMcp {
  /** Serves one POST whose JSON body was read and parsed already. */
  serve(request: IncomingMessage, response: ServerResponse, body: unknown, authInfo: AuthInfo | undefined): Promise<void>;
  /** Drops the idle servers; exchanges in flight finish. */
  close(): void;
}

/** Each POST gets a fresh stateless `StreamableHTTPServerTransport` on an idle `McpServer` from a pool (one is built when none is
 * idle); when the response ends, the transport is closed and the server goes back to the pool. */
export function createStatelessMcp(gateway: GatewayServer): StatelessMcp {
  const pool: McpServer[] = [];
  let closed = false;
  /** Requests in flight, by owner and client request id. */
  const requests = new Map<string, StreamableHTTPServerTransport>();
  /** Server-to-client requests awaiting the client's answer, by the id the client saw. */
  const outgoing = new Map<string, { transport: StreamableHTTPServerTransport; id: RequestId; owner: string }>();
  const downstream = gateway.downstream;
  const needsStream = (messages: Message[]) =>
    messages.some((m) => {
      if (m?.params?._meta?.progressToken !== undefined) return true;
      const name = m?.method === "tools/call" ? m.params?.name : undefined;
      return downstream !== undefined && typeof name === "string" && (name === CALL_TOOL_NAME || downstream.isDownstreamName(name));
    });
  /** Delivers the messages that belong to other exchanges there; returns the rest. */
  const deliverElsewhere = (transport: StreamableHTTPServerTransport, messages: Message[], owner: string, authInfo: AuthInfo | undefined) => {
    const extra = authInfo ? { authInfo } : undefined;
    return messages.filter((m) => {
      const route = m?.method === undefined && typeof m?.id === "string" && (m.result !== undefined || m.error !== undefined) ? outgoing.get(m.id) : undefined;
      if (route && route.owner === owner) {
        outgoing.delete(m.id as string);
        route.transport.onmessage?.({ ...m, id: route.id } as JSONRPCMessage, extra);
        return false;
      }
      const cancelled = m?.method === "notifications/cancelled" && m.id === undefined ? m.params?.requestId : undefined;
      const target = typeof cancelled === "string" || typeof cancelled === "number" ? requests.get(key(owner, cancelled)) : undefined;
      if (target && target !== transport) {
        target.onmessage?.(m as JSONRPCMessage, extra);
        return false;
      }
      return true;
    });
  };
  return {
    async serve(request, response, body, authInfo) {
      if (Array.isArray(body) && body.length === 0) {
        jsonRpcError(response, 400, -32600, "Invalid Request: empty batch");
        return;
      }
      const owner = authInfo?.clientId ?? "";
      const messages = (Array.isArray(body) ? body : [body]) as Message[];
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !needsStream(messages) });
      const server = pool.pop() ?? gateway.createMcpServer();
      await server.connect(transport);
      const local = deliverElsewhere(transport, messages, owner, authInfo);
      const ids = local.filter(isRequestMessage).map((m) => key(owner, m.id));
      for (const id of ids) requests.set(id, transport);
      // A server-to-client request gets a listener-wide id that leads the client's answer back here.
      const send = transport.send.bind(transport);
      transport.send = (message, options) => {
        // Answers and notifications (no id or no method) go out as they are; only requests to the client get a listener-wide id.
        if (!("method" in message && "id" in message) || !isJSONRPCRequest(message)) return send(message, options);
        const id = `afw-${randomUUID()}`;
        outgoing.set(id, { transport, id: message.id, owner });
        return send({ ...message, id }, options);
      };
      const onclose = transport.onclose;
      transport.onclose = () => {
        for (const id of ids) if (requests.get(id) === transport) requests.delete(id);
        for (const [id, route] of outgoing) if (route.transport === transport) outgoing.delete(id);
        onclose?.();
      };
      // Closed once the response is over (after the SDK's own bookkeeping of the request).
      response.once("close", () => {
        void closeTransport(transport, server).then(() => {
          if (!closed && pool.length < SERVER_POOL_SIZE) pool.push(server);
        });
      });
      if (local.length === 0) {
        response.writeHead(202).end();
        return;
      }
      await transport.handleRequest(request, response, Array.isArray(body) ? local : local[0]);
    },
    close() {
      closed = true;
      pool.length = 0;
    },
  };
}
