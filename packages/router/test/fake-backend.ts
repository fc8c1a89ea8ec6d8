import {
  BackendError,
  UniversalFlowSchema,
  flowKey,
  type BackendHealth,
  type FlowBackendV1,
  type FlowExecutionRequest,
  type FlowExecutionResult,
  type FlowStreamChunk,
  type HealthStatus,
  type Intent,
  type TraceEvent,
  type TraceContext,
  type UniversalFlow,
} from "@afw/contracts";
import { confidenceLevel, type IntentClassifier } from "../src/intent-classifier.js";

/** A flow description for the fake backend. */
export interface FakeFlow {
  id: string;
  name?: string;
  intents?: Intent[];
  keywords?: string[];
  tags?: string[];
  description?: string;
  generalPurpose?: boolean;
}

export type FakeBehavior = (request: FlowExecutionRequest, signal: AbortSignal | undefined, call: number) => Promise<FlowExecutionResult | string> | FlowExecutionResult | string;

export interface FakeBackendOptions {
  id: string;
  kind?: string;
  flows?: FakeFlow[];
  health?: HealthStatus;
  capabilities?: Partial<Record<Intent, number>>;
  execute?: FakeBehavior;
  stream?: (request: FlowExecutionRequest, signal: AbortSignal | undefined, call: number) => AsyncIterable<FlowStreamChunk>;
  discover?: (call: number, signal?: AbortSignal) => Promise<UniversalFlow[]> | UniversalFlow[];
}

/** An in-process FlowBackendV1 whose behaviour each test scripts, recording every call. */
export interface FakeBackend extends FlowBackendV1 {
  calls: { flowId: string; question: string; signal: AbortSignal | undefined }[];
  healthChecks: number;
  discoveries: number;
  aborted: number;
  setHealth(status: HealthStatus): void;
}

export function toFlows(backendId: string, kind: string, flows: FakeFlow[]): UniversalFlow[] {
  return flows.map((f) =>
    UniversalFlowSchema.parse({
      id: flowKey(backendId, f.id),
      backendId,
      backendKind: kind,
      backendFlowId: f.id,
      name: f.name ?? f.id,
      description: f.description,
      intents: f.intents ?? [],
      keywords: f.keywords ?? [],
      tags: f.tags ?? [],
      generalPurpose: f.generalPurpose ?? false,
    }),
  );
}

export function result(backendId: string, flowId: string, text: string): FlowExecutionResult {
  return { text, backendId, flowId, sources: [], raw: { text } };
}

/** Resolves after `ms` unless `signal` aborts first (then rejects with an abort error). */
export function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new BackendError("ABORTED", "aborted"));
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      reject(new BackendError("ABORTED", "aborted"));
    });
  });
}

export function createFakeBackend(options: FakeBackendOptions): FakeBackend {
  const kind = options.kind ?? "flowise";
  let status: HealthStatus = options.health ?? "healthy";
  let executeCalls = 0;
  const backend: FakeBackend = {
    specificationVersion: "v1",
    id: options.id,
    kind,
    ...(options.capabilities ? { capabilities: options.capabilities } : {}),
    calls: [],
    healthChecks: 0,
    discoveries: 0,
    aborted: 0,
    setHealth(s) {
      status = s;
    },
    async checkHealth(): Promise<BackendHealth> {
      backend.healthChecks++;
      return { backendId: options.id, kind, status, latencyMs: 1, checkedAt: new Date().toISOString() };
    },
    async discoverFlows(signal) {
      backend.discoveries++;
      if (options.discover) return options.discover(backend.discoveries, signal);
      return toFlows(options.id, kind, options.flows ?? [{ id: "default", generalPurpose: true }]);
    },
    async execute(request, signal) {
      const call = ++executeCalls;
      backend.calls.push({ flowId: request.flowId, question: request.question, signal });
      signal?.addEventListener("abort", () => backend.aborted++, { once: true });
      const out = options.execute ? await options.execute(request, signal, call) : `answer from ${options.id}`;
      return typeof out === "string" ? result(options.id, request.flowId, out) : out;
    },
  };
  if (options.stream) {
    let streamCalls = 0;
    const streamFn = options.stream;
    backend.stream = (request, signal) => {
      backend.calls.push({ flowId: request.flowId, question: request.question, signal });
      signal?.addEventListener("abort", () => backend.aborted++, { once: true });
      return streamFn(request, signal, ++streamCalls);
    };
  }
  return backend;
}

/** A trace context collecting events. */
export function collectingTrace(): TraceContext & { events: TraceEvent[]; ofType<T extends TraceEvent["type"]>(type: T): Extract<TraceEvent, { type: T }>[] } {
  const events: TraceEvent[] = [];
  return {
    traceId: "trace-1",
    requestId: "request-1",
    sink: { emit: (e) => events.push(e) },
    events,
    ofType: (type) => events.filter((e) => e.type === type) as never,
  };
}

/** A classifier stub with a fixed answer, so routing tests do not depend on the model. */
export function fixedClassifier(intent: Intent, confidence: number): IntentClassifier {
  const thresholds = { high: 0.8, medium: 0.55, low: 0.3 };
  return {
    thresholds,
    warmUp: async () => {},
    async classify(_question, context) {
      const explicit = context?.intent && context.intent !== "auto" ? context.intent : undefined;
      const c = explicit ? 1 : confidence;
      return { intent: explicit ?? intent, confidence: c, method: explicit ? "explicit" : "hybrid", alternatives: [], level: confidenceLevel(c, thresholds), matches: [], probabilities: {}, durationMs: 0 };
    },
  };
}
