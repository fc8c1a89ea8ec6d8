// End to end: what downstream servers send while a tool runs reaches the MCP client behind the
// gateway — progress, log messages (filtered by logging/setLevel), sampling and elicitation
// requests — and a cancelled call is cancelled downstream. Downstream: the real
// @modelcontextprotocol/server-everything and a small SDK fixture server; upstream: the SDK Client.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type CallToolResult,
  type ClientCapabilities,
  type LoggingMessageNotification,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testConfig } from "../test/helpers.js";
import { createGatewayServer, type GatewayServer } from "./gateway-server.js";
import { startHttpTransport, type HttpTransportHandle } from "./http-transport.js";

const FIXTURE = fileURLToPath(new URL("../test/fixtures/downstream-server.mjs", import.meta.url));
const EVERYTHING = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const installed = existsSync(EVERYTHING);
if (!installed) console.warn("[@afw/server] forwarding test skipped: @modelcontextprotocol/server-everything is not installed; run pnpm install.");
const SECRET = "fixture-log-secret-5521";

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

type Mode = "in-memory session" | "stateless HTTP" | "stateful HTTP";

let gateway: GatewayServer;
let stateless: HttpTransportHandle;
let stateful: HttpTransportHandle;

beforeAll(async () => {
  if (!installed) return;
  gateway = await createGatewayServer({
    config: testConfig({
      tools: { exposure: "all" },
      downstream: {
        servers: [
          { name: "everything", transport: "stdio", command: process.execPath, args: [EVERYTHING], pingIntervalMs: 0 },
          { name: "fwd", transport: "stdio", command: process.execPath, args: [FIXTURE], env: { FIXTURE_TOOLS: "forwarding", FIXTURE_DATA_TOKEN: SECRET }, pingIntervalMs: 0 },
        ],
      },
    }),
  });
  await gateway.downstream!.settled();
  stateless = await startHttpTransport(gateway, { port: 0, stateless: true });
  stateful = await startHttpTransport(gateway, { port: 0, stateless: false });
}, 30_000);
afterAll(async () => {
  await stateless?.close();
  await stateful?.close();
  await gateway?.close();
});

/** A client that records log messages and answers sampling and elicitation when it declares them. */
async function connectClient(mode: Mode, capabilities: ClientCapabilities) {
  const client = new Client({ name: "forwarding-test", version: "1.0.0" }, { capabilities });
  const logs: LoggingMessageNotification["params"][] = [];
  const sampled: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(notification.params));
  if (capabilities.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      sampled.push(request.params.messages);
      return { role: "assistant", model: "stub-model", content: { type: "text", text: "a stub reply" } };
    });
  }
  if (capabilities.elicitation) client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" }));
  let closeServer = async () => undefined as unknown;
  if (mode === "in-memory session") {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const server = await gateway.connect(serverTransport);
    closeServer = () => server.close();
    await client.connect(clientTransport);
  } else {
    await client.connect(new StreamableHTTPClientTransport(new URL((mode === "stateless HTTP" ? stateless : stateful).url)));
  }
  return {
    client,
    logs,
    sampled,
    close: async () => {
      await client.close();
      await closeServer();
    },
  };
}

describe.skipIf(!installed).each<Mode>(["in-memory session", "stateless HTTP", "stateful HTTP"])("forwarding between downstream servers and the client (%s)", (mode) => {
  let capable: Awaited<ReturnType<typeof connectClient>>;
  let plain: Awaited<ReturnType<typeof connectClient>>;

  beforeAll(async () => {
    capable = await connectClient(mode, { sampling: {}, elicitation: { form: {} } });
    plain = await connectClient(mode, {});
  }, 30_000);
  afterAll(async () => {
    await capable?.close();
    await plain?.close();
  });

  it("advertises logging", () => {
    expect(capable.client.getServerCapabilities()?.logging).toEqual({});
  });

  it("forwards the downstream progress of a call to the client's progressToken, in order", async () => {
    const progress: Progress[] = [];
    const result = await capable.client.callTool(
      { name: "everything__trigger-long-running-operation", arguments: { duration: 0.03, steps: 3 } },
      undefined,
      { onprogress: (update) => progress.push(update) },
    );
    expect(textOf(result)).toContain("Long running operation completed");
    expect(progress).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
  });

  it("forwards the log messages of a call to its client, redacted, and to no other client", async () => {
    capable.logs.length = 0;
    plain.logs.length = 0;
    await capable.client.callTool({ name: "fwd__log", arguments: { levels: ["info", "error"], text: "disk almost full" } });
    expect(capable.logs).toEqual([
      { level: "info", logger: "fwd/fixture", data: "info: disk almost full (token [REDACTED])" },
      { level: "error", logger: "fwd/fixture", data: "error: disk almost full (token [REDACTED])" },
    ]);
    expect(plain.logs).toEqual([]);
  });

  it.skipIf(mode === "stateless HTTP")("honours the level the client set with logging/setLevel", async () => {
    await capable.client.setLoggingLevel("warning");
    capable.logs.length = 0;
    await capable.client.callTool({ name: "fwd__log", arguments: { levels: ["debug", "info", "warning", "error"], text: "x" } });
    expect(capable.logs.map((log) => log.level)).toEqual(["warning", "error"]);
    await capable.client.setLoggingLevel("debug");
    capable.logs.length = 0;
    await capable.client.callTool({ name: "fwd__log", arguments: { levels: ["debug"], text: "x" } });
    expect(capable.logs.map((log) => log.level)).toEqual(["debug"]);
  });

  it("forwards a downstream sampling request to a client that supports sampling", async () => {
    capable.sampled.length = 0;
    const result = await capable.client.callTool({ name: "everything__trigger-sampling-request", arguments: { prompt: "say hi", maxTokens: 10 } });
    expect((result as CallToolResult).isError).toBeFalsy();
    expect(textOf(result)).toContain("a stub reply");
    expect(JSON.stringify(capable.sampled)).toContain("say hi");
  });

  it("answers the downstream with a clear error when the client cannot sample", async () => {
    const result = (await plain.client.callTool({ name: "everything__trigger-sampling-request", arguments: { prompt: "say hi", maxTokens: 10 } })) as CallToolResult;
    expect(result.isError).toBe(true);
    // Stateless HTTP has no record of the client's capabilities: its own client says it cannot.
    expect(JSON.stringify(result)).toMatch(mode === "stateless HTTP" ? /Method not found|-32601/ : /does not support sampling\/createMessage/);
  });

  it("forwards a downstream elicitation request and the client's answer", async () => {
    const result = await capable.client.callTool({ name: "everything__trigger-elicitation-request", arguments: {} });
    expect((result as CallToolResult).isError).toBeFalsy();
    expect(textOf(result).toLowerCase()).toContain("decline");
  });

  it("cancels the downstream request when the client cancels the call", async () => {
    const before = Number(textOf(await capable.client.callTool({ name: "fwd__cancellations", arguments: {} })));
    const controller = new AbortController();
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const pending = capable.client.callTool({ name: "fwd__until_cancelled", arguments: {} }, undefined, { signal: controller.signal, onprogress: () => started() });
    await running; // the downstream server has the request
    controller.abort("stop");
    await expect(pending).rejects.toThrow();
    // Over HTTP the cancellation is a POST of its own: wait until the downstream server counted it.
    await expect.poll(async () => Number(textOf(await capable.client.callTool({ name: "fwd__cancellations", arguments: {} }))), { timeout: 10_000 }).toBe(before + 1);
  });
});
