import type { UniversalQueryResult } from "@afw/contracts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { parseResult, testConfig } from "../test/helpers.js";
import type { GatewayConfigInput } from "./config-schema.js";
import { createGatewayServer } from "./gateway-server.js";
import { startHttpTransport, type HttpTransportOptions } from "./http-transport.js";

const TOKEN = "afw-test-secret-dashboard-token-0123456789abcdef";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function startGateway(config: GatewayConfigInput = {}, options: HttpTransportOptions = {}) {
  const backend = createFakeBackend({ id: "f", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }] });
  const gateway = await createGatewayServer({ backends: [backend], config: testConfig(config) });
  cleanups.push(() => gateway.close());
  const http = await startHttpTransport(gateway, { port: 0, ...options });
  cleanups.push(() => http.close());
  return { gateway, http, base: new URL(http.url).origin };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("operator dashboard over HTTP", () => {
  it("serves the page and its assets without a token, and the API only with one", async () => {
    const { base } = await startGateway({ http: { authTokens: [TOKEN] } });
    const page = await fetch(`${base}/dashboard`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="(\/dashboard\/[^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) expect((await fetch(`${base}${asset}`)).status, asset).toBe(200);

    const anonymous = await fetch(`${base}/api/overview`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await fetch(`${base}/api/overview`, { headers: bearer("wrong-token-0123456789abcdef") })).status).toBe(401);
    const authorized = await fetch(`${base}/api/overview`, { headers: bearer(TOKEN) });
    expect(authorized.status).toBe(200);
    const overview = (await authorized.json()) as { info?: { name?: string } };
    expect(overview.info?.name).toBe("agentic-flywheel");
    // The live feed needs the token too.
    expect((await fetch(`${base}/api/events`)).status).toBe(401);
  });

  it("is open on loopback without tokens, like /mcp", async () => {
    const { base } = await startGateway();
    const backends = await fetch(`${base}/api/backends`);
    expect(backends.status).toBe(200);
    const body = (await backends.json()) as { configured: boolean; backends: { id: string }[] };
    expect(body.backends.map((backend) => backend.id)).toEqual(["f"]);
  });

  it("shows a universal_query sent through MCP in the routing feed, with its question and events", async () => {
    const { http, base } = await startGateway({ http: { authTokens: [TOKEN] } });
    const client = new Client({ name: "dashboard-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: bearer(TOKEN) } }));
    cleanups.push(() => client.close());
    const { isError, body } = parseResult<UniversalQueryResult>(
      await client.callTool({ name: "universal_query", arguments: { question: "what does the flywheel do?" } }),
    );
    expect(isError).toBe(false);
    const traceId = body._mcp_metadata.trace_id;

    const response = await fetch(`${base}/api/queries?limit=10`, { headers: bearer(TOKEN) });
    expect(response.status).toBe(200);
    const { queries } = (await response.json()) as { queries: { traceId: string; question?: string }[] };
    const row = queries.find((query) => query.traceId === traceId);
    expect(row?.question).toBe("what does the flywheel do?");

    const events = (await (await fetch(`${base}/api/queries/${traceId}/events`, { headers: bearer(TOKEN) })).json()) as { events: { type: string }[] };
    expect(events.events.map((event) => event.type)).toEqual(expect.arrayContaining(["query-received", "query-answered"]));
  });

  it("streams the live feed outside the rate limit", async () => {
    const { base } = await startGateway({ http: { rateLimit: { enabled: true, requestsPerMinute: 60, burst: 1 } } });
    const controller = new AbortController();
    const feeds = [await fetch(`${base}/api/events`, { signal: controller.signal }), await fetch(`${base}/api/events`, { signal: controller.signal })];
    try {
      for (const feed of feeds) {
        expect(feed.status).toBe(200);
        expect(feed.headers.get("content-type")).toMatch(/text\/event-stream/);
        const reader = feed.body!.getReader();
        let text = "";
        while (!text.includes("event: ready")) {
          const chunk = await reader.read();
          if (chunk.done) break;
          text += new TextDecoder().decode(chunk.value);
        }
        expect(text).toContain("event: ready");
      }
      // Ordinary API requests are limited: the burst of 1 is spent by the first.
      expect((await fetch(`${base}/api/overview`)).status).toBe(200);
      expect((await fetch(`${base}/api/overview`)).status).toBe(429);
    } finally {
      controller.abort();
    }
  });

  it("is not served when disabled", async () => {
    const { base } = await startGateway({ dashboard: { enabled: false } });
    expect((await fetch(`${base}/dashboard`)).status).toBe(404);
    expect((await fetch(`${base}/api/overview`)).status).toBe(404);
  });
});
