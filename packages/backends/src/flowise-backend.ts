import { z } from "zod";
import { BackendError, flowKey, parseOrThrow } from "@afw/contracts";
import type { BackendHealth, FlowBackendV1, FlowExecutionRequest, FlowExecutionResult, FlowStreamChunk, UniversalFlow } from "@afw/contracts";
import { type AdapterBackend, adapterBase, PAGE_SIZE, callTimeoutMs, createCallOutcomes, elapsedMs, HEALTH_BODY_BYTES, mappingFor } from "./adapter-common.js";
import { MAX_RESPONSE_BYTES, midStreamError, parseExecutionRequest, placeParameter, readEnv, readFrames } from "./adapter-common.js";
import { badResponse, errorFromStreamEvent, type ErrorContext } from "./error-mapping.js";
import {
  extractFlowiseText,
  FlowiseChatflowListSchema,
  FlowisePredictionSchema,
  FlowiseStreamingCheckSchema,
  createFlowiseFrameReader,
  parseFollowUpPrompts,
  type FlowisePrediction,
} from "./flowise-reply.js";
import { iterateBody, parseJsonWith, type OpenResponse } from "./http-client.js";
import { asRecord, findUsage, nonEmptyString, StreamEventSchema, toSourceDocuments } from "./reply-utils.js";
import { BaseBackendSettingsSchema, type ParameterMapping } from "./settings.js";
import { parameterVerdict, planContext, readFlowiseProfile, toDiscovered, type FlowiseFlowProfile } from "./flowise-flow-profile.js";

/** Zod schema of {@link FlowiseBackendSettings}. */
export const FlowiseBackendSettingsSchema = BaseBackendSettingsSchema;

/** Settings of {@link createFlowiseBackend}. */
export type FlowiseBackendSettings = z.input<typeof FlowiseBackendSettingsSchema>;

/** A Flowise backend: {@link FlowBackendV1} with its base URL, a required `stream` and the streaming check. */
export interface FlowiseBackend extends AdapterBackend<"flowise"> {
  /**
   * Asks `GET /api/v1/chatflows-streaming/{id}` whether a flow streams (cached per flow).
   * @throws BackendError `FLOW_NOT_FOUND` for an unknown flow, other codes when the check fails.
   */
  isStreaming(flowId: string, signal?: AbortSignal): Promise<boolean>;
}

/** Default mapping: Flowise's chat model nodes call these inputs `temperature` and `maxTokens`. */
const FLOWISE_DEFAULT_MAPPING: ParameterMapping = {
  temperature: { param: "temperature" },
  maxTokens: { param: "maxTokens" },
};

/** How long a chatflows-streaming answer is cached per flow. */
const STREAMING_CHECK_TTL_MS = 300_000;
/** Default wait for a stream's first byte (`timeouts.streamFirstByteTimeoutMs`). */
const DEFAULT_FIRST_BYTE_MS = 10_000;

/**
 * Creates a Flowise (3.x) adapter implementing {@link FlowBackendV1}.
 * @throws AfwError `CONFIG_INVALID` when the settings are invalid.
 * @example
 * ```ts
 * const flowise = createFlowiseBackend({ id: "flowise", baseURL: "http://localhost:3000" });
 * const [flow] = await flowise.discoverFlows();
 * const { text } = await flowise.execute({ flowId: flow.backendFlowId, question: "Hello", sessionId: "s1" });
 * ```
 */
export function createFlowiseBackend(settings: FlowiseBackendSettings): FlowiseBackend {
  const config = parseOrThrow(FlowiseBackendSettingsSchema, settings, "CONFIG_INVALID", "flowise backend settings");
  const apiKey = config.apiKey ?? readEnv("FLOWISE_API_KEY");
  const base = adapterBase(config, "flowise", apiKey, { authorization: `Bearer ${apiKey}` });
  const { http, identity, flowCall, readJson } = base;
  const streamingCache = new Map<string, { value: boolean; expiresAt: number }>();
  const outcomes = createCallOutcomes();

  /** What each flow's configuration says (read at discovery), and what its replies taught (`memoryType`). */
  const profiles = new Map<string, FlowiseFlowProfile | undefined>();
  const learnedMemory = new Map<string, boolean>();

  /** Whether a flow keeps its own memory of a session: from its configuration, else from its replies, else assumed not. */
  function hasMemory(flowId: string): boolean {
    return profiles.get(flowId)?.memory ?? learnedMemory.get(flowId) ?? false;
  }

  function learnFromReply(flowId: string, memoryType: unknown): void {
    if (profiles.get(flowId) === undefined && typeof memoryType === "string" && memoryType.length > 0) learnedMemory.set(flowId, true);
  }

  type Delivery = NonNullable<FlowExecutionResult["delivery"]>;

  /** A reply naming its memory type says the flow remembered this turn under the session id we sent (also when its memory was not known before). */
  function withReplyMemory(sent: { delivery: Delivery; sessionSent: boolean }, memoryType: unknown): Delivery {
    const context = sent.delivery.context;
    if (!context || context.platformMemory || !sent.sessionSent || typeof memoryType !== "string" || memoryType.length === 0) return sent.delivery;
    return { ...sent.delivery, context: { ...context, platformMemory: true } };
  }

  function predictionBody(request: FlowExecutionRequest, streaming: boolean): { body: Record<string, unknown>; delivery: Delivery; sessionSent: boolean } {
    const overrideConfig: Record<string, unknown> = { ...(request.parameters?.overrides ?? {}) };
    const context = planContext(request.history ?? [], flowKey(config.id, request.flowId), hasMemory(request.flowId));
    const sessionSent = request.sessionId !== undefined && context.sendSessionId;
    if (sessionSent) overrideConfig["sessionId"] = request.sessionId;
    const mapping = mappingFor(config.flows[request.flowId], config.defaultParameterMapping, FLOWISE_DEFAULT_MAPPING);
    const profile = profiles.get(request.flowId);
    const parameters: NonNullable<Delivery["parameters"]> = { applied: [], ignored: [], unverified: [] };
    for (const name of ["temperature", "maxTokens"] as const) {
      const value = request.parameters?.[name];
      if (value === undefined) continue;
      const target = mapping[name];
      if (!target) {
        parameters.ignored.push({ parameter: name, reason: "no parameterMapping for this flow" });
        continue;
      }
      const verdict = parameterVerdict(profile, target);
      if (verdict !== undefined && verdict !== true) {
        parameters.ignored.push({ parameter: name, reason: verdict.reason });
        continue;
      }
      (verdict === true ? parameters.applied : parameters.unverified).push(name);
      // Flowise skips falsy override values (temperature 0 would be dropped); its model nodes parse
      // their inputs with parseFloat/parseInt, so the value goes as a string.
      placeParameter(target, String(value), overrideConfig, false);
    }
    const body: Record<string, unknown> = { question: request.question, streaming };
    if (Object.keys(overrideConfig).length > 0) body["overrideConfig"] = overrideConfig;
    const history = context.history.map((message) => ({ role: message.role === "user" ? "userMessage" : "apiMessage", content: message.content }));
    if (history.length > 0) body["history"] = history;
    if (request.uploads?.length) {
      body["uploads"] = request.uploads.map((upload) => ({
        type: upload.type,
        name: upload.name,
        mime: upload.mime,
        data: upload.type === "url" || upload.data.startsWith("data:") ? upload.data : `data:${upload.mime};base64,${upload.data}`,
      }));
    }
    const requested = parameters.applied.length + parameters.ignored.length + parameters.unverified.length > 0;
    const delivery: Delivery = {
      ...(requested ? { parameters } : {}),
      context: { historyMessages: history.length, platformMemory: sessionSent && context.platformMemory },
    };
    return { body, delivery, sessionSent };
  }

  function toResult(
    reply: FlowisePrediction,
    request: FlowExecutionRequest,
    started: number,
    context: ErrorContext,
    sent: { delivery: Delivery; sessionSent: boolean },
  ): FlowExecutionResult {
    const text = extractFlowiseText(reply);
    learnFromReply(request.flowId, reply.memoryType);
    if (text === undefined) throw badResponse("reply carries no answer text", context, 200);
    const usage = findUsage(reply);
    const followUpPrompts = parseFollowUpPrompts(reply.followUpPrompts);
    return {
      text,
      backendId: config.id,
      flowId: request.flowId,
      // Without our session id Flowise answers under a fresh chat id: the session stays ours.
      sessionId: request.sessionId !== undefined && !sent.sessionSent ? request.sessionId : (reply.sessionId ?? request.sessionId),
      messageId: reply.chatMessageId ?? undefined,
      sources: toSourceDocuments(reply.sourceDocuments),
      ...(usage ? { usage } : {}),
      ...(followUpPrompts ? { followUpPrompts } : {}),
      latencyMs: elapsedMs(started),
      delivery: withReplyMemory(sent, reply.memoryType),
      raw: reply,
    };
  }

  async function execute(request: FlowExecutionRequest, signal?: AbortSignal): Promise<FlowExecutionResult> {
    try {
      const result = await predict(request, signal);
      outcomes.record();
      return result;
    } catch (error) {
      outcomes.record(error);
      throw error;
    }
  }

  async function predict(request: FlowExecutionRequest, signal?: AbortSignal): Promise<FlowExecutionResult> {
    const parsed = parseExecutionRequest(request);
    const started = performance.now();
    const sent = predictionBody(parsed, false);
    const call = flowCall("execute", `/api/v1/prediction/${encodeURIComponent(parsed.flowId)}`, parsed, sent.body, signal);
    const { data } = await http.requestJson(call, FlowisePredictionSchema, MAX_RESPONSE_BYTES).catch((error: unknown) => {
      forgetOnNotFound(error, parsed.flowId);
      throw error;
    });
    return toResult(data, parsed, started, http.context("execute", parsed.flowId), sent);
  }

  /** Forgets what is cached about a flow once the backend said it does not exist. */
  function forgetOnNotFound(error: unknown, flowId: string): void {
    if (BackendError.isInstance(error) && error.code === "FLOW_NOT_FOUND") streamingCache.delete(flowId);
  }

  async function isStreaming(flowId: string, signal?: AbortSignal, timeoutMs = config.timeouts.requestTimeoutMs): Promise<boolean> {
    const cached = streamingCache.get(flowId);
    if (cached && cached.expiresAt > Date.now()) return cached.value;
    const { data } = await http.requestJson(
      {
        method: "GET",
        path: `/api/v1/chatflows-streaming/${encodeURIComponent(flowId)}`,
        timeoutMs,
        signal,
        operation: "streaming check",
        flowId,
      },
      FlowiseStreamingCheckSchema,
      HEALTH_BODY_BYTES,
    );
    streamingCache.set(flowId, { value: data.isStreaming, expiresAt: Date.now() + STREAMING_CHECK_TTL_MS });
    return data.isStreaming;
  }

  /** A stream that stayed silent: Flowise never answers a streaming prediction of a deleted chatflow. */
  async function diagnoseSilence(error: unknown, flowId: string, firstByteMs: number, signal: AbortSignal | undefined): Promise<unknown> {
    forgetOnNotFound(error, flowId);
    if (!BackendError.isInstance(error) || error.code !== "BACKEND_TIMEOUT") return error;
    streamingCache.delete(flowId);
    try {
      await isStreaming(flowId, signal, base.healthTimeoutMs);
    } catch (probe) {
      if (BackendError.isInstance(probe) && probe.code === "FLOW_NOT_FOUND") return probe;
    }
    return new BackendError("BACKEND_TIMEOUT", `flowise backend '${config.id}': stream of flow ${flowId} sent no byte within ${firstByteMs} ms`, {
      isRetryable: true,
      backendId: config.id,
      flowId,
      details: { operation: "stream", firstByteTimeoutMs: firstByteMs },
    });
  }

  async function* readSse(
    chunks: AsyncIterable<Uint8Array>,
    open: OpenResponse,
    request: FlowExecutionRequest,
    started: number,
    sent: { delivery: Delivery; sessionSent: boolean },
  ): AsyncGenerator<FlowStreamChunk> {
    const context = open.context;
    const reader = createFlowiseFrameReader();
    const tokens: string[] = [];
    let sources: FlowExecutionResult["sources"] = [];
    const metadata: Record<string, unknown> = {};
    const extra: { agentFlowExecutedData?: unknown[]; agentReasoning?: unknown[]; usage?: unknown } = {};
    let ended = false;

    const handle = function* (frameData: string): Generator<FlowStreamChunk> {
      const { event, data } = parseJsonWith(StreamEventSchema, frameData, context, 200);
      switch (event) {
        case "start":
          return; // Flowise repeats the first token in `start`; `token` events carry the text.
        case "token":
          if (typeof data === "string" && data.length > 0) {
            tokens.push(data);
            yield { type: "token", text: data };
          }
          return;
        case "sourceDocuments": {
          sources = toSourceDocuments(data);
          yield { type: "sources", sources };
          return;
        }
        case "error":
          throw errorFromStreamEvent(data, context);
        case "abort":
          throw midStreamError(identity, request.flowId, `flow ${request.flowId} was aborted by the backend mid-stream`);
        case "end":
          ended = true;
          return;
        default:
          if (event === "metadata") Object.assign(metadata, asRecord(data) ?? {});
          if (event === "agentFlowExecutedData" && Array.isArray(data)) extra.agentFlowExecutedData = data;
          if (event === "agentReasoning" && Array.isArray(data)) extra.agentReasoning = data;
          if (event === "usageMetadata") extra.usage = data;
          // thinking, usedTools, calledTools, artifacts, agentReasoning, nextAgent, agentFlowEvent,
          // action, usageMetadata, metadata… and any event a newer Flowise adds.
          yield { type: "event", name: event, data };
      }
    };

    yield* readFrames(chunks, reader, handle, () => ended);
    if (!ended) throw midStreamError(identity, request.flowId, `stream of flow ${request.flowId} closed before its end event`, { tokensReceived: tokens.length });
    const reply: FlowisePrediction = {
      text: tokens.length > 0 ? tokens.join("") : undefined,
      chatMessageId: nonEmptyString(metadata["chatMessageId"]),
      sessionId: nonEmptyString(metadata["sessionId"]),
      memoryType: nonEmptyString(metadata["memoryType"]),
      ...(extra.agentFlowExecutedData ? { agentFlowExecutedData: extra.agentFlowExecutedData } : {}),
      ...(extra.agentReasoning ? { agentReasoning: extra.agentReasoning } : {}),
      ...(Array.isArray(metadata["followUpPrompts"]) ? { followUpPrompts: (metadata["followUpPrompts"] as unknown[]).filter((item): item is string => typeof item === "string") } : {}),
    };
    const result = toResult(reply, request, started, context, sent);
    const usage = findUsage({ usage: extra.usage }) ?? result.usage;
    yield {
      type: "end",
      result: { ...result, sources, ...(usage ? { usage } : {}), raw: { streamed: true, metadata, tokens: tokens.length } },
    };
  }

  async function* stream(request: FlowExecutionRequest, signal?: AbortSignal): AsyncGenerator<FlowStreamChunk> {
    try {
      for await (const chunk of streamPrediction(request, signal)) {
        if (chunk.type === "end") outcomes.record();
        yield chunk;
      }
    } catch (error) {
      outcomes.record(error);
      throw error;
    }
  }

  async function* streamPrediction(request: FlowExecutionRequest, signal?: AbortSignal): AsyncGenerator<FlowStreamChunk> {
    const parsed = parseExecutionRequest(request);
    const started = performance.now();
    let streams: boolean | undefined;
    try {
      streams = await isStreaming(parsed.flowId, signal);
    } catch (error) {
      if (BackendError.isInstance(error) && (error.code === "FLOW_NOT_FOUND" || error.code === "ABORTED" || error.code === "BACKEND_AUTH_FAILED")) throw error;
      streams = undefined; // unknown: ask for a stream and look at the Content-Type
    }
    if (streams === false) {
      yield { type: "end", result: await predict(parsed, signal) };
      return;
    }
    const budgetMs = callTimeoutMs(parsed.timeoutMs, config.timeouts.requestTimeoutMs);
    const firstByteMs = Math.min(config.timeouts.streamFirstByteTimeoutMs ?? DEFAULT_FIRST_BYTE_MS, budgetMs);
    const sent = predictionBody(parsed, true);
    let open: OpenResponse;
    let body: AsyncGenerator<Uint8Array, void, undefined>;
    let first: IteratorResult<Uint8Array, void>;
    try {
      open = await http.open({
        ...flowCall("stream", `/api/v1/prediction/${encodeURIComponent(parsed.flowId)}`, parsed, sent.body, signal),
        headers: { accept: "text/event-stream, application/json" },
        // A flow known to stream answers its headers at once; an unknown one may answer JSON at the end.
        timeoutMs: streams === true ? firstByteMs : budgetMs,
      });
      if (!open.ok) await http.throwForStatus(open);
      if (!(open.header("content-type") ?? "").includes("text/event-stream")) {
        yield { type: "end", result: toResult(await readJson(open, FlowisePredictionSchema), parsed, started, open.context, sent) };
        return;
      }
      body = iterateBody(open, config.timeouts.requestTimeoutMs, MAX_RESPONSE_BYTES, firstByteMs);
      first = await body.next();
    } catch (error) {
      throw await diagnoseSilence(error, parsed.flowId, firstByteMs, signal);
    }
    const firstChunk = first;
    const rest = body;
    const chunks = (async function* () {
      if (firstChunk.done) return;
      yield firstChunk.value;
      yield* rest;
    })();
    try {
      yield { type: "start" };
      yield* readSse(chunks, open, parsed, started, sent);
    } finally {
      await body.return(undefined);
    }
  }

  /**
   * `/api/v1/ping` ignores keys: checks the key with the cheapest authenticated call (one listing entry, body discarded).
   */
  async function checkAuth(signal: AbortSignal | undefined): Promise<{ message: string } | undefined> {
    if (!apiKey && config.discovery !== "auto") return undefined;
    try {
      const open = await http.open({ method: "GET", path: "/api/v1/chatflows", query: { page: 1, limit: 1 }, timeoutMs: base.healthTimeoutMs, signal, operation: "auth check" });
      if (!open.ok) await http.throwForStatus(open);
      open.scope.abort();
      return undefined;
    } catch (error) {
      if (!BackendError.isInstance(error) || error.code !== "BACKEND_AUTH_FAILED") return undefined;
      return {
        message: apiKey
          ? `flowise backend '${config.id}' answers ping, but its API key was refused by GET /api/v1/chatflows: check apiKey / FLOWISE_API_KEY`
          : `flowise backend '${config.id}' answers ping, but requires an API key for GET /api/v1/chatflows: set apiKey / FLOWISE_API_KEY`,
      };
    }
  }

  async function checkHealth(signal?: AbortSignal): Promise<BackendHealth> {
    const authProbe = checkAuth(signal);
    return base.health(
      signal,
      async (elapsed, version) => {
        const open = await http.open({ method: "GET", path: "/api/v1/ping", headers: { accept: "text/plain, */*" }, timeoutMs: base.healthTimeoutMs, signal, operation: "health check" });
        if (!open.ok) await http.throwForStatus(open);
        const body = (await http.readText(open, HEALTH_BODY_BYTES)).trim();
        const latencyMs = elapsed();
        if (body !== "pong" && body !== '"pong"') return base.down(latencyMs, "BACKEND_BAD_RESPONSE", "ping did not answer pong");
        const refused = await authProbe;
        if (refused) return base.down(latencyMs, "BACKEND_AUTH_FAILED", refused.message, await version);
        const failing = outcomes.failing();
        if (!failing) return base.up(latencyMs, version, "ping");
        const message = `flowise backend '${config.id}' answers ping, but its last ${failing.count} predictions failed (${failing.code})`;
        return base.down(latencyMs, failing.code, message, await version);
      },
      [authProbe],
    );
  }

  async function discoverFlows(signal?: AbortSignal): Promise<UniversalFlow[]> {
    return base.discover(
      async (page: number = 1, received) => {
        const data = await base.listing("/api/v1/chatflows", { page, limit: PAGE_SIZE }, FlowiseChatflowListSchema, signal);
        if (Array.isArray(data)) return { items: data };
        return { items: data.data, next: received + data.data.length < data.total ? page + 1 : undefined };
      },
      (chatflow) => {
        const profile = readFlowiseProfile(chatflow.flowData, chatflow.apiConfig);
        profiles.set(chatflow.id, profile);
        const flow = toDiscovered(chatflow, profile);
        const cached = streamingCache.get(chatflow.id);
        if (cached) flow.streaming = cached.value;
        return flow;
      },
    );
  }

  return base.backend({ checkHealth, discoverFlows, execute, stream, isStreaming }, () => {
    streamingCache.clear();
    profiles.clear();
    learnedMemory.clear();
  });
}
