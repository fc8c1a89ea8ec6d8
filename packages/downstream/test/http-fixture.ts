// An in-process downstream MCP server for tests on a free loopback port: Streamable HTTP at
// /mcp (stateful sessions) and the legacy SSE transport at /sse + /messages.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

export interface HttpFixture {
  /** Streamable HTTP endpoint. */
  url: string;
  /** Legacy SSE endpoint. */
  sseUrl: string;
  port: number;
  /** Authorization headers seen, in order. */
  authorizations: string[];
  /** Registers a tool on every live session (each sends notifications/tools/list_changed). */
  addTool(name: string): void;
  /** Removes a tool added with addTool. */
  removeTool(name: string): void;
  /** Number of live sessions. */
  sessionCount(): number;
  /** Number of TCP connections accepted so far. */
  connectionCount(): number;
  /** Stops listening and drops every session. */
  close(): Promise<void>;
}

export async function startHttpFixture(options: { port?: number; name?: string } = {}): Promise<HttpFixture> {
  const name = options.name ?? "http-fixture";
  const store = new Map<string, string>([["alpha", "first letter"], ["omega", "last letter"]]);
  const extraTools = new Set<string>();
  const mcpServers = new Set<McpServer>();
  const registered = new Map<McpServer, Map<string, RegisteredTool>>();
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const sseSessions = new Map<string, SSEServerTransport>();
  const authorizations: string[] = [];

  const registerExtra = (server: McpServer, tool: string) => {
    const handle = server.registerTool(tool, { description: `Dynamic HTTP tool ${tool}.` }, async () => ({
      content: [{ type: "text", text: `dynamic ${tool}` }],
    }));
    registered.get(server)?.set(tool, handle);
  };

  const createMcpServer = () => {
    const server = new McpServer({ name, version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
    registered.set(server, new Map());
    server.registerTool(
      "lookup",
      { description: "Looks a key up in a small dictionary.", inputSchema: { key: z.string() }, annotations: { readOnlyHint: true } },
      async ({ key }) => {
        const value = store.get(key);
        return value === undefined
          ? { content: [{ type: "text", text: `no entry for ${key}` }], isError: true }
          : { content: [{ type: "text", text: value }] };
      },
    );
    server.registerTool("slow", { description: "Answers after ms milliseconds.", inputSchema: { ms: z.number() } }, async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: [{ type: "text", text: `slept ${ms}` }] };
    });
    for (const tool of extraTools) registerExtra(server, tool);
    mcpServers.add(server);
    return server;
  };

  const readBody = async (req: IncomingMessage): Promise<unknown> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    return text ? JSON.parse(text) : undefined;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.authorization) authorizations.push(req.headers.authorization);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/mcp") {
      const sessionId = req.headers["mcp-session-id"];
      const body = req.method === "POST" ? await readBody(req) : undefined;
      let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
      if (!transport) {
        if (typeof sessionId === "string") {
          res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
          return;
        }
        if (req.method !== "POST" || !isInitializeRequest(body)) {
          res.writeHead(400).end("expected initialize");
          return;
        }
        const server = createMcpServer();
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            sessions.set(id, created);
          },
        });
        created.onclose = () => {
          if (created.sessionId) sessions.delete(created.sessionId);
          mcpServers.delete(server);
        };
        await server.connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
      return;
    }
    if (url.pathname === "/sse" && req.method === "GET") {
      const transport = new SSEServerTransport("/messages", res);
      const server = createMcpServer();
      sseSessions.set(transport.sessionId, transport);
      transport.onclose = () => {
        sseSessions.delete(transport.sessionId);
        mcpServers.delete(server);
      };
      await server.connect(transport);
      return;
    }
    if (url.pathname === "/messages" && req.method === "POST") {
      const transport = sseSessions.get(url.searchParams.get("sessionId") ?? "");
      if (!transport) {
        res.writeHead(404).end("unknown session");
        return;
      }
      await transport.handlePostMessage(req, res, await readBody(req));
      return;
    }
    res.writeHead(404).end();
  };

  const http: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  let connections = 0;
  http.on("connection", () => connections++);
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (http.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sseUrl: `http://127.0.0.1:${port}/sse`,
    port,
    authorizations,
    addTool(tool) {
      extraTools.add(tool);
      for (const server of mcpServers) registerExtra(server, tool);
    },
    removeTool(tool) {
      extraTools.delete(tool);
      for (const server of mcpServers) {
        registered.get(server)?.get(tool)?.remove();
        registered.get(server)?.delete(tool);
      }
    },
    sessionCount: () => sessions.size + sseSessions.size,
    connectionCount: () => connections,
    async close() {
      await Promise.all([...sessions.values(), ...sseSessions.values()].map((t) => t.close().catch(() => undefined)));
      sessions.clear();
      sseSessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
