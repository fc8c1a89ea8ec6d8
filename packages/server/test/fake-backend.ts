import {
  BackendError,
  flowKey,
  UniversalFlowSchema,
  type BackendHealth,
  type ErrorCode,
  type FlowBackendV1,
  type FlowExecutionRequest,
  type FlowExecutionResult,
  type FlowStreamChunk,
  type Intent,
  type UniversalFlow,
} from "@afw/contracts";

/** How a fake backend behaves; mutable during a test. */
export interface FakeBehavior {
  /** Fail every execute with this code (retryable per contracts' defaults). */
  fail?: ErrorCode | undefined;
  /** Fail the next N executes, then succeed. */
  failTimes?: number;
  /** Never answer (until aborted). */
  hang?: boolean;
  /** Health status reported. @default "healthy" */
  health?: BackendHealth["status"];
  /** Fail discovery. */
  discoveryFails?: boolean;
}

/** A small in-process FlowBackendV1 for tests, recording every request. */
export interface FakeBackend extends FlowBackendV1 {
  readonly calls: FlowExecutionRequest[];
  readonly behavior: FakeBehavior;
  readonly flows: UniversalFlow[];
  closed: boolean;
}

/** Creates a {@link FakeBackend} answering `"<id>/<flow>: <question>"`. */
export function createFakeBackend(options: {
  id: string;
  kind?: string;
  /** `memory`: whether the flow keeps its own memory of a session (discovery's `metadata.memory`; unknown when absent). */
  flows: { id: string; name?: string; intents?: Intent[]; generalPurpose?: boolean; cacheClass?: string; cacheable?: boolean; keywords?: string[]; memory?: boolean }[];
  stream?: boolean;
  capabilities?: Partial<Record<Intent, number>>;
  answer?: (request: FlowExecutionRequest) => string;
  behavior?: FakeBehavior;
}): FakeBackend {
  const kind = options.kind ?? "flowise";
  const calls: FlowExecutionRequest[] = [];
  const behavior: FakeBehavior = { ...options.behavior };
  const flows = options.flows.map((flow) =>
    UniversalFlowSchema.parse({
      id: flowKey(options.id, flow.id),
      backendId: options.id,
      backendKind: kind,
      backendFlowId: flow.id,
      name: flow.name ?? flow.id,
      intents: flow.intents ?? [],
      keywords: flow.keywords ?? [],
      generalPurpose: flow.generalPurpose ?? false,
      cacheable: flow.cacheable ?? true,
      ...(flow.cacheClass ? { cacheClass: flow.cacheClass } : {}),
      ...(flow.memory === undefined ? {} : { metadata: { memory: flow.memory } }),
    }),
  );
  const answerOf = (request: FlowExecutionRequest) => options.answer?.(request) ?? `${options.id}/${request.flowId}: ${request.question}`;
  const run = async (request: FlowExecutionRequest, signal?: AbortSignal): Promise<FlowExecutionResult> => {
    calls.push(structuredClone(request));
    if (behavior.hang) {
      await new Promise<never>((_, reject) => {
        signal?.addEventListener("abort", () => reject(new BackendError("ABORTED", "aborted", { backendId: options.id, isRetryable: false })), { once: true });
      });
    }
    if (behavior.failTimes && behavior.failTimes > 0) {
      behavior.failTimes--;
      throw new BackendError("BACKEND_UNAVAILABLE", `${options.id} failed (injected)`, { backendId: options.id, statusCode: 503 });
    }
    if (behavior.fail) throw new BackendError(behavior.fail, `${options.id} failed with ${behavior.fail} (injected)`, { backendId: options.id, statusCode: 500 });
    if (!flows.some((f) => f.backendFlowId === request.flowId)) throw new BackendError("FLOW_NOT_FOUND", `no flow ${request.flowId}`, { backendId: options.id, statusCode: 404 });
    return { text: answerOf(request), backendId: options.id, flowId: request.flowId, sources: [], raw: {}, ...(request.sessionId ? { sessionId: request.sessionId } : {}) };
  };
  const backend: FakeBackend = {
    specificationVersion: "v1",
    id: options.id,
    kind,
    ...(options.capabilities ? { capabilities: options.capabilities } : {}),
    calls,
    behavior,
    flows,
    closed: false,
    async checkHealth() {
      return { backendId: options.id, kind, status: behavior.health ?? "healthy", latencyMs: 1, checkedAt: new Date().toISOString() };
    },
    async discoverFlows() {
      if (behavior.discoveryFails) throw new BackendError("BACKEND_UNAVAILABLE", "discovery failed", { backendId: options.id });
      return flows.map((f) => ({ ...f }));
    },
    execute: run,
    async close() {
      backend.closed = true;
    },
  };
  if (options.stream) {
    backend.stream = async function* (request: FlowExecutionRequest, signal?: AbortSignal): AsyncIterable<FlowStreamChunk> {
      const result = await run(request, signal);
      yield { type: "start" };
      for (const word of result.text.split(/(?<= )/)) yield { type: "token", text: word };
      yield { type: "end", result };
    };
  }
  return backend;
}
