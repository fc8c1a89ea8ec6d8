import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFlowiseBackend } from "./flowise-backend.js";
import { startFlowiseServer } from "./testing/flowise-server.js";
import type { MockPlatformServer } from "./testing/mock-server.js";

// Issue 20 M4: `/api/v1/ping` ignores keys, so a wrong key looked healthy.
const KEY = "afw-test-secret-flowise-health-key";
const WRONG = "afw-test-secret-wrong-key-0000";

describe("Flowise health checks the API key", () => {
  let server: MockPlatformServer;
  const backend = (overrides: Record<string, unknown>) => createFlowiseBackend({ id: "fw", baseURL: server.url, ...overrides });

  beforeAll(async () => {
    server = await startFlowiseServer({ apiKey: KEY, flows: [{ id: "77777777-7777-4777-8777-777777777777", name: "Chat" }] });
  });
  afterAll(() => server.close());

  it("reports a refused key as down with BACKEND_AUTH_FAILED, never echoing the key", async () => {
    const health = await backend({ apiKey: WRONG }).checkHealth();
    expect(health).toMatchObject({ status: "down", errorCode: "BACKEND_AUTH_FAILED" });
    expect(health.message).toMatch(/API key was refused/);
    expect(JSON.stringify(health)).not.toContain(WRONG);
  });

  it("reports a missing key as down with BACKEND_AUTH_FAILED when discovery needs one", async () => {
    const health = await backend({}).checkHealth();
    expect(health).toMatchObject({ status: "down", errorCode: "BACKEND_AUTH_FAILED" });
    expect(health.message).toMatch(/requires an API key/);
  });

  it("stays healthy with the right key, and without a key when discovery is configured-only", async () => {
    expect((await backend({ apiKey: KEY }).checkHealth()).status).toBe("healthy");
    expect((await backend({ discovery: "configured-only" }).checkHealth()).status).toBe("healthy");
  });
});
