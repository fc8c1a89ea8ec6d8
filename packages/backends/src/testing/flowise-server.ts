import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { ChatMessage } from "@afw/contracts";
import { answerFor, cutStreamAt, defaultNodeParams, padReply, sendJson, startMockServer, writeChunk } from "./mock-server.js";
import type { MockExchange, MockFlowDefinition, MockPlatform, MockPlatformServer, MockRoute, MockServerOptions, MockState } from "./mock-server.js";

/** Options of {@link startFlowiseServer}. */
export interface FlowiseServerOptions extends MockServerOptions {
  /**
   * Honour `page`/`limit` on `GET /api/v1/chatflows` with a `{data, total}` reply, as Flowise 3.x
   * does (default true). False emulates an older Flowise that always answers the whole array.
   */
  paginate?: boolean;
  /** Write a `:heartbeat` comment after every N streamed tokens (Flowise sends one every 30 s). */
  heartbeatEveryTokens?: number;
  /**
   * Never answer a streaming prediction of an unknown chatflow, as Flowise 3.1.2 does (its error
   * handler skips streaming requests). Default true; false answers the 404 instead.
   */
  hangOnUnknownStreamingFlow?: boolean;
}

const PREFIX = "/api/v1";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function bearer(headers: IncomingHttpHeaders): string | undefined {
  const value = headers["authorization"];
  const match = typeof value === "string" ? /^Bearer\s+(.+)$/i.exec(value.trim()) : null;
  return match?.[1];
}

/** Flowise's error body: `{statusCode, success: false, message, stack}` (stack is `{}` outside development). */
function flowiseError(statusCode: number, message: string) {
  return { statusCode, success: false, message, stack: {} };
}

function frame(event: string, data: unknown): string {
  // Flowise 3.1.2 writes "message:\ndata:{json}\n\n" for every event (recorded in
  // src/__fixtures__/flowise-prediction-stream.json); older versions wrote "message\ndata:" for
  // end, error and abort — the adapter's parser accepts both.
  return `message:\ndata:${JSON.stringify({ event, data })}\n\n`;
}

/** Param names of a node the chatflow's API override setting enables. */
function enabledParams(flow: MockFlowDefinition, node: { params: Record<string, unknown> }): string[] {
  if (flow.overridable === false) return [];
  const names = Object.keys(node.params);
  return Array.isArray(flow.overridable) ? names.filter((name) => (flow.overridable as string[]).includes(name)) : names;
}

/**
 * Flowise's `replaceInputsWithConfig`: only params enabled for override change, falsy values are
 * skipped; the model node then parses a numeric string (`parseFloat`/`parseInt`) into a number.
 */
function applyOverrides(flow: MockFlowDefinition, overrideConfig: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const params = defaultNodeParams(flow);
  const parsed = (existing: unknown, value: unknown) => (typeof existing === "number" && typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : value);
  for (const [key, value] of Object.entries(overrideConfig)) {
    if (key === "sessionId" || key === "vars" || key === "analytics") continue;
    for (const node of flow.nodes ?? []) {
      const effective = params[node.id];
      if (!effective || !(key in effective) || !enabledParams(flow, node).includes(key)) continue;
      const nodeValue = value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>)[node.id] : value;
      if (!nodeValue) continue; // Flowise: `if (overrideConfigValue)` — 0, "" and false never apply
      effective[key] = parsed(effective[key], nodeValue);
    }
  }
  return params;
}

function chatflowRecord(flow: MockFlowDefinition) {
  const nodes = (flow.nodes ?? []).map((node, index) => ({
    id: node.id,
    position: { x: 100 * index, y: 100 },
    type: "customNode",
    data: { id: node.id, label: node.label ?? node.name ?? node.id, name: node.name ?? node.id, category: node.category ?? "Chat Models", inputs: node.params },
  }));
  const edges: Array<Record<string, string>> = [];
  if (flow.memory !== false) {
    nodes.push({
      id: "bufferMemory_0",
      position: { x: 0, y: 300 },
      type: "customNode",
      data: { id: "bufferMemory_0", label: "Buffer Memory", name: "bufferMemory", category: "Memory", inputs: { sessionId: "", memoryKey: "chat_history" } },
    });
    const target = nodes[0]?.id ?? "conversationChain_0";
    edges.push({ id: `bufferMemory_0-${target}`, source: "bufferMemory_0", target, sourceHandle: "bufferMemory_0-output-bufferMemory-BufferMemory", targetHandle: `${target}-input-memory-BaseMemory` });
  }
  const overrideNodes: Record<string, Array<{ label: string; name: string; type: string; enabled: boolean }>> = {};
  for (const node of flow.nodes ?? []) {
    const enabled = enabledParams(flow, node);
    overrideNodes[node.label ?? node.name ?? node.id] = Object.keys(node.params).map((name) => ({ label: name, name, type: typeof node.params[name], enabled: enabled.includes(name) }));
  }
  const now = new Date(0).toISOString();
  return {
    id: flow.id,
    name: flow.name,
    flowData: JSON.stringify({ nodes, edges, viewport: { x: 0, y: 0, zoom: 1 } }),
    deployed: flow.deployed ?? false,
    isPublic: false,
    apikeyid: flow.apiKey ? `apikey-${flow.id.slice(0, 8)}` : null,
    chatbotConfig: null,
    apiConfig: flow.overridable === false ? null : JSON.stringify({ overrideConfig: { status: true, nodes: overrideNodes, variables: [] } }),
    analytic: null,
    speechToText: null,
    textToSpeech: null,
    followUpPrompts: null,
    category: flow.tags?.length ? flow.tags.join(";") : null,
    type: flow.type ?? "CHATFLOW",
    workspaceId: "mock-workspace",
    createdDate: now,
    updatedDate: now,
  };
}

const flowisePlatform = (options: FlowiseServerOptions): MockPlatform => ({
  kind: "flowise",
  classify(method, path) {
    if (path === `${PREFIX}/ping`) return { route: "health" };
    if (path === `${PREFIX}/version`) return { route: "version" };
    if (path === `${PREFIX}/chatflows` && method === "GET") return { route: "list" };
    const prediction = new RegExp(`^${PREFIX}/prediction/([^/]+)$`).exec(path);
    if (prediction) return { route: "run", flowId: decodeURIComponent(prediction[1] ?? "") };
    const streaming = new RegExp(`^${PREFIX}/chatflows-streaming/([^/]+)$`).exec(path);
    if (streaming) return { route: "streaming-check", flowId: decodeURIComponent(streaming[1] ?? "") };
    return { route: "other" };
  },
  sendError(exchange, status, message, headers = {}) {
    if (status === 401 && exchange.record.route !== "run") {
      sendJson(exchange.response, 401, { error: "Unauthorized Access" }, headers);
      return;
    }
    sendJson(exchange.response, status, flowiseError(status, message), headers);
  },
  wrongShape(route: MockRoute) {
    if (route === "list") return { chatflows: "not-a-list" };
    if (route === "run") return { text: 42, chatId: ["x"] };
    if (route === "streaming-check") return { streaming: "yes" };
    return { unexpected: true };
  },
  authKeyOf(headers) {
    return bearer(headers);
  },
  async handle(exchange, state) {
    const { record, response } = exchange;
    const serverKey = state.options.apiKey;
    const authorized = !serverKey || bearer(record.headers) === serverKey;
    switch (record.route) {
      case "health":
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("pong");
        return;
      case "version":
        sendJson(response, 200, { version: state.options.version ?? "3.1.2" });
        return;
      case "streaming-check": {
        const flow = state.flows.find((candidate) => candidate.id === record.flowId);
        if (!flow) {
          // Flowise wraps the lookup failure into a 500 (recorded: __fixtures__/flowise-chatflows-streaming-unknown.json).
          sendJson(response, 500, flowiseError(500, `Error: chatflowsService.checkIfChatflowIsValidForStreaming - Chatflow ${record.flowId} not found`));
          return;
        }
        sendJson(response, 200, { isStreaming: flow.streaming !== false });
        return;
      }
      case "list": {
        if (!authorized) {
          sendJson(response, 401, { error: "Unauthorized Access" });
          return;
        }
        const type = record.query["type"];
        let flows = state.flows;
        if (type === "CHATFLOW") flows = flows.filter((flow) => (flow.type ?? "CHATFLOW") === "CHATFLOW");
        else if (type) flows = flows.filter((flow) => flow.type === type);
        const all = flows.map(chatflowRecord);
        const page = Number(record.query["page"]);
        const limit = Number(record.query["limit"] ?? options.pageSize);
        if (options.paginate !== false && page > 0 && limit > 0) {
          const size = Math.min(limit, options.pageSize ?? limit);
          sendJson(response, 200, padReply({ data: all.slice((page - 1) * size, page * size), total: all.length }, exchange.fault?.oversizeBytes));
          return;
        }
        sendJson(response, 200, all);
        return;
      }
      case "run":
        await predict(exchange, state, options);
        return;
      default:
        if (record.path.startsWith(PREFIX) && !authorized) {
          sendJson(response, 401, { error: "Unauthorized Access" });
          return;
        }
        response.writeHead(404, { "content-type": "text/html; charset=utf-8" }).end(`<pre>Cannot ${record.method} ${record.path}</pre>`);
    }
  },
});

async function predict(exchange: MockExchange, state: MockState, options: FlowiseServerOptions): Promise<void> {
  const { record, response } = exchange;
  if (record.method !== "POST") {
    response.writeHead(404, { "content-type": "text/html; charset=utf-8" }).end(`<pre>Cannot ${record.method} ${record.path}</pre>`);
    return;
  }
  const flow = state.flows.find((candidate) => candidate.id === record.flowId);
  const body = (record.body && typeof record.body === "object" ? record.body : {}) as Record<string, unknown>;
  const wantsStream = body["streaming"] === true || body["streaming"] === "true";
  if (!flow) {
    if (!UUID.test(record.flowId ?? "")) {
      sendJson(response, 400, flowiseError(400, "Invalid Chatflow ID"));
      return;
    }
    if (wantsStream && options.hangOnUnknownStreamingFlow !== false) {
      // Flowise 3.1.2's error handler skips streaming requests: this one is never answered.
      await exchange.hang();
      return;
    }
    sendJson(response, 404, flowiseError(404, `Chatflow ${record.flowId} not found in the database!`));
    return;
  }
  const streams = wantsStream && flow.streaming !== false;
  const overrideConfig = (body["overrideConfig"] && typeof body["overrideConfig"] === "object" ? body["overrideConfig"] : {}) as Record<string, unknown>;
  const sessionId = typeof overrideConfig["sessionId"] === "string" ? (overrideConfig["sessionId"] as string) : undefined;
  const chatId = typeof body["chatId"] === "string" ? (body["chatId"] as string) : (sessionId ?? randomUUID());

  const unauthorized = flow.apiKey !== undefined && bearer(record.headers) !== flow.apiKey;
  const question = typeof body["question"] === "string" ? (body["question"] as string) : undefined;
  const failure = unauthorized ? "Error: predictionsServices.buildChatflow - Unauthorized" : question === undefined ? "Error: predictionsServices.buildChatflow - Question is required" : undefined;

  if (streams) {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", "x-accel-buffering": "no" });
    response.flushHeaders();
    if (failure) {
      writeChunk(exchange, frame("error", failure));
      writeChunk(exchange, frame("end", "[DONE]"));
      response.end();
      return;
    }
  } else if (failure) {
    sendJson(response, 500, flowiseError(500, failure));
    return;
  }

  // Flowise: the memory node loads the session's messages and prepends the request's `history`.
  const prepended: ChatMessage[] = Array.isArray(body["history"])
    ? (body["history"] as Array<Record<string, unknown>>).map((message) => ({
        role: message["role"] === "userMessage" ? ("user" as const) : ("assistant" as const),
        content: String(message["content"] ?? ""),
      }))
    : [];
  const remembered = flow.memory === false ? [] : (state.memory.get(`${flow.id}|${sessionId ?? chatId}`) ?? []);
  const history: ChatMessage[] = [...prepended, ...remembered];
  const nodeParams = applyOverrides(flow, overrideConfig);
  const answer = answerFor(flow, { flow, question: question ?? "", sessionId, history, nodeParams, streaming: streams });
  state.runs.push({ flowId: flow.id, question: question ?? "", sessionId, history, nodeParams, streaming: streams, answer: answer.text, uploads: Array.isArray(body["uploads"]) ? body["uploads"] : [] });
  const memoryKey = `${flow.id}|${sessionId ?? chatId}`;
  state.memory.set(memoryKey, [...(state.memory.get(memoryKey) ?? []), { role: "user", content: question ?? "" }, { role: "assistant", content: answer.text }]);

  const chatMessageId = randomUUID();
  const usageMetadata = answer.usage ? { input_tokens: answer.usage.promptTokens, output_tokens: answer.usage.completionTokens, total_tokens: answer.usage.promptTokens + answer.usage.completionTokens } : undefined;
  const sourceDocuments = answer.sources?.map((source) => ({ pageContent: source.pageContent, metadata: source.metadata ?? {} }));
  const isAgentflow = flow.type === "AGENTFLOW" || flow.replyShape === "agentflow";
  const executed = [
    { nodeId: "startAgentflow_0", nodeLabel: "Start", data: { id: "startAgentflow_0", name: "startAgentflow", input: { question }, output: { question } }, previousNodeIds: [], status: "FINISHED" },
    {
      nodeId: "llmAgentflow_0",
      nodeLabel: "LLM",
      data: { id: "llmAgentflow_0", name: "llmAgentflow", input: { messages: [{ role: "user", content: question }] }, output: { content: answer.text, ...(usageMetadata ? { usageMetadata } : {}) } },
      previousNodeIds: ["startAgentflow_0"],
      status: "FINISHED",
    },
  ];

  if (!streams) {
    const base: Record<string, unknown> = { question, chatId, chatMessageId, isStreamValid: false, sessionId: sessionId ?? chatId, ...(flow.memory === false ? {} : { memoryType: "Buffer Memory" }) };
    let reply: Record<string, unknown>;
    if (flow.replyShape === "json") reply = { ...base, json: { answer: answer.text } };
    else if (flow.replyShape === "agentflow") reply = { ...base, executionId: randomUUID(), agentFlowExecutedData: executed };
    else reply = { ...base, text: answer.text, ...(isAgentflow ? { executionId: randomUUID(), agentFlowExecutedData: executed } : {}) };
    if (sourceDocuments) reply["sourceDocuments"] = sourceDocuments;
    if (usageMetadata && !isAgentflow) reply["usageMetadata"] = usageMetadata;
    sendJson(response, 200, padReply(reply, exchange.fault?.oversizeBytes));
    return;
  }

  const fault = exchange.fault;
  if (isAgentflow) writeChunk(exchange, frame("agentFlowEvent", "INPROGRESS"));
  for (const [index, token] of answer.tokens.entries()) {
    const cut = cutStreamAt(exchange, index, (message) => {
      writeChunk(exchange, frame("error", message ?? "Error: predictionsServices.buildChatflow - 500 upstream model error"));
      writeChunk(exchange, frame("end", "[DONE]"));
    });
    if (cut) return;
    if (fault?.stallAfterTokens === index) {
      await exchange.hang();
      return;
    }
    if (index === 0) writeChunk(exchange, frame("start", token));
    if (!writeChunk(exchange, frame("token", token))) return;
    if (options.heartbeatEveryTokens && (index + 1) % options.heartbeatEveryTokens === 0) writeChunk(exchange, ":heartbeat\n\n");
    if (state.tokenDelayMs > 0 && !(await exchange.sleep(state.tokenDelayMs))) return;
  }
  if (sourceDocuments) writeChunk(exchange, frame("sourceDocuments", sourceDocuments));
  if (isAgentflow) {
    writeChunk(exchange, frame("agentFlowExecutedData", executed));
    writeChunk(exchange, frame("agentFlowEvent", "FINISHED"));
  }
  if (usageMetadata) writeChunk(exchange, frame("usageMetadata", usageMetadata));
  writeChunk(exchange, frame("metadata", { chatId, chatMessageId, question, sessionId: sessionId ?? chatId, ...(flow.memory === false ? {} : { memoryType: "Buffer Memory" }) }));
  writeChunk(exchange, frame("end", "[DONE]"));
  response.end();
}

/**
 * Starts a local reproduction of Flowise 3.x on 127.0.0.1 (free port): `/api/v1/ping`,
 * `/api/v1/version`, `/api/v1/chatflows` (Bearer auth, `{data,total}` pages),
 * `/api/v1/chatflows-streaming/{id}`, `/api/v1/prediction/{id}` (JSON or Flowise's SSE), its
 * auth quirks (prediction public unless the flow has a key: then 500 "…Unauthorized"; other
 * routes 401 `{"error":"Unauthorized Access"}`) and error bodies, with fault injection.
 *
 * @example
 * ```ts
 * const server = await startFlowiseServer({ apiKey: "key", flows: [{ id: "0b6e…", name: "Docs QA", answer: "42" }] });
 * const backend = createFlowiseBackend({ id: "flowise", baseURL: server.url, apiKey: "key" });
 * await backend.execute({ flowId: "0b6e…", question: "?" }); // { text: "42", … }
 * await server.close();
 * ```
 */
export function startFlowiseServer(options: FlowiseServerOptions = {}): Promise<MockPlatformServer> {
  return startMockServer(flowisePlatform(options), options);
}
