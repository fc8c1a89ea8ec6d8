import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Most messages in one JSON-RPC batch (as the SDK's transport). */
export const MAX_BATCH_SIZE = 100;

type RequestId = string | number;

const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId; method: string } => "method" in m && "id" in m;
const isResponse = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId } => ("result" in m || "error" in m) && "id" in m;
const isInitialize = (m: JSONRPCMessage) => "method" in m && m.method === "initialize" && "id" in m;
const isCancellation = (m: JSONRPCMessage): m is JSONRPCMessage & { method: "notifications/cancelled"; params: { requestId?: RequestId } } =>
  "method" in m && m.method === "notifications/cancelled" && !("id" in m);

/**
 * What ties the stateless exchanges of one listener together: a client's cancellation of a request
 * (a POST of its own) reaches the exchange serving that request, and a client's answer to a
 * server-to-client request (sampling, elicitation; also a POST of its own) reaches the exchange
 * that asked. Requests are told apart by the client's identity (`owner`, the bearer token's name;
 * one anonymous owner without auth) and the JSON-RPC id; server-to-client requests get ids unique
 * to the listener. Exchanges of other gateway instances are not reached.
 */
export class StatelessExchangeRouter {
  /** Requests in flight, by owner and client request id. */
  readonly requests = new Map<string, StatelessHttpTransport>();
  /** Server-to-client requests awaiting the client's answer, by the id the client saw. */
  readonly outgoing = new Map<string, { transport: StatelessHttpTransport; id: RequestId; owner: string }>();

  static key(owner: string, id: RequestId): string {
    return `${owner}\u0000${typeof id}:${String(id)}`;
  }
}

function jsonRpcError(response: ServerResponse, status: number, code: number, message: string): void {
  const text = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
}

/**
 * One stateless MCP Streamable HTTP exchange on `node:http`, without the Web-API bridging of the
 * SDK's transport: the POSTed JSON-RPC message(s) go to the MCP server, and the responses go back
 * as one JSON body, or as an SSE stream (`event: message`) when `stream` is set (needed for
 * progress notifications). Implements the SDK `Transport` interface, so an `McpServer` connects
 * to it as to any other transport; one instance serves exactly one HTTP request.
 *
 * Protocol checks mirror the SDK's stateless transport: `Accept` must list `application/json`
 * and `text/event-stream` (406), JSON-RPC messages are validated (400, -32700), batches are
 * bounded, only one `initialize` per batch, and an unsupported `Mcp-Protocol-Version` gets 400.
 */
export class StatelessHttpTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: Transport["onmessage"];
  private pending = new Set<RequestId>();
  private responses: JSONRPCMessage[] = [];
  private streaming = false;
  private closed = false;
  private finished: () => void = () => {};
  /** Resolves when the exchange is over (answered, refused or the client went away). */
  readonly done: Promise<void>;

  constructor(
    private readonly request: IncomingMessage,
    private readonly response: ServerResponse,
    private readonly options: { stream: boolean; authInfo?: AuthInfo | undefined; router?: StatelessExchangeRouter | undefined },
  ) {
    this.done = new Promise((resolve) => (this.finished = resolve));
    response.once("close", () => void this.close());
  }

  async start(): Promise<void> {}

  private get owner(): string {
    return this.options.authInfo?.clientId ?? "";
  }

  private extra() {
    return { ...(this.options.authInfo ? { authInfo: this.options.authInfo } : {}), requestInfo: { headers: this.request.headers } };
  }

  /** Delivers a message another exchange received for this one (a cancellation, an answer). */
  private deliver(message: JSONRPCMessage): void {
    if (!this.closed) this.onmessage?.(message, this.extra());
  }

  /**
   * Takes out the messages that belong to other exchanges of the same client and delivers them
   * there; returns the rest.
   */
  private routeElsewhere(messages: JSONRPCMessage[]): JSONRPCMessage[] {
    const router = this.options.router;
    if (!router) return messages;
    const owner = this.owner;
    return messages.filter((message) => {
      if (isResponse(message) && !("method" in message) && typeof message.id === "string") {
        const route = router.outgoing.get(message.id);
        if (route && route.owner === owner) {
          router.outgoing.delete(message.id);
          route.transport.deliver({ ...message, id: route.id } as JSONRPCMessage);
          return false;
        }
      }
      if (isCancellation(message) && message.params?.requestId !== undefined) {
        const target = router.requests.get(StatelessExchangeRouter.key(owner, message.params.requestId));
        if (target && target !== this) {
          target.deliver(message);
          return false;
        }
      }
      return true;
    });
  }

  /** Switches a JSON answer to an SSE stream (before anything was written), e.g. for a log message. */
  private startStream(): boolean {
    if (this.streaming) return true;
    if (this.response.headersSent) return false;
    this.streaming = true;
    this.response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", connection: "keep-alive", "x-accel-buffering": "no" });
    for (const buffered of this.responses) this.response.write(`event: message\ndata: ${JSON.stringify(buffered)}\n\n`);
    this.responses = [];
    return true;
  }

  /**
   * Validates and dispatches the parsed `body`. Answers protocol errors itself.
   */
  handle(body: unknown): void {
    const accept = this.request.headers.accept ?? "";
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
      jsonRpcError(this.response, 406, -32000, "Not Acceptable: Client must accept both application/json and text/event-stream");
      return void this.close();
    }
    if (Array.isArray(body) && body.length === 0) {
      jsonRpcError(this.response, 400, -32600, "Invalid Request: empty batch");
      return void this.close();
    }
    if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) {
      jsonRpcError(this.response, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
      return void this.close();
    }
    const raw = Array.isArray(body) ? body : [body];
    const messages: JSONRPCMessage[] = [];
    for (const item of raw) {
      const parsed = JSONRPCMessageSchema.safeParse(item);
      if (!parsed.success) {
        jsonRpcError(this.response, 400, -32700, "Parse error: Invalid JSON-RPC message");
        return void this.close();
      }
      messages.push(parsed.data);
    }
    const initializing = messages.filter(isInitialize).length;
    if (initializing > 1 || (initializing === 1 && messages.length > 1)) {
      jsonRpcError(this.response, 400, -32600, "Invalid Request: Only one initialization request is allowed");
      return void this.close();
    }
    const version = this.request.headers["mcp-protocol-version"];
    if (initializing === 0 && typeof version === "string" && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      jsonRpcError(this.response, 400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`);
      return void this.close();
    }
    const extra = this.extra();
    const local = this.routeElsewhere(messages);
    for (const message of local) {
      if (!isRequest(message)) continue;
      this.pending.add(message.id);
      this.options.router?.requests.set(StatelessExchangeRouter.key(this.owner, message.id), this);
    }
    if (this.pending.size === 0) {
      for (const message of local) this.onmessage?.(message, extra);
      this.response.writeHead(202).end();
      return void this.close();
    }
    if (this.options.stream) {
      this.streaming = true;
      this.response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", connection: "keep-alive", "x-accel-buffering": "no" });
      this.response.flushHeaders();
    }
    for (const message of local) this.onmessage?.(message, extra);
  }

  async send(sent: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.closed) return;
    let message = sent;
    const responding = isResponse(sent);
    const related = isResponse(sent) ? sent.id : options?.relatedRequestId;
    // A stateless exchange has no standalone stream: unrelated server messages are dropped.
    if (related === undefined || !this.pending.has(related as RequestId)) return;
    if (!responding) {
      // A notification or a request of the server while a request runs: it needs the SSE stream.
      if (!this.startStream()) return;
      if (isRequest(message) && this.options.router) {
        // The client answers in a POST of its own: a listener-wide id leads the answer back here.
        const id = `afw-${randomUUID()}`;
        this.options.router.outgoing.set(id, { transport: this, id: message.id, owner: this.owner });
        message = { ...message, id } as JSONRPCMessage;
      }
    }
    if (this.streaming) {
      this.response.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    } else if (responding) {
      this.responses.push(message);
    }
    if (!responding) return;
    this.pending.delete(related as RequestId);
    this.forgetRequest(related as RequestId);
    if (this.pending.size > 0) return;
    if (this.streaming) {
      this.response.end();
    } else {
      const text = JSON.stringify(this.responses.length === 1 ? this.responses[0] : this.responses);
      this.response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
    }
    // Close once the SDK has finished its own bookkeeping of the request (it drops the handler's
    // AbortController right after this send resolves). Closing here, synchronously, would make
    // the SDK abort that controller: a DOMException and abort listeners run for every request.
    setImmediate(() => void this.close());
  }

  private forgetRequest(id: RequestId): void {
    const router = this.options.router;
    const key = StatelessExchangeRouter.key(this.owner, id);
    if (router?.requests.get(key) === this) router.requests.delete(key);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const id of this.pending) this.forgetRequest(id);
    const router = this.options.router;
    if (router) for (const [id, route] of router.outgoing) if (route.transport === this) router.outgoing.delete(id);
    this.onclose?.();
    this.finished();
  }
}
