import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BackendError } from "@afw/contracts";
import { createFlowiseBackend } from "./flowise-backend.js";
import { startFlowiseServer } from "./testing/flowise-server.js";
import type { MockPlatformServer } from "./testing/mock-server.js";

// Issue 20 M5: Flowise answers pong while every prediction fails on a dead LLM; health must say so.
const FLOW = "88888888-8888-4888-8888-888888888888";

describe("Flowise passive health", () => {
  let server: MockPlatformServer;
  beforeAll(async () => {
    server = await startFlowiseServer({});
  });
  beforeEach(() => {
    server.reset();
    server.addFlow({ id: FLOW, name: "Chat", answer: "fine" });
  });
  afterAll(() => server.close());

  const failOnce = (flowise: ReturnType<typeof createFlowiseBackend>) =>
    flowise.execute({ flowId: FLOW, question: "q" }).then(
      () => undefined,
      (error: unknown) => (BackendError.isInstance(error) ? error.code : "other"),
    );

  it("reports down while the last 5 predictions failed although ping answers, and recovers on a success", async () => {
    const flowise = createFlowiseBackend({ id: "fw", baseURL: server.url });
    server.addFault({ route: "run", status: 500, message: "Error: predictionsServices.buildChatflow - 500 upstream model error", times: 5 });
    for (let i = 0; i < 4; i++) expect(await failOnce(flowise)).toBe("BACKEND_UNAVAILABLE");
    expect((await flowise.checkHealth()).status).toBe("healthy");
    expect(await failOnce(flowise)).toBe("BACKEND_UNAVAILABLE");
    const health = await flowise.checkHealth();
    expect(health).toMatchObject({ status: "down", errorCode: "BACKEND_UNAVAILABLE", message: expect.stringMatching(/answers ping, but its last 5 predictions failed/) });
    expect((await flowise.execute({ flowId: FLOW, question: "q" })).text).toBe("fine");
    expect((await flowise.checkHealth()).status).toBe("healthy");
  });

  it("does not count failures that are not the backend's (unknown flow)", async () => {
    const flowise = createFlowiseBackend({ id: "fw", baseURL: server.url });
    for (let i = 0; i < 6; i++) {
      const code = await flowise.execute({ flowId: "99999999-9999-4999-8999-999999999999", question: "q" }).then(
        () => undefined,
        (error: unknown) => (BackendError.isInstance(error) ? error.code : "other"),
      );
      expect(code).toBe("FLOW_NOT_FOUND");
    }
    expect((await flowise.checkHealth()).status).toBe("healthy");
  });
});
