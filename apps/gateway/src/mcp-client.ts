import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { GatewayServer } from "@afw/server";

/** A tool call's parsed JSON result and whether it was an MCP tool error. */
export interface ToolAnswer {
  isError: boolean;
  body: Record<string, unknown>;
}

/** An MCP client linked in-process to `gateway` (no network), for the CLI's own use. */
export async function connectInProcess(gateway: GatewayServer): Promise<{ call(name: string, args: Record<string, unknown>): Promise<ToolAnswer>; close(): Promise<void> }> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await gateway.connect(serverTransport);
  const client = new Client({ name: "afw-cli", version: "0.0.0" });
  await client.connect(clientTransport);
  return {
    async call(name, args) {
      const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content?: Array<{ type: string; text?: string }> };
      const text = result.content?.find((c) => c.type === "text")?.text ?? "{}";
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = { text };
      }
      return { isError: result.isError === true, body };
    },
    close: () => client.close(),
  };
}
