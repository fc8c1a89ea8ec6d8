#!/usr/bin/env node
// Child processes of bench/server.mjs, one per role, so each one's CPU is measured alone:
//   backend  — the local Flowise reproduction with one instant flow
//   gateway  — the @afw/server gateway over Streamable HTTP, routing to the backend
//   echo     — a bare MCP SDK server with one `echo` tool over Streamable HTTP (stateless, the SDK's
//              canonical per-request server + transport)
// Each prints one JSON line `{ "url": ..., "cpuUrl": ... }` on stdout when ready and serves
// GET /__bench/cpu -> process.cpuUsage() so the driver can measure CPU per call.
import { createServer } from "node:http";

// The MCP SDK and zod as @afw/server resolves them (the repository root does not depend on them).
const fromServer = (path) => new URL(`../packages/server/node_modules/${path}`, import.meta.url).href;
const { z } = await import(fromServer("zod/index.js"));

const role = process.argv[2];
// Exit cleanly on SIGINT/SIGTERM (so `--cpu-prof` can write its profile).
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(0));
const FLOW = "b0000000-0000-4000-8000-000000000001";
const cpuJson = () => JSON.stringify({ ...process.cpuUsage(), rss: process.memoryUsage().rss });

if (role === "backend") {
  const { startFlowiseServer } = await import("../packages/backends/dist/test-servers.js");
  const server = await startFlowiseServer({ flows: [{ id: FLOW, name: "Instant chat", streaming: false, answer: (input) => `Echo: ${input.question}` }] });
  console.log(JSON.stringify({ url: server.url }));
} else if (role === "gateway") {
  const { createGatewayServer, startHttpTransport } = await import("../packages/server/dist/index.js");
  const backendUrl = process.argv[3];
  const gateway = await createGatewayServer({
    backends: [{ id: "flowise", kind: "flowise", baseURL: backendUrl, flows: [{ id: FLOW, intents: ["conversation"], generalPurpose: true, cacheClass: "conversation" }] }],
    http: { rateLimit: { requestsPerMinute: 1_000_000_000, burst: 1_000_000_000 } },
    ...(process.env.SERVER_BENCH_CLASSIFIER ? { routing: { classifierEmbedder: process.env.SERVER_BENCH_CLASSIFIER } } : {}),
    logging: { level: "info" },
  });
  await gateway.warmUp();
  const http = await startHttpTransport(gateway, { port: 0 });
  // The CPU probe listens on a port of its own, in the gateway's process.
  const probe = createServer((_request, response) => response.writeHead(200, { "content-type": "application/json" }).end(cpuJson()));
  await new Promise((resolve) => probe.listen(0, "127.0.0.1", resolve));
  console.log(JSON.stringify({ url: http.url, cpuUrl: `http://127.0.0.1:${probe.address().port}/__bench/cpu`, classifierEmbedder: gateway.config.routing.classifierEmbedder }));
} else if (role === "echo") {
  const { McpServer } = await import(fromServer("@modelcontextprotocol/sdk/dist/esm/server/mcp.js"));
  const { StreamableHTTPServerTransport } = await import(fromServer("@modelcontextprotocol/sdk/dist/esm/server/streamableHttp.js"));
  const server = createServer(async (request, response) => {
    if (request.url === "/__bench/cpu") {
      response.writeHead(200, { "content-type": "application/json" }).end(cpuJson());
      return;
    }
    const mcp = new McpServer({ name: "echo", version: "1.0.0" });
    mcp.registerTool("echo", { description: "Echoes the text.", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}/mcp`, cpuUrl: `http://127.0.0.1:${port}/__bench/cpu` }));
} else {
  console.error(`unknown role ${role}`);
  process.exit(2);
}
