import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { gzipSync } from "node:zlib";
import type { ChatMessage } from "@afw/contracts";
import { answerFor, cutStreamAt, defaultNodeParams, padReply, sendJson, startMockServer, writeChunk } from "./mock-server.js";
import type { MockExchange, MockFlowDefinition, MockPlatform, MockPlatformServer, MockRoute, MockServerOptions, MockState } from "./mock-server.js";

/** Options of {@link startLangflowServer}. */
export interface LangflowServerOptions extends MockServerOptions {
  /**
   * `all` (default) honours `get_all=true` with one array, as Langflow does; `paged` always
   * answers `{items,total,page,size,pages}` pages of `pageSize`.
   */
  listMode?: "all" | "paged";
  /** Gzip the flow listing as Langflow's `compress_response` does (default true). */
  gzipListing?: boolean;
  /** Serve `/health_check` (default true); false emulates an older Langflow with only `/health`. */
  healthCheckRoute?: boolean;
}

/** Serialises like Python's `json.dumps` (", " and ": " separators, non-ASCII escaped). */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
  if (typeof value === "number" || typeof value === "boolean") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(", ")}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
  return `{${entries.map(([key, item]) => `${pythonJson(key)}: ${pythonJson(item)}`).join(", ")}}`;
}

function apiKeyOf(headers: IncomingHttpHeaders, query: Record<string, string>): string | undefined {
  const header = headers["x-api-key"];
  return (typeof header === "string" ? header : undefined) ?? query["x-api-key"];
}

function componentId(flow: MockFlowDefinition, kind: string): string {
  return `${kind}-${flow.id.replace(/[^a-zA-Z0-9]/g, "").slice(0, 5)}`;
}

function flowRecord(flow: MockFlowDefinition) {
  const nodes = [
    { id: componentId(flow, "ChatInput"), type: "genericNode", data: { id: componentId(flow, "ChatInput"), type: "ChatInput", node: { display_name: "Chat Input", template: {} } } },
    ...(flow.nodes ?? []).map((node) => ({
      id: node.id,
      type: "genericNode",
      data: {
        id: node.id,
        type: node.name ?? node.id.split("-")[0],
        node: { display_name: node.label ?? node.name ?? node.id, category: node.category, template: Object.fromEntries(Object.entries(node.params).map(([key, value]) => [key, { value }])) },
      },
    })),
    { id: componentId(flow, "ChatOutput"), type: "genericNode", data: { id: componentId(flow, "ChatOutput"), type: "ChatOutput", node: { display_name: "Chat Output", template: {} } } },
  ];
  return {
    name: flow.name,
    description: flow.description ?? null,
    icon: null,
    icon_bg_color: null,
    gradient: null,
    data: { nodes, edges: [], viewport: { x: 0, y: 0, zoom: 1 } },
    is_component: flow.isComponent ?? false,
    updated_at: new Date(0).toISOString(),
    webhook: false,
    endpoint_name: flow.endpointName ?? null,
    tags: flow.tags ?? [],
    locked: false,
    mcp_enabled: false,
    action_name: null,
    action_description: null,
    access_type: "PRIVATE",
    id: flow.id,
    user_id: "00000000-0000-4000-8000-000000000001",
    folder_id: flow.folderId ?? "00000000-0000-4000-8000-0000000000f0",
  };
}

function applyTweaks(flow: MockFlowDefinition, tweaks: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const params = defaultNodeParams(flow);
  for (const [key, value] of Object.entries(tweaks)) {
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const node = params[key] ?? Object.entries(params).find(([id]) => flow.nodes?.find((candidate) => candidate.id === id)?.label === key)?.[1];
      if (node) Object.assign(node, value);
    } else {
      // A bare {param: value} tweak applies to every component that has the param.
      for (const node of Object.values(params)) if (key in node) node[key] = value;
    }
  }
  return params;
}

function message(flow: MockFlowDefinition, sessionId: string, sender: "User" | "Machine", text: string, id: string) {
  return {
    timestamp: new Date().toISOString().replace("T", " ").replace("Z", " UTC"),
    sender,
    sender_name: sender === "User" ? "User" : "AI",
    session_id: sessionId,
    text,
    files: [],
    error: false,
    edit: false,
    properties: { text_color: "", background_color: "", edited: false, source: { id: null, display_name: null, source: null }, icon: "", allow_markdown: false, positive_feedback: null, state: "complete", targets: [] },
    category: "message",
    content_blocks: [],
    id,
    flow_id: flow.id,
    duration: null,
  };
}

function runResponse(flow: MockFlowDefinition, question: string, sessionId: string, text: string, messageId: string, usage: { promptTokens: number; completionTokens: number } | undefined) {
  const chatOutput = componentId(flow, "ChatOutput");
  const fullMessage = {
    text_key: "text",
    data: { timestamp: new Date().toISOString(), sender: "Machine", sender_name: "AI", session_id: sessionId, text, files: [], error: false, edit: false, category: "message", content_blocks: [], id: messageId, flow_id: flow.id },
    default_value: "",
    ...message(flow, sessionId, "Machine", text, messageId),
    ...(usage ? { properties: { usage: { input_tokens: usage.promptTokens, output_tokens: usage.completionTokens, total_tokens: usage.promptTokens + usage.completionTokens } } } : {}),
  };
  const shape = flow.replyShape ?? "full";
  const result: Record<string, unknown> = {
    results: shape === "full" ? { message: fullMessage } : {},
    artifacts: shape === "messages" ? {} : { message: text, sender: "Machine", sender_name: "AI", files: [], type: "object" },
    outputs: shape === "full" ? { message: { message: text, type: "text" } } : {},
    logs: { message: [] },
    messages: shape === "artifacts" ? [] : [{ message: text, sender: "Machine", sender_name: "AI", session_id: sessionId, stream_url: null, component_id: chatOutput, files: [], type: "text" }],
    timedelta: null,
    duration: null,
    component_display_name: "Chat Output",
    component_id: chatOutput,
    used_frozen_result: false,
  };
  return { session_id: sessionId, outputs: [{ inputs: { input_value: question }, outputs: [result] }] };
}

/** FastAPI's 500 from Langflow's APIException: `detail` is a JSON *string*. */
function apiExceptionDetail(messageText: string): string {
  return JSON.stringify({
    message: messageText,
    traceback: 'Traceback (most recent call last):\n  File "/app/langflow/api/v1/endpoints.py", line 1, in simplified_run_flow\nValueError: secret-internal-detail',
    description: messageText,
    code: "500",
    suggestion: "Check the flow's components.",
  });
}

const langflowPlatform = (options: LangflowServerOptions): MockPlatform => ({
  kind: "langflow",
  classify(method, path) {
    if (path === "/health" || path === "/health_check") return { route: "health" };
    if (path === "/api/v1/version") return { route: "version" };
    if ((path === "/api/v1/flows/" || path === "/api/v1/flows") && method === "GET") return { route: "list" };
    const run = /^\/api\/v1\/run\/([^/]+)$/.exec(path);
    if (run) return { route: "run", flowId: decodeURIComponent(run[1] ?? "") };
    return { route: "other" };
  },
  sendError(exchange, status, messageText, headers = {}) {
    const detail = status === 500 && exchange.record.route === "run" ? apiExceptionDetail(messageText) : messageText;
    sendJson(exchange.response, status, { detail }, headers);
  },
  wrongShape(route: MockRoute) {
    if (route === "list") return { flows: 3 };
    if (route === "run") return { session_id: "s", outputs: "none" };
    if (route === "health") return { healthy: true };
    return { unexpected: true };
  },
  authKeyOf(headers, query) {
    return apiKeyOf(headers, query);
  },
  async handle(exchange, state) {
    const { record, response } = exchange;
    const serverKey = state.options.apiKey;
    const presented = apiKeyOf(record.headers, record.query);
    const authError = !serverKey ? undefined : presented === undefined ? "An API key must be passed as query or header" : presented !== serverKey ? "Invalid or missing API key" : undefined;
    switch (record.route) {
      case "health":
        if (record.path === "/health_check") {
          if (options.healthCheckRoute === false) {
            sendJson(response, 404, { detail: "Not Found" });
            return;
          }
          sendJson(response, 200, { status: "ok", chat: "ok", db: "ok" });
          return;
        }
        sendJson(response, 200, { status: "ok" });
        return;
      case "version":
        sendJson(response, 200, { version: state.options.version ?? "1.4.3", main_version: state.options.version ?? "1.4.3", package: "Langflow" });
        return;
      case "list": {
        if (authError) {
          sendJson(response, 403, { detail: authError });
          return;
        }
        const componentsOnly = record.query["components_only"] === "true";
        const getAll = record.query["get_all"] !== "false";
        // As in Langflow: folder_id only narrows the paginated form; get_all=true lists every flow.
        const folderId = getAll ? undefined : record.query["folder_id"];
        const flows = state.flows.filter((flow) => (componentsOnly ? flow.isComponent : true)).filter((flow) => !folderId || flow.folderId === folderId);
        const records = flows.map(flowRecord);
        let body: unknown;
        if (options.listMode === "paged" || !getAll) {
          const size = Number(record.query["size"]) || options.pageSize || 50;
          const page = Number(record.query["page"]) || 1;
          body = { items: records.slice((page - 1) * size, page * size), total: records.length, page, size, pages: Math.max(1, Math.ceil(records.length / size)) };
        } else {
          body = records;
        }
        const text = JSON.stringify(exchange.fault?.oversizeBytes && !Array.isArray(body) ? padReply(body as Record<string, unknown>, exchange.fault.oversizeBytes) : body);
        if (options.gzipListing === false) {
          sendJson(response, 200, text);
          return;
        }
        const compressed = gzipSync(Buffer.from(text, "utf8"), { level: 6 });
        response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip", vary: "Accept-Encoding", "content-length": compressed.length }).end(compressed);
        return;
      }
      case "run":
        if (authError) {
          sendJson(response, 403, { detail: authError });
          return;
        }
        await run(exchange, state);
        return;
      default:
        sendJson(response, 404, { detail: "Not Found" });
    }
  },
});

async function run(exchange: MockExchange, state: MockState): Promise<void> {
  const { record, response } = exchange;
  if (record.method !== "POST") {
    sendJson(response, 405, { detail: "Method Not Allowed" });
    return;
  }
  const flow = state.flows.find((candidate) => candidate.id === record.flowId || (candidate.endpointName !== undefined && candidate.endpointName === record.flowId));
  if (!flow) {
    sendJson(response, 404, { detail: `Flow identifier ${record.flowId} not found` });
    return;
  }
  const body = (record.body && typeof record.body === "object" ? record.body : {}) as Record<string, unknown>;
  const tweaks = (body["tweaks"] && typeof body["tweaks"] === "object" ? body["tweaks"] : {}) as Record<string, unknown>;
  const question = typeof body["input_value"] === "string" ? (body["input_value"] as string) : "";
  const requestedSession = typeof body["session_id"] === "string" ? (body["session_id"] as string) : undefined;
  const sessionId = requestedSession ?? flow.id;
  const wantsStream = record.query["stream"] === "true";
  const memoryKey = `${flow.id}|${sessionId}`;
  const history: ChatMessage[] = [...(state.memory.get(memoryKey) ?? [])];
  const nodeParams = applyTweaks(flow, tweaks);
  const answer = answerFor(flow, { flow, question, sessionId: requestedSession, history, nodeParams, streaming: wantsStream });
  state.runs.push({ flowId: flow.id, question, sessionId: requestedSession, history, nodeParams, streaming: wantsStream, answer: answer.text, uploads: [] });
  state.memory.set(memoryKey, [...history, { role: "user", content: question }, { role: "assistant", content: answer.text }]);
  const messageId = randomUUID();
  const reply = runResponse(flow, question, sessionId, answer.text, messageId, answer.usage);

  if (!wantsStream) {
    sendJson(response, 200, padReply(reply, exchange.fault?.oversizeBytes));
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
  response.flushHeaders();
  const send = (event: string, data: unknown) => writeChunk(exchange, `${pythonJson({ event, data })}\n\n`);
  send("add_message", message(flow, sessionId, "User", question, randomUUID()));
  const fault = exchange.fault;
  if (flow.streaming !== false) {
    send("add_message", message(flow, sessionId, "Machine", "", messageId));
    for (const [index, token] of answer.tokens.entries()) {
      if (cutStreamAt(exchange, index, (text) => send("error", { error: text ?? "Error running graph: upstream model error" }))) return;
      if (fault?.stallAfterTokens === index) {
        await exchange.hang();
        return;
      }
      if (!send("token", { chunk: token, id: messageId, timestamp: new Date().toISOString().replace("T", " ").replace("Z", " UTC") })) return;
      if (state.tokenDelayMs > 0 && !(await exchange.sleep(state.tokenDelayMs))) return;
    }
  } else if (fault?.errorAfterTokens !== undefined) {
    send("error", { error: fault.message ?? "Error running graph: upstream model error" });
    response.end();
    return;
  }
  send("add_message", message(flow, sessionId, "Machine", answer.text, messageId));
  send("end", { result: reply });
  response.end();
}

/**
 * Starts a local reproduction of Langflow 1.x on 127.0.0.1 (free port): `/health`,
 * `/health_check`, `/api/v1/version`, `/api/v1/flows/` (x-api-key, gzip, array or page object,
 * components included as Langflow does), `/api/v1/run/{id|endpoint_name}` (JSON or Langflow's
 * blank-line-separated JSON stream), FastAPI error bodies (`{"detail": …}`, 500 detail as a JSON
 * string), session memory by `session_id`, tweaks, with fault injection.
 *
 * @example
 * ```ts
 * const server = await startLangflowServer({ apiKey: "sk-test", flows: [{ id: "0b6e…", name: "Chat" }] });
 * const backend = createLangflowBackend({ id: "langflow", baseURL: server.url, apiKey: "sk-test" });
 * for await (const chunk of backend.stream({ flowId: "0b6e…", question: "Hi" })) console.log(chunk.type);
 * await server.close();
 * ```
 */
export function startLangflowServer(options: LangflowServerOptions = {}): Promise<MockPlatformServer> {
  return startMockServer(langflowPlatform(options), options);
}
