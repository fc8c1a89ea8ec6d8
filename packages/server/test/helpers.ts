import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createGatewayServer, type GatewayParts, type GatewayServer } from "../src/index.js";
import type { GatewayConfigInput } from "../src/config-schema.js";
export { closeAfter, useTestRedis } from "@afw/testing";

/** Quiet, timer-free configuration for tests. */
export function testConfig(overrides: GatewayConfigInput = {}): GatewayConfigInput {
  return {
    ...overrides,
    routing: { classifierEmbedder: "hashing", ...overrides.routing, health: { intervalMs: 0, timeoutMs: 2_000, ...overrides.routing?.health } },
    // keyword search unless a test asks for an embedder: no model load, no background embedding
    tools: { embedder: "none", ...overrides.tools },
    logging: { level: "silent", ...overrides.logging },
    metrics: { defaultMetrics: false, ...overrides.metrics },
  };
}

/** A gateway with test defaults and a connected MCP client over in-memory transports. */
export async function startTestGateway(parts: GatewayParts & { config?: GatewayConfigInput } = {}): Promise<{ gateway: GatewayServer; client: Client; close(): Promise<void> }> {
  const gateway = await createGatewayServer({ ...parts, config: testConfig(parts.config) });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const server = await gateway.connect(serverTransport);
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await client.connect(clientTransport);
  return {
    gateway,
    client,
    async close() {
      await client.close();
      await server.close();
      await gateway.close();
    },
  };
}

/** A parsed tool result: its JSON body and whether it is an error. */
export interface ParsedResult<T = Record<string, unknown>> {
  isError: boolean;
  body: T;
  text: string;
}

/** Parses the single JSON text content of a tool result. */
export function parseResult<T = Record<string, unknown>>(result: unknown): ParsedResult<T> {
  const callResult = result as CallToolResult;
  const first = callResult.content[0];
  if (!first || first.type !== "text") throw new Error(`expected one text content, got ${JSON.stringify(callResult.content)}`);
  return { isError: callResult.isError === true, body: JSON.parse(first.text) as T, text: first.text };
}

/** Calls a tool and parses its result. */
export async function callTool<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ParsedResult<T>> {
  return parseResult<T>(await client.callTool({ name, arguments: args }));
}

