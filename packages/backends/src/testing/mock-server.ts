import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { ChatMessage } from "@afw/contracts";

/** A node (Flowise) or component (Langflow) of a mock flow, whose params overrides/tweaks can change. */
export interface MockFlowNode {
  /** Node id (Flowise `chatOpenAI_0`) or component id (Langflow `OpenAIModel-x1`). */
  id: string;
  /** Display label, e.g. `ChatOpenAI`. */
  label?: string;
  /** Node name/type, e.g. `chatOpenAI`, `OpenAIModel`. */
  name?: string;
  /** Node category, e.g. `Chat Models`, `Vector Stores`. */
  category?: string;
  /** Input parameters and their default values. */
  params: Record<string, unknown>;
}

/** What a mock flow's answer function receives. */
export interface MockRunInput {
  flow: MockFlowDefinition;
  question: string;
  sessionId: string | undefined;
  /** History as the platform saw it: the request's `history` (Flowise) or the session memory. */
  history: ChatMessage[];
  /** Effective node parameters after overrides/tweaks, by node id. */
  nodeParams: Record<string, Record<string, unknown>>;
  streaming: boolean;
}

/** A rich answer of a mock flow. */
export interface MockAnswer {
  text: string;
  /** Tokens to stream; default: `text` split after each run of spaces. Must concatenate to `text`. */
  tokens?: string[];
  sources?: MockSource[];
  usage?: { promptTokens: number; completionTokens: number };
}

/** A source document returned by a mock flow. */
export interface MockSource {
  pageContent: string;
  metadata?: Record<string, unknown>;
}

/** A flow served by a mock platform. */
export interface MockFlowDefinition {
  id: string;
  name: string;
  description?: string;
  /** Flowise `category` (joined with `;`) or Langflow `tags`. */
  tags?: string[];
  /** Flowise type: `CHATFLOW` (default), `AGENTFLOW`, `MULTIAGENT`, `ASSISTANT`. */
  type?: string;
  /** Flowise `deployed` flag (default false, as Flowise's UI leaves it). */
  deployed?: boolean;
  /** Langflow `is_component`. */
  isComponent?: boolean;
  /** Langflow `endpoint_name` (also accepted in the run path). */
  endpointName?: string;
  /** Langflow folder id. */
  folderId?: string;
  /** Whether the flow streams tokens (default true). */
  streaming?: boolean;
  /** Flowise: an API key bound to the chatflow; predictions then need `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Fixed answer, or a function of the run. Default: `Echo: <question>`. */
  answer?: string | ((input: MockRunInput) => string | MockAnswer);
  sources?: MockSource[];
  usage?: { promptTokens: number; completionTokens: number };
  nodes?: MockFlowNode[];
  /**
   * Flowise: which node params `overrideConfig` may change (the chatflow's API override setting,
   * `apiConfig.overrideConfig`): true (default) every param of every node, false none, or a list
   * of param names enabled on every node.
   */
  overridable?: boolean | string[];
  /**
   * Flowise: whether the chatflow has a memory node (default true). With memory, the platform
   * loads the session's earlier messages by `overrideConfig.sessionId` and prepends the request's
   * `history` to them, as Flowise does; without, only `history` reaches the model.
   */
  memory?: boolean;
  /**
   * Reply shape variant: Flowise `text` (default), `json` (structured output), `agentflow`
   * (answer only in `agentFlowExecutedData`); Langflow `full` (default), `messages`, `artifacts`.
   */
  replyShape?: string;
}

/** One run a mock platform executed, as the platform understood the request. */
export interface MockRunRecord {
  flowId: string;
  question: string;
  sessionId: string | undefined;
  history: ChatMessage[];
  nodeParams: Record<string, Record<string, unknown>>;
  streaming: boolean;
  answer: string;
  /** Raw uploads (Flowise) as received. */
  uploads: unknown[];
}

/** A request a mock platform received. Headers are kept as sent so tests can assert auth. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or the raw text when it is not JSON, or undefined when empty. */
  body: unknown;
  route: MockRoute;
  flowId: string | undefined;
  receivedAt: number;
  /** Resolves when the exchange ended (reply finished or connection closed). */
  closed: Promise<void>;
  /** True when the client closed the connection before the reply finished. */
  readonly clientAborted: boolean;
}

/** Route classes faults can target. */
export type MockRoute = "health" | "version" | "list" | "run" | "streaming-check" | "other";

/**
 * A fault to inject. Without `route`/`flowId` it applies to every request; `probability`
 * (seeded RNG) and `times` limit how often.
 */
export interface MockFault {
  route?: MockRoute | MockRoute[];
  flowId?: string;
  /** Answer with this status and the platform's error body. */
  status?: number;
  /** Message in the error body (or mid-stream error event). */
  message?: string;
  /** Adds a `Retry-After` header (seconds). */
  retryAfterSeconds?: number;
  /** Waits this long before answering. */
  delayMs?: number;
  /** Never answers (until the client or the server closes the connection). */
  hang?: boolean;
  /** Answers 200 with a body that is not JSON. */
  garbage?: boolean;
  /** Answers 200 with JSON of the wrong shape. */
  wrongShape?: boolean;
  /** Destroys the connection without answering. */
  reset?: boolean;
  /** Pads a JSON reply with this many extra bytes. */
  oversizeBytes?: number;
  /** Streams: destroys the connection after this many tokens. */
  dropAfterTokens?: number;
  /** Streams: ends the reply cleanly after this many tokens, without the end event. */
  endAfterTokens?: number;
  /** Streams: sends the platform's error event after this many tokens. */
  errorAfterTokens?: number;
  /** Streams: stops writing (keeps the connection open) after this many tokens. */
  stallAfterTokens?: number;
  /** Probability 0..1 that the fault applies to a matching request (seeded RNG). Default 1. */
  probability?: number;
  /** Applies at most this many times. */
  times?: number;
}

/** Options shared by both mock platforms. */
export interface MockServerOptions {
  flows?: MockFlowDefinition[];
  /** The platform API key; when set, protected routes require it. */
  apiKey?: string;
  /** Added before every answer. */
  latencyMs?: number;
  /** Delay between streamed tokens (default 0). */
  tokenDelayMs?: number;
  /** Seed of the fault RNG (default 1). */
  seed?: number;
  faults?: MockFault[];
  /** Page size of paginated listings (Flowise `limit` is honoured; Langflow pages when `listMode` is `paged`). */
  pageSize?: number;
  /** Platform version reported by the version route. */
  version?: string;
  /** Port to listen on (default: a free port on 127.0.0.1). */
  port?: number;
}

/** A running mock platform. */
export interface MockPlatformServer {
  readonly kind: "flowise" | "langflow";
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** The platform API key the server expects, if any. */
  readonly apiKey: string | undefined;
  /** Every request received, oldest first. */
  readonly requests: RecordedRequest[];
  /** Every run executed, oldest first. */
  readonly runs: MockRunRecord[];
  /** The flows served (mutable through addFlow/removeFlow). */
  readonly flows: readonly MockFlowDefinition[];
  /** Connections currently open. */
  readonly openConnections: number;
  /** The API key a request carried in this platform's auth header, if any. */
  authKeyOf(request: RecordedRequest): string | undefined;
  addFlow(flow: MockFlowDefinition): void;
  removeFlow(id: string): void;
  setFaults(faults: MockFault[]): void;
  addFault(fault: MockFault): void;
  clearFaults(): void;
  setLatency(latencyMs: number): void;
  /** Resolves with the next request matching `predicate` (only requests received after the call). */
  waitForRequest(predicate?: (request: RecordedRequest) => boolean): Promise<RecordedRequest>;
  /** Forgets requests, runs, session memory and faults. */
  reset(): void;
  /** Stops listening and destroys open connections. */
  close(): Promise<void>;
}

/** A deterministic PRNG (mulberry32) for fault injection. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Splits text into streaming tokens after each run of whitespace; the tokens concatenate to `text`. */
export function tokenize(text: string): string[] {
  return text.match(/\s*\S+\s*|\s+/g) ?? [];
}

/** The answer of a flow for a run, normalised. */
export function answerFor(flow: MockFlowDefinition, input: MockRunInput): Required<Pick<MockAnswer, "text" | "tokens">> & MockAnswer {
  const raw = typeof flow.answer === "function" ? flow.answer(input) : (flow.answer ?? `Echo: ${input.question}`);
  const answer: MockAnswer = typeof raw === "string" ? { text: raw } : raw;
  return {
    ...answer,
    tokens: answer.tokens ?? tokenize(answer.text),
    sources: answer.sources ?? flow.sources,
    usage: answer.usage ?? flow.usage,
  };
}

/** The effective node parameters of a flow before overrides. */
export function defaultNodeParams(flow: MockFlowDefinition): Record<string, Record<string, unknown>> {
  return Object.fromEntries((flow.nodes ?? []).map((node) => [node.id, { ...node.params }]));
}

/** Per-request helpers handed to a platform's handler. */
export interface MockExchange {
  request: IncomingMessage;
  response: ServerResponse;
  record: RecordedRequest;
  /** The fault chosen for this request, if any. */
  fault: MockFault | undefined;
  /** True once the client closed the connection or the server is closing. */
  readonly gone: boolean;
  /** Waits `ms` (or until the client/server is gone); resolves false when gone. */
  sleep(ms: number): Promise<boolean>;
  /** Waits until the client/server is gone. */
  hang(): Promise<void>;
}

/** What a platform plugs into {@link startMockServer}. */
export interface MockPlatform {
  kind: "flowise" | "langflow";
  classify(method: string, path: string): { route: MockRoute; flowId?: string };
  /** Writes the platform's error body for `status` on `route`. */
  sendError(exchange: MockExchange, status: number, message: string, headers?: Record<string, string>): void;
  /** Writes a wrong-shape JSON body for `route`. */
  wrongShape(route: MockRoute): unknown;
  authKeyOf(headers: IncomingHttpHeaders, query: Record<string, string>): string | undefined;
  handle(exchange: MockExchange, state: MockState): Promise<void>;
}

/** Mutable state of a mock server shared with the platform handler. */
export interface MockState {
  options: MockServerOptions;
  flows: MockFlowDefinition[];
  runs: MockRunRecord[];
  /** Conversation memory by `flowId|sessionId`. */
  memory: Map<string, ChatMessage[]>;
  latencyMs: number;
  tokenDelayMs: number;
}

const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

function matches(fault: MockFault, route: MockRoute, flowId: string | undefined): boolean {
  const routes = fault.route === undefined ? undefined : Array.isArray(fault.route) ? fault.route : [fault.route];
  if (routes && !routes.includes(route)) return false;
  if (fault.flowId !== undefined && fault.flowId !== flowId) return false;
  return true;
}

/**
 * Starts a mock platform on 127.0.0.1: records requests, injects faults, tracks sockets, and
 * delegates the platform's own behaviour to `platform`. Used by `startFlowiseServer` and
 * `startLangflowServer`.
 */
export async function startMockServer(platform: MockPlatform, options: MockServerOptions = {}): Promise<MockPlatformServer> {
  const state: MockState = {
    options,
    flows: [...(options.flows ?? [])],
    runs: [],
    memory: new Map(),
    latencyMs: options.latencyMs ?? 0,
    tokenDelayMs: options.tokenDelayMs ?? 0,
  };
  const requests: RecordedRequest[] = [];
  let faults: Array<{ fault: MockFault; used: number }> = (options.faults ?? []).map((fault) => ({ fault, used: 0 }));
  const random = seededRandom(options.seed ?? 1);
  const sockets = new Set<Socket>();
  const waiters = new Set<{ predicate: (request: RecordedRequest) => boolean; resolve: (request: RecordedRequest) => void }>();
  let closing = false;
  const closingListeners = new Set<() => void>();

  const pickFault = (route: MockRoute, flowId: string | undefined): MockFault | undefined => {
    for (const entry of faults) {
      if (!matches(entry.fault, route, flowId)) continue;
      if (entry.fault.times !== undefined && entry.used >= entry.fault.times) continue;
      if (entry.fault.probability !== undefined && random() >= entry.fault.probability) continue;
      entry.used += 1;
      return entry.fault;
    }
    return undefined;
  };

  const server: Server = createServer((request, response) => {
    void serve(request, response);
  });
  server.keepAliveTimeout = 5_000;
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const chunks: Buffer[] = [];
    let size = 0;
    let gone = false;
    let finished = false;
    let clientAborted = false;
    let resolveClosed!: () => void;
    const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
    const goneListeners = new Set<() => void>();
    const markGone = () => {
      if (gone) return;
      gone = true;
      for (const listener of goneListeners) listener();
      goneListeners.clear();
    };
    response.on("finish", () => {
      finished = true;
    });
    response.on("close", () => {
      if (!finished) clientAborted = true;
      markGone();
      resolveClosed();
    });
    const onClosing = () => markGone();
    closingListeners.add(onClosing);
    closed.then(() => closingListeners.delete(onClosing), () => undefined);

    try {
      for await (const chunk of request) {
        size += (chunk as Buffer).length;
        if (size > MAX_REQUEST_BYTES) {
          response.writeHead(413).end();
          return;
        }
        chunks.push(chunk as Buffer);
      }
    } catch {
      return;
    }
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const { route, flowId } = platform.classify(request.method ?? "GET", url.pathname);
    const record: RecordedRequest = {
      method: request.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams.entries()),
      headers: request.headers,
      body,
      route,
      flowId,
      receivedAt: Date.now(),
      closed,
      get clientAborted() {
        return clientAborted;
      },
    };
    requests.push(record);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(record)) {
        waiters.delete(waiter);
        waiter.resolve(record);
      }
    }
    const exchange: MockExchange = {
      request,
      response,
      record,
      fault: pickFault(route, flowId),
      get gone() {
        return gone || closing;
      },
      sleep(ms: number) {
        if (gone || closing) return Promise.resolve(false);
        if (ms <= 0) return Promise.resolve(true);
        return new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => {
            goneListeners.delete(onGone);
            resolve(true);
          }, ms);
          const onGone = () => {
            clearTimeout(timer);
            resolve(false);
          };
          goneListeners.add(onGone);
        });
      },
      hang() {
        if (gone || closing) return Promise.resolve();
        return new Promise<void>((resolve) => goneListeners.add(resolve));
      },
    };
    try {
      const fault = exchange.fault;
      if (state.latencyMs > 0 && !(await exchange.sleep(state.latencyMs))) return;
      if (fault?.delayMs && !(await exchange.sleep(fault.delayMs))) return;
      if (fault?.hang) {
        await exchange.hang();
        return;
      }
      if (fault?.reset) {
        request.socket.destroy();
        return;
      }
      if (fault?.status !== undefined) {
        platform.sendError(exchange, fault.status, fault.message ?? defaultStatusMessage(fault.status), fault.retryAfterSeconds !== undefined ? { "retry-after": String(fault.retryAfterSeconds) } : {});
        return;
      }
      if (fault?.garbage) {
        response.writeHead(200, { "content-type": "application/json; charset=utf-8" }).end("<html><body>502 Bad Gateway</body></html>{not json");
        return;
      }
      if (fault?.wrongShape) {
        sendJson(response, 200, platform.wrongShape(route));
        return;
      }
      await platform.handle(exchange, state);
    } catch (error) {
      if (!response.headersSent) platform.sendError(exchange, 500, error instanceof Error ? error.message : "mock server error");
      else response.destroy();
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${address.port}`;

  return {
    kind: platform.kind,
    url,
    apiKey: options.apiKey,
    requests,
    runs: state.runs,
    get flows() {
      return state.flows;
    },
    get openConnections() {
      return sockets.size;
    },
    authKeyOf(request) {
      return platform.authKeyOf(request.headers, request.query);
    },
    addFlow(flow) {
      state.flows = [...state.flows.filter((existing) => existing.id !== flow.id), flow];
    },
    removeFlow(id) {
      state.flows = state.flows.filter((flow) => flow.id !== id);
    },
    setFaults(next) {
      faults = next.map((fault) => ({ fault, used: 0 }));
    },
    addFault(fault) {
      faults.push({ fault, used: 0 });
    },
    clearFaults() {
      faults = [];
    },
    setLatency(latencyMs) {
      state.latencyMs = latencyMs;
    },
    waitForRequest(predicate = () => true) {
      return new Promise<RecordedRequest>((resolve) => waiters.add({ predicate, resolve }));
    },
    reset() {
      requests.length = 0;
      state.runs.length = 0;
      state.memory.clear();
      faults = [];
    },
    async close() {
      closing = true;
      for (const listener of [...closingListeners]) listener();
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await done;
    },
  };
}

/** Writes a JSON reply. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers }).end(text);
}

function defaultStatusMessage(status: number): string {
  const messages: Record<number, string> = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    408: "Request Timeout",
    409: "Conflict",
    422: "Unprocessable Entity",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
  };
  return messages[status] ?? `HTTP ${status}`;
}

/** Pads a JSON object reply with `bytes` extra bytes (for reply-size limits). */
export function padReply(body: Record<string, unknown>, bytes: number | undefined): Record<string, unknown> {
  return bytes ? { ...body, padding: "x".repeat(bytes) } : body;
}

/** Applies the exchange's stream fault at token `index` (drop, end, or `sendError` then end); true when it cut the reply. */
export function cutStreamAt(exchange: MockExchange, index: number, sendError: (message: string | undefined) => void): boolean {
  const { fault, response } = exchange;
  if (fault?.dropAfterTokens === index) response.socket?.destroy();
  else if (fault?.endAfterTokens === index) response.end();
  else if (fault?.errorAfterTokens === index) {
    sendError(fault.message);
    response.end();
  } else return false;
  return true;
}

/** Writes `text` to the streaming reply unless the client is gone; false when it is. */
export function writeChunk(exchange: MockExchange, text: string): boolean {
  if (exchange.gone || exchange.response.destroyed) return false;
  exchange.response.write(text);
  return true;
}
