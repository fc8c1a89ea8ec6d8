import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { testConfig } from "../test/helpers.js";
import { createGatewayServer, type GatewayServer } from "./gateway-server.js";
import { startHttpTransport, type HttpTransportHandle } from "./http-transport.js";

const TOKEN = "afw-test-secret-bearer-failed-auth-01";
let gateway: GatewayServer;
let http: HttpTransportHandle;

beforeAll(async () => {
  const backend = createFakeBackend({ id: "f", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }] });
  gateway = await createGatewayServer({
    backends: [backend],
    config: testConfig({ http: { authTokens: [{ token: TOKEN, name: "ops" }], rateLimit: { requestsPerMinute: 60, burst: 10 } } }),
  });
  http = await startHttpTransport(gateway, { port: 0 });
});
afterAll(async () => {
  await http.close();
  await gateway.close();
});

const ping = (token: string) =>
  fetch(http.url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });

describe("failed authentication", () => {
  it("counts against the client address: 1,000 wrong-token guesses get 429 with Retry-After, the real token still works", { timeout: 120_000 }, async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let batch = 0; batch < 20; batch++) {
      const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => ping(`wrong-guess-${batch}-${i}-0000000000`)));
      for (const response of responses) {
        statuses.push(response.status);
        if (response.status === 429) retryAfter ??= response.headers.get("retry-after");
        await response.body?.cancel();
      }
    }
    const unauthorized = statuses.filter((s) => s === 401).length;
    const limited = statuses.filter((s) => s === 429).length;
    expect(unauthorized + limited).toBe(1_000);
    // The burst (10), plus at most one refill per second of the run.
    expect(unauthorized).toBeLessThan(100);
    expect(limited).toBeGreaterThan(900);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    // A valid token has its own bucket: guessing from the same address does not lock it out.
    expect((await ping(TOKEN)).status).toBe(200);
  });
});
