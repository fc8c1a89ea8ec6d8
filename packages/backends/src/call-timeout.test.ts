import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BackendError, type FlowBackendV1 } from "@afw/contracts";
import { createFlowiseBackend } from "./flowise-backend.js";
import { createLangflowBackend } from "./langflow-backend.js";
import { startFlowiseServer } from "./testing/flowise-server.js";
import { startLangflowServer } from "./testing/langflow-server.js";
import type { MockPlatformServer } from "./testing/mock-server.js";

const FLOW = "f0000000-0000-4000-8000-000000000001";
const platforms = [
  { name: "flowise", start: startFlowiseServer, create: (url: string) => createFlowiseBackend({ id: "fw", baseURL: url, timeouts: { requestTimeoutMs: 150 } }) },
  { name: "langflow", start: startLangflowServer, create: (url: string) => createLangflowBackend({ id: "lf", baseURL: url, timeouts: { requestTimeoutMs: 150 } }) },
] as const;

describe.each(platforms)("$name: a request's budget never extends the backend's own timeout", ({ start, create }) => {
  let server: MockPlatformServer;
  let backend: FlowBackendV1;
  beforeAll(async () => {
    server = await start({ flows: [{ id: FLOW, name: "Chat" }], faults: [{ route: "run", hang: true }] });
    backend = create(server.url);
  });
  afterAll(() => server.close());

  it("execute fails with BACKEND_TIMEOUT after requestTimeoutMs although the request allows 60 s", async () => {
    const error = await backend.execute({ flowId: FLOW, question: "hello", timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(BackendError.isInstance(error)).toBe(true);
    expect((error as BackendError).code).toBe("BACKEND_TIMEOUT");
    expect((error as BackendError).message).toContain("150 ms");
  });

  it("stream fails with BACKEND_TIMEOUT after requestTimeoutMs although the request allows 60 s", async () => {
    const consume = async () => {
      for await (const _chunk of backend.stream!({ flowId: FLOW, question: "hello", timeoutMs: 60_000 })) {
        // no chunk arrives from a hanging server
      }
    };
    const error = await consume().catch((e: unknown) => e);
    expect((error as BackendError).code).toBe("BACKEND_TIMEOUT");
    expect((error as BackendError).message).toContain("150 ms");
  });

  it("a shorter request budget still wins", async () => {
    const error = await backend.execute({ flowId: FLOW, question: "hello", timeoutMs: 60 }).catch((e: unknown) => e);
    expect((error as BackendError).code).toBe("BACKEND_TIMEOUT");
    expect((error as BackendError).message).toContain("60 ms");
  });
});

describe("langflow: runs without a session do not share Langflow's memory", () => {
  let server: MockPlatformServer;
  beforeAll(async () => {
    server = await startLangflowServer({ flows: [{ id: FLOW, name: "Chat" }] });
  });
  afterAll(() => server.close());

  it("sends a fresh session_id per session-less run, and the given one otherwise", async () => {
    const backend = createLangflowBackend({ id: "lf", baseURL: server.url });
    const first = await backend.execute({ flowId: FLOW, question: "mine is the first question" });
    await backend.execute({ flowId: FLOW, question: "mine is the second question" });
    await backend.execute({ flowId: FLOW, question: "in a session", sessionId: "s-1" });
    await backend.execute({ flowId: FLOW, question: "again in the session", sessionId: "s-1" });
    const runs = server.runs;
    expect(runs[0]!.history).toEqual([]);
    expect(runs[1]!.history).toEqual([]);
    expect(runs[3]!.history.map((m) => m.content)).toContain("in a session");
    const sessionIds = server.requests.filter((r) => r.route === "run").map((r) => (r.body as { session_id?: string }).session_id);
    expect(sessionIds[0]).toMatch(/^afw-/);
    expect(sessionIds[1]).toMatch(/^afw-/);
    expect(sessionIds[0]).not.toBe(sessionIds[1]);
    expect(sessionIds.slice(2)).toEqual(["s-1", "s-1"]);
    expect(first.sessionId).toBeUndefined();
  });
});
