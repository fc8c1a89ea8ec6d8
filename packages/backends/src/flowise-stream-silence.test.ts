import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BackendError, type FlowStreamChunk } from "@afw/contracts";
import { createFlowiseBackend } from "./flowise-backend.js";
import { startFlowiseServer } from "./testing/flowise-server.js";
import type { MockPlatformServer } from "./testing/mock-server.js";
import { collect } from "./testing/conformance.js";

// Issue 20 M3: Flowise 3.1.2 never answers a streaming prediction of a deleted chatflow, and the
// adapter caches the streaming check. Before the fix these streams waited the whole request
// timeout (60 s here, far beyond the test's own timeout).
const FLOW = "66666666-6666-4666-8666-666666666666";
const KEY = "afw-test-secret-flowise-silence-key";
// Long enough that a healthy stream's first byte arrives in time on a busy CI host (a live stream
// of the fake answers in milliseconds), short enough that a silent one fails well inside the
// test's timeout; the request timeout (60 s) is what the fix keeps from being waited out.
const FIRST_BYTE_MS = 2_000;

async function failure(promise: Promise<unknown>): Promise<BackendError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!BackendError.isInstance(error)) throw new Error(`expected a BackendError, got ${String(error)}`);
  return error;
}

describe("Flowise streams that never send a byte", () => {
  let server: MockPlatformServer;
  const backend = () =>
    createFlowiseBackend({ id: "fw", baseURL: server.url, apiKey: KEY, timeouts: { requestTimeoutMs: 60_000, streamFirstByteTimeoutMs: FIRST_BYTE_MS } });
  const checks = () => server.requests.filter((request) => request.route === "streaming-check").length;

  beforeAll(async () => {
    server = await startFlowiseServer({ apiKey: KEY });
  });
  beforeEach(() => {
    server.reset();
    server.addFlow({ id: FLOW, name: "Doomed", answer: "still here" });
  });
  afterAll(() => server.close());

  it("a chatflow deleted after its streaming check was cached fails fast with FLOW_NOT_FOUND", async () => {
    const flowise = backend();
    expect((await collect(flowise.stream({ flowId: FLOW, question: "hi" }))).at(-1)).toMatchObject({ type: "end", result: { text: "still here" } });
    server.removeFlow(FLOW);
    const error = await failure(collect(flowise.stream({ flowId: FLOW, question: "hi again" })));
    expect(error.code).toBe("FLOW_NOT_FOUND");
    // The cached "streams: true" was dropped: a recreated non-streaming flow is asked again.
    server.addFlow({ id: FLOW, name: "Reborn", answer: "json now", streaming: false });
    const before = checks();
    expect((await collect(flowise.stream({ flowId: FLOW, question: "back?" }))).at(-1)).toMatchObject({ type: "end", result: { text: "json now" } });
    expect(checks()).toBe(before + 1);
    await flowise.close?.();
  }, 10_000);

  it("a silent stream of an existing flow is a retryable BACKEND_TIMEOUT naming the first-byte wait", async () => {
    const flowise = backend();
    server.addFault({ route: "run", hang: true, times: 1 });
    const error = await failure(collect(flowise.stream({ flowId: FLOW, question: "hello?" })));
    expect(error.code).toBe("BACKEND_TIMEOUT");
    expect(error.isRetryable).toBe(true);
    expect(error.details).toMatchObject({ firstByteTimeoutMs: FIRST_BYTE_MS });
    // the next attempt works
    expect((await collect(flowise.stream({ flowId: FLOW, question: "hello" }))).at(-1)).toMatchObject({ type: "end" });
    await flowise.close?.();
  }, 10_000);

  it("a stream whose headers arrive but whose body stays silent is bounded by the first-byte wait too", async () => {
    const flowise = backend();
    server.addFault({ route: "run", stallAfterTokens: 0, times: 1 });
    const error = await failure(collect(flowise.stream({ flowId: FLOW, question: "hello?" })));
    expect(error.code).toBe("BACKEND_TIMEOUT");
    expect(error.details).toMatchObject({ firstByteTimeoutMs: FIRST_BYTE_MS });
    await flowise.close?.();
  }, 10_000);

  it("an execute 404 forgets the cached streaming check", async () => {
    const flowise = backend();
    await collect(flowise.stream({ flowId: FLOW, question: "cache it" }));
    server.removeFlow(FLOW);
    expect((await failure(flowise.execute({ flowId: FLOW, question: "gone?" }))).code).toBe("FLOW_NOT_FOUND");
    server.addFlow({ id: FLOW, name: "Reborn", answer: "plain", streaming: false });
    const before = checks();
    await collect(flowise.stream({ flowId: FLOW, question: "again" }));
    expect(checks()).toBe(before + 1);
    await flowise.close?.();
  });
});
