/**
 * "Nothing to route to" says what to configure, and tells apart no backend configured, a backend
 * configured but unreachable, and a refused key (401/403) — in `describeSetup` (the startup lines
 * of `afw serve`), `/readyz`'s report and the `universal_query` error. Real adapters against the
 * local Flowise reproduction.
 */
import { createServer } from "node:net";
import { startFlowiseServer } from "@afw/backends/test/servers";
import { describe, expect, it } from "vitest";
import { describeSetup } from "./setup-report.js";
import { callTool, closeAfter, startTestGateway } from "../test/helpers.js";

const KEY = "afw-test-secret-setup-report-flowise-key";
const CHAT = "f0000000-0000-4000-8000-00000005e7a9";

const track = closeAfter();

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function gatewayWith(backend?: { baseURL: string; apiKey?: string; flows?: Array<{ id: string; generalPurpose?: boolean }> }) {
  const started = track(
    await startTestGateway({
      config: {
        backends: backend ? [{ id: "flowise", kind: "flowise", ...backend }] : [],
        routing: { classifierEmbedder: "hashing", health: { intervalMs: 0 } },
        cache: { enabled: false },
      },
    }),
  );
  const setup = await describeSetup(started.gateway);
  const readiness = await started.gateway.readiness();
  const answer = await callTool(started.client, "universal_query", { question: "Why does my build fail?" });
  return { started, setup, readiness, answer, text: JSON.stringify({ setup, readiness, answer }) };
}

describe("what to configure when nothing can be routed to", () => {
  it("no backend configured: names FLOWISE_BASE_URL, LANGFLOW_BASE_URL and --config", async () => {
    const { setup, readiness, answer } = await gatewayWith();
    expect(setup.backends).toEqual([]);
    for (const text of [setup.hint, readiness.hint, String(answer.body["error"])]) {
      expect(text).toMatch(/no backend is configured: set FLOWISE_BASE_URL .* LANGFLOW_BASE_URL .*--config examples\/afw\.yaml/);
    }
    expect(readiness.ready).toBe(false);
    expect(readiness.checks).toContainEqual(expect.objectContaining({ name: "backends", ok: false }));
    expect(answer.isError).toBe(true);
    expect(answer.body["code"]).toBe("NO_BACKENDS_AVAILABLE");
  });

  it("configured but unreachable: says so and which setting to fix", async () => {
    const { setup, readiness, answer } = await gatewayWith({ baseURL: `http://127.0.0.1:${await closedPort()}` });
    expect(setup.backends).toEqual([expect.objectContaining({ id: "flowise", state: "unreachable", flows: 0 })]);
    expect(setup.backends[0]!.message).toMatch(/^unreachable \(.+\): start it, or fix FLOWISE_BASE_URL or backends\[\]\.baseURL$/);
    expect(readiness.ready).toBe(false);
    expect(readiness.checks).toContainEqual(expect.objectContaining({ name: "backend:flowise", ok: false, message: expect.stringMatching(/unreachable/) }));
    expect(answer.isError).toBe(true);
    expect(String(answer.body["error"])).toMatch(/flowise unreachable .*FLOWISE_BASE_URL/);
    expect(String(answer.body["error"])).not.toMatch(/no backend is configured/);
  });

  it("wrong key (401 from an authenticated call): says the key was refused, never shows it", async () => {
    const flowise = track(await startFlowiseServer({ flows: [{ id: CHAT, name: "Support chat", answer: "hello" }], apiKey: KEY }));
    const wrong = "afw-test-secret-setup-report-wrong-key";
    const { setup, readiness, answer, text } = await gatewayWith({ baseURL: flowise.url, apiKey: wrong });
    expect(setup.backends).toEqual([expect.objectContaining({ id: "flowise", state: "unauthorized" })]);
    expect(setup.backends[0]!.message).toMatch(/API key was refused \(401\/403\): set FLOWISE_API_KEY or backends\[\]\.apiKey/);
    expect(readiness.hint).toMatch(/API key was refused/);
    expect(answer.isError).toBe(true);
    expect(String(answer.body["error"])).toMatch(/API key was refused/);
    expect(text).not.toContain(wrong);
    expect(text).not.toContain(KEY);
  });

  it("wrong key with the flow listed in the config (ping ignores keys): health_check and /readyz name the refused key", async () => {
    const flowise = track(await startFlowiseServer({ flows: [{ id: CHAT, name: "Support chat", answer: "hello" }], apiKey: KEY }));
    const wrong = "afw-test-secret-setup-report-wrong-key-2";
    const { started, readiness, text } = await gatewayWith({ baseURL: flowise.url, apiKey: wrong, flows: [{ id: CHAT, generalPurpose: true }] });
    const health = await callTool<{ backends: Array<{ status: string; errorCode?: string; message?: string }> }>(started.client, "health_check");
    expect(health.body.backends[0]).toMatchObject({ status: "down", errorCode: "BACKEND_AUTH_FAILED", message: expect.stringMatching(/API key was refused/) });
    expect(readiness.checks).toContainEqual(expect.objectContaining({ name: "backend:flowise", ok: false, message: expect.stringMatching(/API key was refused/) }));
    expect(text + JSON.stringify(health.body)).not.toContain(wrong);
  });

  it("a working backend: reachable, authenticated, its flows counted; ready and no hint", async () => {
    const flowise = track(await startFlowiseServer({ flows: [{ id: CHAT, name: "Support chat", answer: "hello" }], apiKey: KEY }));
    const { setup, readiness, answer } = await gatewayWith({ baseURL: flowise.url, apiKey: KEY });
    expect(setup).toEqual({ backends: [{ id: "flowise", kind: "flowise", state: "ready", flows: 1, message: "reachable, authenticated, 1 flow found", health: "healthy" }] });
    expect(readiness.ready).toBe(true);
    expect(readiness.hint).toBeUndefined();
    expect(answer.isError).toBe(false);
  });
});
