/**
 * The slow-client timeouts of the HTTP transport come from the configuration
 * (`http.headersTimeoutMs`, `http.bodyTimeoutMs`) when `startHttpTransport` gets no options, so
 * `afw serve` applies what the config file says.
 */
import { connect as netConnect } from "node:net";
import { describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { testConfig } from "../test/helpers.js";
import { GatewayConfigSchema } from "./config-schema.js";
import { createGatewayServer } from "./gateway-server.js";
import { startHttpTransport } from "./http-transport.js";

/** Sends the headers of a POST announcing a body that never comes; resolves with what the server answered once it closed. */
function stalledBody(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(port, "127.0.0.1");
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (data: string) => (text += data));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(text));
    socket.on("connect", () => {
      socket.write("POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 100\r\n\r\n{");
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error("the server never closed the stalled connection"));
    }, 20_000).unref();
  });
}

describe("http timeouts from the configuration", () => {
  it("default to 30 s each", () => {
    const http = GatewayConfigSchema.parse({}).http;
    expect(http.headersTimeoutMs).toBe(30_000);
    expect(http.bodyTimeoutMs).toBe(30_000);
  });

  it("rejects non-positive values", () => {
    expect(GatewayConfigSchema.safeParse({ http: { headersTimeoutMs: 0 } }).success).toBe(false);
    expect(GatewayConfigSchema.safeParse({ http: { bodyTimeoutMs: -1 } }).success).toBe(false);
  });

  it("are applied by startHttpTransport without options; options still win", async () => {
    const backend = createFakeBackend({ id: "f", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }] });
    const gateway = await createGatewayServer({ backends: [backend], config: testConfig({ http: { port: 0, headersTimeoutMs: 4_321, bodyTimeoutMs: 300 } }) });
    const fromConfig = await startHttpTransport(gateway);
    const overridden = await startHttpTransport(gateway, { port: 0, headersTimeoutMs: 5_432 });
    try {
      expect(fromConfig.server.headersTimeout).toBe(4_321);
      expect(overridden.server.headersTimeout).toBe(5_432);
      const answer = await stalledBody(fromConfig.port);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toContain("within 300 ms");
    } finally {
      await overridden.close();
      await fromConfig.close();
      await gateway.close();
    }
  });
});
