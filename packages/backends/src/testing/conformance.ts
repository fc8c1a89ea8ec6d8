import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AfwError, BackendError, flowKey, type FlowBackendV1, type FlowStreamChunk } from "@afw/contracts";
import type { BaseBackendSettingsInput } from "../settings.js";
import type { MockFlowDefinition, MockPlatformServer, MockServerOptions, RecordedRequest } from "./mock-server.js";

/** Settings the suite passes to `createBackend` (the shared adapter settings). */
export type ConformanceBackendSettings = BaseBackendSettingsInput;

/** Options of {@link runBackendConformance}. */
export interface BackendConformanceOptions {
  /** Name of the adapter, used in test titles. */
  name: string;
  /** Builds the adapter under test from the shared settings. */
  createBackend: (settings: ConformanceBackendSettings) => FlowBackendV1;
  /** Starts the platform reproduction the adapter talks to. */
  startServer: (options: MockServerOptions) => Promise<MockPlatformServer>;
  /** Whether the platform returns source documents (Flowise does, Langflow does not). Default true. */
  supportsSources?: boolean;
}

const API_KEY = "afw-conformance-key-7f3a9c";
const CHAT = "2f0e7a3c-0c1d-4b8e-9a55-5d1f2c3b4a01";
const DOCS = "2f0e7a3c-0c1d-4b8e-9a55-5d1f2c3b4a02";
const PLAIN = "2f0e7a3c-0c1d-4b8e-9a55-5d1f2c3b4a03";
const EXTRA = (n: number) => `2f0e7a3c-0c1d-4b8e-9a55-5d1f2c3b4b${String(n).padStart(2, "0")}`;
const UNKNOWN = "2f0e7a3c-0c1d-4b8e-9a55-5d1f2c3b4fff";
const LLM_NODE = "chatModel-node-1";

function flows(): MockFlowDefinition[] {
  return [
    {
      id: CHAT,
      name: "General Chat Assistant",
      description: "Everyday conversation",
      tags: ["chat"],
      nodes: [{ id: LLM_NODE, label: "Chat Model", name: "chatOpenAI", category: "Chat Models", params: { temperature: 0.7, maxTokens: 256 } }],
      answer: (input) => `Echo: ${input.question} (turn ${input.history.filter((message) => message.role === "user").length + 1})`,
    },
    {
      id: DOCS,
      name: "Docs QA",
      description: "Answers questions from the product documentation with citations",
      tags: ["rag", "docs"],
      nodes: [{ id: "vectorStore-1", label: "In-Memory Vector Store", name: "memoryVectorStore", category: "Vector Stores", params: {} }],
      sources: [{ pageContent: "Install with pnpm add @afw/backends.", metadata: { source: "https://docs.example.test/install", title: "Install" } }],
      usage: { promptTokens: 12, completionTokens: 5 },
      answer: "Install it with pnpm. It takes a minute, then you are done.",
    },
    { id: PLAIN, name: "Report Formatter", description: "Turns CSV data into a report", streaming: false, answer: (input) => `Report for: ${input.question}` },
    ...Array.from({ length: 5 }, (_, index) => ({ id: EXTRA(index), name: `Extra flow ${index}`, answer: `extra ${index}` })),
  ];
}

/** Waits for the recorded request's connection to close and checks that the client closed it. */
async function expectClientAborted(seen: Promise<RecordedRequest>): Promise<void> {
  const request = await seen;
  await request.closed;
  expect(request.clientAborted).toBe(true);
}

/** Every chunk of a stream, in order. @internal */
export async function collect(stream: AsyncIterable<FlowStreamChunk>): Promise<FlowStreamChunk[]> {
  const chunks: FlowStreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

async function collectUntilError(stream: AsyncIterable<FlowStreamChunk>): Promise<{ chunks: FlowStreamChunk[]; error: unknown }> {
  const chunks: FlowStreamChunk[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk);
  } catch (error) {
    return { chunks, error };
  }
  return { chunks, error: undefined };
}

async function rejection(promise: Promise<unknown>): Promise<BackendError> {
  try {
    await promise;
  } catch (error) {
    if (BackendError.isInstance(error)) return error;
    throw new Error(`expected a BackendError, got ${String(error)}`);
  }
  throw new Error("expected a rejection, got a result");
}

function tokensOf(chunks: FlowStreamChunk[]): string[] {
  return chunks.flatMap((chunk) => (chunk.type === "token" ? [chunk.text] : []));
}

function endOf(chunks: FlowStreamChunk[]) {
  const ends = chunks.filter((chunk): chunk is Extract<FlowStreamChunk, { type: "end" }> => chunk.type === "end");
  expect(ends).toHaveLength(1);
  expect(chunks.at(-1)?.type).toBe("end");
  return ends[0]!.result;
}

/**
 * The conformance suite every {@link FlowBackendV1} adapter must pass, run against a local
 * reproduction of its platform: health (up, slow, down, timeout), discovery (auth, pagination,
 * mapping, configured registry), execute (sessions, history, mapped parameters, sources,
 * usage), streaming (token order, final text, mid-stream error, cut streams, non-streaming flow,
 * early exit), every error mapping, cancellation through `AbortSignal` (the server sees the
 * connection close) and timeouts. Call it at the top level of a vitest file.
 *
 * @example
 * ```ts
 * // flowise.conformance.test.ts
 * runBackendConformance({ name: "flowise", createBackend: createFlowiseBackend, startServer: startFlowiseServer });
 * ```
 */
export function runBackendConformance(options: BackendConformanceOptions): void {
  const supportsSources = options.supportsSources ?? true;

  describe(`${options.name} backend conformance`, () => {
    let server: MockPlatformServer;
    let backend: FlowBackendV1;
    const make = (overrides: Partial<ConformanceBackendSettings> = {}) =>
      options.createBackend({
        id: "conformance",
        baseURL: server.url,
        apiKey: API_KEY,
        // Generous: a loaded CI machine must not turn a call into a timeout.
        timeouts: { requestTimeoutMs: 10_000 },
        flows: {
          [CHAT]: {
            intents: ["conversation"],
            generalPurpose: true,
            cacheClass: "volatile",
            parameterMapping: { temperature: { node: LLM_NODE, param: "temperature" }, maxTokens: { node: LLM_NODE, param: "maxTokens" } },
          },
        },
        ...overrides,
      });

    beforeAll(async () => {
      server = await options.startServer({ apiKey: API_KEY, flows: flows(), pageSize: 3, seed: 7 });
      backend = make();
    });
    afterEach(() => server.reset());
    afterAll(async () => {
      await backend.close?.();
      await server.close();
    });

    it("implements spec v1", () => {
      expect(backend.specificationVersion).toBe("v1");
      expect(backend.id).toBe("conformance");
      expect(typeof backend.stream).toBe("function");
    });

    describe("health", () => {
      it("reports a healthy backend with its latency and version", async () => {
        const health = await backend.checkHealth();
        expect(health.status).toBe("healthy");
        expect(health.backendId).toBe("conformance");
        expect(health.kind).toBe(backend.kind);
        expect(health.latencyMs).toBeGreaterThanOrEqual(0);
        expect(health.latencyMs).toBeLessThan(10_000);
        expect(health.version).toMatch(/^\d+\.\d+/);
        expect(Number.isNaN(Date.parse(health.checkedAt))).toBe(false);
      });

      it("reports slow when the probe takes longer than 2 s", async () => {
        server.setFaults([{ route: "health", delayMs: 2_100 }]);
        const health = await backend.checkHealth();
        expect(health.status).toBe("slow");
        expect(health.latencyMs).toBeGreaterThanOrEqual(2_000);
        expect(health.message).toMatch(/threshold/);
      });

      it("reports down (without rejecting) on a 503", async () => {
        server.setFaults([{ route: "health", status: 503 }]);
        const health = await backend.checkHealth();
        expect(health.status).toBe("down");
        expect(health.errorCode).toBe("BACKEND_UNAVAILABLE");
      });

      it("reports down with BACKEND_TIMEOUT when the probe hangs past the backend's requestTimeoutMs", async () => {
        server.setFaults([{ route: "health", hang: true }]);
        const seen = server.waitForRequest((request) => request.route === "health");
        const health = await make({ timeouts: { requestTimeoutMs: 150 } }).checkHealth();
        expect(health.status).toBe("down");
        expect(health.errorCode).toBe("BACKEND_TIMEOUT");
        await expectClientAborted(seen);
      });

      it("reports down with BACKEND_UNAVAILABLE when nothing listens", async () => {
        const gone = await options.startServer({});
        const url = gone.url;
        await gone.close();
        const health = await options.createBackend({ id: "gone", baseURL: url }).checkHealth();
        expect(health.status).toBe("down");
        expect(health.errorCode).toBe("BACKEND_UNAVAILABLE");
      });

      it("reports down on a garbage reply", async () => {
        server.setFaults([{ route: "health", garbage: true }]);
        expect((await backend.checkHealth()).status).toBe("down");
      });
    });

    describe("discovery", () => {
      it("sends the API key and lists every flow across pages", async () => {
        const discovered = await backend.discoverFlows();
        const listRequests = server.requests.filter((request) => request.route === "list");
        expect(listRequests.length).toBeGreaterThanOrEqual(1);
        for (const request of listRequests) expect(server.authKeyOf(request)).toBe(API_KEY);
        const ids = discovered.map((flow) => flow.backendFlowId).sort();
        expect(ids).toEqual(flows().map((flow) => flow.id).sort());
      });

      it("maps flows to UniversalFlow with inferred intents and the configured registry winning", async () => {
        const discovered = await backend.discoverFlows();
        const docs = discovered.find((flow) => flow.backendFlowId === DOCS)!;
        expect(docs.id).toBe(flowKey("conformance", DOCS));
        expect(docs.backendId).toBe("conformance");
        expect(docs.backendKind).toBe(backend.kind);
        expect(docs.name).toBe("Docs QA");
        expect(docs.intents[0]).toBe("rag-retrieval");
        expect(docs.capabilities).toContain("rag");
        expect(docs.tags).toEqual(expect.arrayContaining(["rag", "docs"]));
        expect(docs.source).toBe("discovered");
        const chat = discovered.find((flow) => flow.backendFlowId === CHAT)!;
        expect(chat.source).toBe("merged");
        expect(chat.intents).toEqual(["conversation"]);
        expect(chat.generalPurpose).toBe(true);
        expect(chat.cacheClass).toBe("volatile");
      });

      it("keeps configured flows missing from the listing and drops disabled ones", async () => {
        const custom = make({ flows: { [UNKNOWN]: { name: "Configured only", intents: ["data-processing"] }, [DOCS]: { enabled: false } } });
        const discovered = await custom.discoverFlows();
        const configured = discovered.find((flow) => flow.backendFlowId === UNKNOWN);
        expect(configured?.source).toBe("configured");
        expect(configured?.intents).toEqual(["data-processing"]);
        expect(discovered.some((flow) => flow.backendFlowId === DOCS)).toBe(false);
      });

      it("does not list anything in configured-only mode", async () => {
        const discovered = await make({ discovery: "configured-only" }).discoverFlows();
        expect(discovered.map((flow) => flow.backendFlowId)).toEqual([CHAT]);
        expect(server.requests.filter((request) => request.route === "list")).toHaveLength(0);
      });

      it("rejects with BACKEND_AUTH_FAILED (not retryable, key not leaked) for a wrong key", async () => {
        const wrongKey = "wrong-key-should-not-leak-123456";
        const error = await rejection(make({ apiKey: wrongKey }).discoverFlows());
        expect(error.code).toBe("BACKEND_AUTH_FAILED");
        expect(error.isRetryable).toBe(false);
        expect([401, 403]).toContain(error.statusCode);
        expect(error.message).not.toContain(wrongKey);
        expect(JSON.stringify(error.toJSON())).not.toContain(wrongKey);
      });

      it("rejects with BACKEND_BAD_RESPONSE for a listing of the wrong shape", async () => {
        server.setFaults([{ route: "list", wrongShape: true }]);
        const error = await rejection(backend.discoverFlows());
        expect(error.code).toBe("BACKEND_BAD_RESPONSE");
      });
    });

    describe("execute", () => {
      it("returns the answer, session, message id and raw reply", async () => {
        const result = await backend.execute({ flowId: CHAT, question: "What is 2+2?", sessionId: "session-a" });
        expect(result.text).toBe("Echo: What is 2+2? (turn 1)");
        expect(result.backendId).toBe("conformance");
        expect(result.flowId).toBe(CHAT);
        expect(result.sessionId).toBe("session-a");
        expect(result.messageId).toBeTruthy();
        expect(result.raw).toBeTypeOf("object");
        expect(result.latencyMs).toBeGreaterThanOrEqual(0);
        const run = server.runs.at(-1)!;
        expect(run.question).toBe("What is 2+2?");
        expect(run.sessionId).toBe("session-a");
        expect(run.streaming).toBe(false);
      });

      it("carries the conversation history of a session", async () => {
        const first = await backend.execute({ flowId: CHAT, question: "My name is Ada.", sessionId: "session-history" });
        const history = [
          { role: "user" as const, content: "My name is Ada." },
          { role: "assistant" as const, content: first.text },
        ];
        // The flow answered turn 1 with this session id: its platform memory (where there is one) holds it.
        const remembered = history.map((message) => ({ ...message, rememberedBy: `${backend.id}:${CHAT}` }));
        const second = await backend.execute({ flowId: CHAT, question: "What is my name?", sessionId: "session-history", history: remembered });
        expect(second.text).toBe("Echo: What is my name? (turn 2)");
        // Each earlier message reached the model exactly once (platform memory or history, never both).
        expect(server.runs.at(-1)!.history).toEqual(history);
      });

      it("maps temperature and maxTokens onto the configured node", async () => {
        await backend.execute({ flowId: CHAT, question: "Be precise", parameters: { temperature: 0.2, maxTokens: 99 } });
        expect(server.runs.at(-1)!.nodeParams[LLM_NODE]).toMatchObject({ temperature: 0.2, maxTokens: 99 });
      });

      it("keeps sources and usage when the platform reports them", async () => {
        const result = await backend.execute({ flowId: DOCS, question: "How do I install it?" });
        expect(result.text).toBe("Install it with pnpm. It takes a minute, then you are done.");
        if (supportsSources) {
          expect(result.sources).toHaveLength(1);
          expect(result.sources[0]).toMatchObject({ content: "Install with pnpm add @afw/backends.", url: "https://docs.example.test/install", title: "Install" });
        }
        expect(result.usage).toEqual({ promptTokens: 12, completionTokens: 5, totalTokens: 17 });
      });

      it("rejects an invalid request with INVALID_INPUT before any call", async () => {
        const before = server.requests.length;
        await expect(backend.execute({ flowId: CHAT, question: "" })).rejects.toSatisfy((error: unknown) => AfwError.isInstance(error) && error.code === "INVALID_INPUT");
        expect(server.requests.length).toBe(before);
      });
    });

    describe("streaming", () => {
      it("streams tokens in order and ends with the full text", async () => {
        const chunks = await collect(backend.stream!({ flowId: DOCS, question: "How do I install it?", sessionId: "stream-1" }));
        const tokens = tokensOf(chunks);
        expect(tokens.length).toBeGreaterThan(3);
        const result = endOf(chunks);
        expect(result.text).toBe(tokens.join(""));
        expect(result.text).toBe(server.runs.at(-1)!.answer);
        expect(result.sessionId).toBe("stream-1");
        expect(server.runs.at(-1)!.streaming).toBe(true);
        const tokenIndexes = chunks.flatMap((chunk, index) => (chunk.type === "token" ? [index] : []));
        const startIndex = chunks.findIndex((chunk) => chunk.type === "start");
        if (startIndex !== -1) expect(startIndex).toBeLessThan(tokenIndexes[0]!);
        if (supportsSources) expect(result.sources.length + chunks.filter((chunk) => chunk.type === "sources").length).toBeGreaterThan(0);
      });

      it("falls back to one final chunk for a flow that does not stream", async () => {
        const chunks = await collect(backend.stream!({ flowId: PLAIN, question: "q3 numbers" }));
        expect(tokensOf(chunks)).toEqual([]);
        expect(endOf(chunks).text).toBe("Report for: q3 numbers");
      });

      it("throws a typed error for a mid-stream error event, after the tokens before it", async () => {
        server.setFaults([{ route: "run", errorAfterTokens: 2, message: "model overloaded" }]);
        const { chunks, error } = await collectUntilError(backend.stream!({ flowId: DOCS, question: "fail please" }));
        expect(tokensOf(chunks)).toHaveLength(2);
        expect(chunks.some((chunk) => chunk.type === "end")).toBe(false);
        expect(BackendError.isInstance(error)).toBe(true);
        expect((error as BackendError).message).toContain("model overloaded");
      });

      it("throws a retryable error when the connection drops mid-stream", async () => {
        server.setFaults([{ route: "run", dropAfterTokens: 2 }]);
        const { chunks, error } = await collectUntilError(backend.stream!({ flowId: DOCS, question: "drop" }));
        expect(chunks.some((chunk) => chunk.type === "end")).toBe(false);
        expect(BackendError.isInstance(error)).toBe(true);
        expect((error as BackendError).isRetryable).toBe(true);
      });

      it("never returns a stream closed before its end event as complete", async () => {
        server.setFaults([{ route: "run", endAfterTokens: 3 }]);
        const { chunks, error } = await collectUntilError(backend.stream!({ flowId: DOCS, question: "cut" }));
        expect(tokensOf(chunks)).toHaveLength(3);
        expect(chunks.some((chunk) => chunk.type === "end")).toBe(false);
        expect((error as BackendError).code).toBe("BACKEND_UNAVAILABLE");
        expect((error as BackendError).isRetryable).toBe(true);
      });

      it("times out a stream that goes silent", async () => {
        server.setFaults([{ route: "run", stallAfterTokens: 1 }]);
        const { error } = await collectUntilError(make({ timeouts: { requestTimeoutMs: 300 } }).stream!({ flowId: DOCS, question: "stall" }));
        expect((error as BackendError).code).toBe("BACKEND_TIMEOUT");
        expect((error as BackendError).isRetryable).toBe(true);
      });

      it("closes the connection when the consumer stops early", async () => {
        server.setLatency(0);
        const slow = await options.startServer({ apiKey: API_KEY, flows: flows(), tokenDelayMs: 30 });
        try {
          const seen = slow.waitForRequest((request) => request.route === "run");
          const streamer = options.createBackend({ id: "early", baseURL: slow.url, apiKey: API_KEY });
          for await (const chunk of streamer.stream!({ flowId: DOCS, question: "stop early" })) {
            if (chunk.type === "token") break;
          }
          await expectClientAborted(seen);
        } finally {
          await slow.close();
        }
      });

      it("maps an unknown flow to FLOW_NOT_FOUND", async () => {
        const error = await rejection(collect(backend.stream!({ flowId: UNKNOWN, question: "hello" })));
        expect(error.code).toBe("FLOW_NOT_FOUND");
        expect(error.isRetryable).toBe(false);
      });
    });

    describe("error mapping", () => {
      // The statuses each code answers; the three transient codes are retryable.
      const statusesByCode: Record<string, number[]> = {
        BACKEND_BAD_RESPONSE: [400, 422],
        BACKEND_AUTH_FAILED: [401, 403],
        FLOW_NOT_FOUND: [404],
        BACKEND_TIMEOUT: [408, 504],
        BACKEND_UNAVAILABLE: [409, 500, 502, 503],
        BACKEND_RATE_LIMITED: [429],
      };
      const cases = Object.entries(statusesByCode).flatMap(([code, statuses]) =>
        statuses.map((status) => ({ status, code, retryable: ["BACKEND_TIMEOUT", "BACKEND_UNAVAILABLE", "BACKEND_RATE_LIMITED"].includes(code) })),
      );
      for (const { status, code, retryable } of cases) {
        it(`maps HTTP ${status} to ${code} (retryable: ${retryable})`, async () => {
          server.setFaults([{ route: "run", status, message: `injected ${status}` }]);
          const error = await rejection(backend.execute({ flowId: CHAT, question: "hello" }));
          expect(error.code).toBe(code);
          expect(error.statusCode).toBe(status);
          expect(error.isRetryable).toBe(retryable);
          expect(error.backendId).toBe("conformance");
          expect(error.flowId).toBe(CHAT);
          expect(error.message).toContain(`injected ${status}`);
        });
      }

      it("maps an unknown flow to FLOW_NOT_FOUND", async () => {
        const error = await rejection(backend.execute({ flowId: UNKNOWN, question: "hello" }));
        expect(error.code).toBe("FLOW_NOT_FOUND");
        expect(error.statusCode).toBe(404);
      });

      it("keeps Retry-After of a 429", async () => {
        server.setFaults([{ route: "run", status: 429, retryAfterSeconds: 3 }]);
        const error = await rejection(backend.execute({ flowId: CHAT, question: "hello" }));
        expect(error.details?.["retryAfterMs"]).toBe(3_000);
      });

      it("maps an unparsable body to BACKEND_BAD_RESPONSE", async () => {
        server.setFaults([{ route: "run", garbage: true }]);
        expect((await rejection(backend.execute({ flowId: CHAT, question: "hello" }))).code).toBe("BACKEND_BAD_RESPONSE");
      });

      it("maps a schema-violating body to BACKEND_BAD_RESPONSE", async () => {
        server.setFaults([{ route: "run", wrongShape: true }]);
        expect((await rejection(backend.execute({ flowId: CHAT, question: "hello" }))).code).toBe("BACKEND_BAD_RESPONSE");
      });

      it("refuses a reply larger than 10 MiB", async () => {
        server.setFaults([{ route: "run", oversizeBytes: 11 * 1024 * 1024 }]);
        const error = await rejection(backend.execute({ flowId: CHAT, question: "hello" }));
        expect(error.code).toBe("BACKEND_BAD_RESPONSE");
        expect(error.isRetryable).toBe(false);
      });

      it("maps a connection reset to a retryable BACKEND_UNAVAILABLE", async () => {
        server.setFaults([{ route: "run", reset: true }]);
        const error = await rejection(backend.execute({ flowId: CHAT, question: "hello" }));
        expect(error.code).toBe("BACKEND_UNAVAILABLE");
        expect(error.isRetryable).toBe(true);
      });

      it("maps a refused connection to a retryable BACKEND_UNAVAILABLE", async () => {
        const gone = await options.startServer({});
        const url = gone.url;
        await gone.close();
        const error = await rejection(options.createBackend({ id: "gone", baseURL: url }).execute({ flowId: CHAT, question: "hello" }));
        expect(error.code).toBe("BACKEND_UNAVAILABLE");
        expect(error.isRetryable).toBe(true);
      });

      it("never puts the API key or a stack trace in an error message", async () => {
        server.setFaults([{ route: "run", status: 500, message: `upstream rejected key ${API_KEY}` }]);
        const error = await rejection(backend.execute({ flowId: CHAT, question: "hello" }));
        expect(error.message).not.toContain(API_KEY);
        expect(error.message).not.toMatch(/Traceback|at .*\.js:\d+/);
        expect(JSON.stringify(error.toJSON())).not.toContain(API_KEY);
      });

      it("injects failures at a seeded rate", async () => {
        server.setFaults([{ route: "run", status: 503, probability: 0.5 }]);
        let failures = 0;
        for (let attempt = 0; attempt < 20; attempt += 1) {
          try {
            await backend.execute({ flowId: CHAT, question: `attempt ${attempt}` });
          } catch (error) {
            expect((error as BackendError).code).toBe("BACKEND_UNAVAILABLE");
            failures += 1;
          }
        }
        expect(failures).toBeGreaterThan(2);
        expect(failures).toBeLessThan(18);
      });
    });

    describe("cancellation and timeouts", () => {
      it("rejects with ABORTED (not retryable) and closes the connection when the caller aborts", async () => {
        server.setFaults([{ route: "run", hang: true }]);
        const controller = new AbortController();
        const seen = server.waitForRequest((request) => request.route === "run");
        const pending = rejection(backend.execute({ flowId: CHAT, question: "hang" }, controller.signal));
        const request = await seen;
        controller.abort();
        const error = await pending;
        expect(error.code).toBe("ABORTED");
        expect(error.isRetryable).toBe(false);
        await request.closed;
        expect(request.clientAborted).toBe(true);
      });

      it("rejects at once for an already aborted signal without calling the backend", async () => {
        const controller = new AbortController();
        controller.abort();
        const before = server.requests.length;
        const error = await rejection(backend.execute({ flowId: CHAT, question: "never" }, controller.signal));
        expect(error.code).toBe("ABORTED");
        expect(server.requests.length).toBe(before);
      });

      it("aborts a stream mid-way and closes the connection", async () => {
        const slow = await options.startServer({ apiKey: API_KEY, flows: flows(), tokenDelayMs: 40 });
        try {
          const controller = new AbortController();
          const seen = slow.waitForRequest((request) => request.route === "run");
          const streamer = options.createBackend({ id: "abort", baseURL: slow.url, apiKey: API_KEY });
          const chunks: FlowStreamChunk[] = [];
          let caught: unknown;
          try {
            for await (const chunk of streamer.stream!({ flowId: DOCS, question: "abort me" }, controller.signal)) {
              chunks.push(chunk);
              if (chunk.type === "token") controller.abort();
            }
          } catch (error) {
            caught = error;
          }
          expect((caught as BackendError).code).toBe("ABORTED");
          expect(chunks.some((chunk) => chunk.type === "end")).toBe(false);
          await expectClientAborted(seen);
        } finally {
          await slow.close();
        }
      });

      it("times out with a retryable BACKEND_TIMEOUT and closes the connection", async () => {
        server.setFaults([{ route: "run", hang: true }]);
        const seen = server.waitForRequest((request) => request.route === "run");
        const started = performance.now();
        const error = await rejection(make({ timeouts: { requestTimeoutMs: 150 } }).execute({ flowId: CHAT, question: "slow" }));
        expect(error.code).toBe("BACKEND_TIMEOUT");
        expect(error.isRetryable).toBe(true);
        expect(performance.now() - started).toBeLessThan(5_000);
        await expectClientAborted(seen);
      });

      it("honours a per-request timeoutMs", async () => {
        server.setFaults([{ route: "run", delayMs: 1_000 }]);
        const error = await rejection(backend.execute({ flowId: CHAT, question: "slow", timeoutMs: 100 }));
        expect(error.code).toBe("BACKEND_TIMEOUT");
      });
    });
  });
}
