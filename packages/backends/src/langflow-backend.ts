import { z } from "zod";
import { BackendError, parseOrThrow, type BackendHealth, type FlowBackendV1, type FlowExecutionRequest, type FlowExecutionResult, type FlowStreamChunk, type UniversalFlow } from "@afw/contracts";
import { type AdapterBackend, adapterBase, PAGE_SIZE, elapsedMs, HEALTH_BODY_BYTES, historyTranscript, mappingFor } from "./adapter-common.js";
import { MAX_RESPONSE_BYTES, midStreamError, parseExecutionRequest, placeParameter, readEnv, readFrames } from "./adapter-common.js";
import { badResponse, errorFromStreamEvent, type ErrorContext } from "./error-mapping.js";
import { iterateBody, type OpenResponse } from "./http-client.js";
import { JsonStreamParser } from "./json-stream-parser.js";
import { extractLangflowAnswer, LangflowFlowListSchema, LangflowHealthSchema, LangflowRunResponseSchema } from "./langflow-reply.js";
import type { LangflowFlow, LangflowRunResponse } from "./langflow-reply.js";
import { asRecord, findUsage, nodeHints, nonEmptyString, StreamEventSchema } from "./reply-utils.js";
import { BaseBackendSettingsSchema } from "./settings.js";
import type { DiscoveredFlow } from "./universal-flow.js";

/** Zod schema of {@link LangflowBackendSettings}. */
export const LangflowBackendSettingsSchema = BaseBackendSettingsSchema;

/** Settings of {@link createLangflowBackend}. */
export type LangflowBackendSettings = z.input<typeof LangflowBackendSettingsSchema>;

/** A Langflow backend: {@link FlowBackendV1} with its base URL and a required `stream`. */
export type LangflowBackend = AdapterBackend<"langflow">;

function toDiscovered(flow: LangflowFlow): DiscoveredFlow {
  const hints = nodeHints(asRecord(flow.data)?.["nodes"], (data) => {
    const inner = asRecord(data?.["node"]);
    return [data?.["type"], inner?.["display_name"], inner?.["category"]];
  });
  return {
    backendFlowId: flow.id,
    name: flow.name ?? flow.id,
    description: flow.description ?? undefined,
    tags: flow.tags ?? [],
    flowType: hints.some((hint) => /agent/i.test(hint)) ? "AGENT" : "FLOW",
    nodeHints: hints,
    metadata: {
      ...(flow.endpoint_name ? { endpointName: flow.endpoint_name } : {}),
      ...(flow.folder_id ? { folderId: flow.folder_id } : {}),
      ...(flow.updated_at !== undefined ? { updatedAt: flow.updated_at } : {}),
      ...(flow.webhook !== undefined && flow.webhook !== null ? { webhook: flow.webhook } : {}),
    },
  };
}

/**
 * Creates a Langflow (1.x) adapter implementing {@link FlowBackendV1}.
 * @throws AfwError `CONFIG_INVALID` when the settings are invalid.
 */
export function createLangflowBackend(settings: LangflowBackendSettings): LangflowBackend {
  const config = parseOrThrow(LangflowBackendSettingsSchema, settings, "CONFIG_INVALID", "langflow backend settings");
  const apiKey = config.apiKey ?? readEnv("LANGFLOW_API_KEY");
  const base = adapterBase(config, "langflow", apiKey, { "x-api-key": apiKey ?? "" });
  const { http, identity, flowCall, readJson } = base;

  function runBody(request: FlowExecutionRequest): Record<string, unknown> {
    const tweaks: Record<string, unknown> = { ...(request.parameters?.overrides ?? {}) };
    const mapping = mappingFor(config.flows[request.flowId], config.defaultParameterMapping);
    if (request.parameters?.temperature !== undefined && mapping.temperature) placeParameter(mapping.temperature, request.parameters.temperature, tweaks, true);
    if (request.parameters?.maxTokens !== undefined && mapping.maxTokens) placeParameter(mapping.maxTokens, request.parameters.maxTokens, tweaks, true);
    if (request.history?.length && mapping.history) placeParameter(mapping.history, historyTranscript(request.history), tweaks, true);
    return {
      input_value: request.question,
      input_type: "chat",
      output_type: "chat",
      // Without a session_id Langflow files the run under the flow id: one memory shared by every
      // session-less caller. A fresh id keeps such runs apart (and free of others' history).
      session_id: request.sessionId ?? `afw-${globalThis.crypto.randomUUID()}`,
      ...(Object.keys(tweaks).length > 0 ? { tweaks } : {}),
    };
  }

  /**
   * Which parameters were sent: Langflow applies a tweak to whatever component has that input (no
   * per-flow permission to read), so a mapped parameter is `unverified`; an unmapped one is not sent.
   */
  function deliveryOf(request: FlowExecutionRequest): FlowExecutionResult["delivery"] {
    const mapping = mappingFor(config.flows[request.flowId], config.defaultParameterMapping);
    const parameters = { applied: [] as string[], ignored: [] as Array<{ parameter: string; reason: string }>, unverified: [] as string[] };
    for (const name of ["temperature", "maxTokens"] as const) {
      if (request.parameters?.[name] === undefined) continue;
      if (mapping[name]) parameters.unverified.push(name);
      else parameters.ignored.push({ parameter: name, reason: "no parameterMapping names the Langflow component and input to tweak" });
    }
    return parameters.unverified.length + parameters.ignored.length > 0 ? { parameters } : undefined;
  }

  function toResult(reply: LangflowRunResponse, request: FlowExecutionRequest, started: number, context: ErrorContext, streamedText?: string): FlowExecutionResult {
    const delivery = deliveryOf(request);
    const answer = extractLangflowAnswer(reply);
    const text = streamedText ?? answer?.text;
    if (text === undefined) throw badResponse("reply carries no answer text", context, 200);
    const usage = findUsage(reply.outputs);
    return {
      text,
      backendId: config.id,
      flowId: request.flowId,
      sessionId: request.sessionId === undefined ? undefined : (reply.session_id ?? request.sessionId),
      messageId: answer?.messageId,
      sources: [],
      ...(usage ? { usage } : {}),
      latencyMs: elapsedMs(started),
      ...(delivery ? { delivery } : {}),
      raw: reply,
    };
  }

  async function execute(request: FlowExecutionRequest, signal?: AbortSignal): Promise<FlowExecutionResult> {
    const parsed = parseExecutionRequest(request);
    const started = performance.now();
    const call = { ...flowCall("execute", `/api/v1/run/${encodeURIComponent(parsed.flowId)}`, parsed, runBody(parsed), signal), query: { stream: false } };
    const { data } = await http.requestJson(call, LangflowRunResponseSchema, MAX_RESPONSE_BYTES);
    return toResult(data, parsed, started, http.context("execute", parsed.flowId));
  }

  async function* readEvents(open: OpenResponse, request: FlowExecutionRequest, started: number): AsyncGenerator<FlowStreamChunk> {
    const context = open.context;
    const parser = new JsonStreamParser();
    const tokens: string[] = [];
    let lastMachineMessage: string | undefined;
    let messageId: string | undefined;
    let final: FlowExecutionResult | undefined;

    const handle = function* (value: unknown): Generator<FlowStreamChunk> {
      const parsedEvent = StreamEventSchema.safeParse(value);
      if (!parsedEvent.success) throw badResponse("stream object without an event name", context, 200);
      const { event, data } = parsedEvent.data;
      const record = asRecord(data);
      switch (event) {
        case "token": {
          const chunk = typeof record?.["chunk"] === "string" ? (record["chunk"] as string) : undefined;
          if (chunk) {
            tokens.push(chunk);
            yield { type: "token", text: chunk };
          }
          return;
        }
        case "add_message": {
          const sender = String(record?.["sender"] ?? "");
          const text = typeof record?.["text"] === "string" ? (record["text"] as string) : undefined;
          if (sender !== "User" && text !== undefined) {
            lastMachineMessage = text;
            messageId = nonEmptyString(record?.["id"]) ?? messageId;
          }
          yield { type: "event", name: event, data };
          return;
        }
        case "error":
          throw errorFromStreamEvent(data, context);
        case "end": {
          const endReply = record?.["result"];
          const streamed = tokens.length > 0 ? tokens.join("") : undefined;
          if (endReply !== undefined && endReply !== null) {
            const reply = LangflowRunResponseSchema.safeParse(endReply);
            if (!reply.success) throw badResponse("end event carries an unexpected result", context, 200);
            final = toResult(reply.data, request, started, context, streamed ?? lastMachineMessage);
          } else {
            const text = streamed ?? lastMachineMessage;
            if (text === undefined) throw badResponse("stream ended without an answer", context, 200);
            final = { text, backendId: config.id, flowId: request.flowId, sessionId: request.sessionId, sources: [], latencyMs: elapsedMs(started), raw: data };
          }
          if (final.messageId === undefined && messageId !== undefined) final = { ...final, messageId };
          return;
        }
        default:
          // end_vertex, build_start, build_end, log, vertices_sorted, remove_message, …
          yield { type: "event", name: event, data };
      }
    };

    try {
      const frames = { push: (chunk: Uint8Array) => parser.push(chunk), finish: () => parser.finish().values };
      yield* readFrames(iterateBody(open, config.timeouts.requestTimeoutMs, MAX_RESPONSE_BYTES), frames, handle, () => final !== undefined);
    } catch (error) {
      if (error instanceof SyntaxError) throw badResponse("stream carries invalid JSON", context, 200, error);
      throw error;
    }
    if (!final) throw midStreamError(identity, request.flowId, `stream of flow ${request.flowId} closed before its end event`, { tokensReceived: tokens.length });
    yield { type: "end", result: final };
  }

  async function* stream(request: FlowExecutionRequest, signal?: AbortSignal): AsyncGenerator<FlowStreamChunk> {
    const parsed = parseExecutionRequest(request);
    const started = performance.now();
    const call = flowCall("stream", `/api/v1/run/${encodeURIComponent(parsed.flowId)}`, parsed, runBody(parsed), signal);
    const open = await http.open({ ...call, query: { stream: true }, headers: { accept: "text/event-stream, application/json" } });
    if (!open.ok) await http.throwForStatus(open);
    if ((open.header("content-type") ?? "").includes("application/json")) {
      yield { type: "end", result: toResult(await readJson(open, LangflowRunResponseSchema), parsed, started, open.context) };
      return;
    }
    yield { type: "start" };
    yield* readEvents(open, parsed, started);
  }

  async function checkHealth(signal?: AbortSignal): Promise<BackendHealth> {
    const probe = (path: string) =>
      http.requestJson({ method: "GET", path, timeoutMs: base.healthTimeoutMs, signal, operation: "health check" }, LangflowHealthSchema, HEALTH_BODY_BYTES);
    return base.health(signal, async (elapsed, version) => {
      const { data } = await probe("/health_check").catch((error: unknown) => {
        if (BackendError.isInstance(error) && error.statusCode === 404) return probe("/health"); // older Langflow has only /health
        throw error;
      });
      const latencyMs = elapsed();
      const failing = (["status", "chat", "db"] as const).filter((key) => data[key] !== undefined && data[key] !== null && data[key] !== "ok");
      if (failing.length === 0) return base.up(latencyMs, version, "health check");
      await version;
      return base.down(latencyMs, "BACKEND_UNAVAILABLE", `health check reports ${failing.map((key) => `${key}=${String(data[key])}`).join(", ")}`);
    });
  }

  async function discoverFlows(signal?: AbortSignal): Promise<UniversalFlow[]> {
    const query = { remove_example_flows: true, components_only: false, header_flows: false };
    // get_all=true answers one array; a server that pages anyway answers {items,total,page,size,pages}: then follow its
    // pages with the size it chose.
    return base.discover(
      async (next: { page: number; size: number } | undefined, received) => {
        const data = await base.listing("/api/v1/flows/", next ? { ...query, get_all: false, ...next } : { ...query, get_all: true }, LangflowFlowListSchema, signal);
        if (Array.isArray(data)) return { items: data };
        const done = received + data.items.length >= data.total || data.page >= data.pages;
        return { items: data.items, next: done ? undefined : { page: data.page + 1, size: data.size || PAGE_SIZE } };
      },
      (flow: LangflowFlow) => (flow.is_component === true ? undefined : toDiscovered(flow)),
    );
  }

  return base.backend({ checkHealth, discoverFlows, execute, stream });
}
