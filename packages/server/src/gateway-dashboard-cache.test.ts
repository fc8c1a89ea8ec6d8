import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { callTool, startTestGateway } from "../test/helpers.js";
import { createGatewayDashboardSource } from "./gateway-dashboard.js";

const SECRET = "lf-secret-key-0123456789abcdef";

describe("dashboard /api/cache data", () => {
  let started: Awaited<ReturnType<typeof startTestGateway>>;
  beforeAll(async () => {
    started = await startTestGateway({ backends: [createFakeBackend({ id: "f", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }] })], secrets: [SECRET] });
  });
  afterAll(() => started.close());

  it("never shows a secret a client put in `backend`", async () => {
    await callTool(started.client, "universal_query", { question: "hello there", backend: SECRET });
    await callTool(started.client, "universal_query", { question: "hello there" });
    const view = await createGatewayDashboardSource(started.gateway).cache?.();
    const text = JSON.stringify(view);
    expect(Object.keys(view?.stats?.byFlow ?? {}).length).toBeGreaterThan(0);
    expect(text).not.toContain(SECRET);
    expect(text).toContain("[REDACTED]");
  });

  it("refuses a `backend` that is not an id or kind with a typed error", async () => {
    const result = await callTool(started.client, "universal_query", { question: "hello there", backend: "<img src=x onerror=alert(1)>" });
    expect(result.isError).toBe(true);
    expect(result.body["code"]).toBe("INVALID_INPUT");
    expect(result.text).not.toContain("<img");
  });
});
