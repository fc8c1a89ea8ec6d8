import { PassThrough } from "node:stream";
import type { UniversalQueryResult } from "@afw/contracts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { createFakeBackend } from "../test/fake-backend.js";
import { parseResult, testConfig } from "../test/helpers.js";
import { createGatewayServer } from "./gateway-server.js";
import { startStdioTransport } from "./stdio-transport.js";

/** A client transport over a pair of streams (what StdioClientTransport does over a child's pipes). */
function streamClientTransport(toServer: PassThrough, fromServer: PassThrough): Transport {
  const buffer = new ReadBuffer();
  const transport: Transport = {
    async start() {
      fromServer.on("data", (chunk: Buffer) => {
        buffer.append(chunk);
        for (let message = buffer.readMessage(); message; message = buffer.readMessage()) transport.onmessage?.(message);
      });
    },
    async send(message: JSONRPCMessage) {
      toServer.write(serializeMessage(message));
    },
    async close() {
      toServer.end();
      transport.onclose?.();
    },
  };
  return transport;
}

describe("stdio transport", () => {
  it("speaks nothing but MCP on stdout and resolves `closed` when stdin ends", async () => {
    const backend = createFakeBackend({ id: "f", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }] });
    const logLines: string[] = [];
    const gateway = await createGatewayServer({
      backends: [backend],
      config: testConfig({ logging: { level: "debug" } }),
      logDestination: { write: (line: string) => void logLines.push(line) },
    });
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const written: string[] = [];
    stdout.on("data", (chunk: Buffer) => written.push(chunk.toString("utf8")));
    const stdio = await startStdioTransport(gateway, { stdin, stdout });
    const client = new Client({ name: "stdio-test", version: "1.0.0" });
    await client.connect(streamClientTransport(stdin, stdout));

    const { tools } = await client.listTools();
    expect(tools).toHaveLength(21);
    const { body } = parseResult<UniversalQueryResult>(await client.callTool({ name: "universal_query", arguments: { question: "hello via stdio" } }));
    expect(body.result).toBe("f/chat: hello via stdio");

    await client.close();
    await stdio.closed;
    await gateway.close();
    const lines = written.join("").split("\n").filter((line) => line.length > 0);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty("jsonrpc", "2.0");
    // logs went to the log destination (stderr by default), never to stdout
    expect(logLines.some((line) => line.includes('"msg":"query-answered"'))).toBe(true);
    expect(written.join("")).not.toContain("query-answered");
  });
});
