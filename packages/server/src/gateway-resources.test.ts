// Resources, resource templates and prompts: the gateway's own (sessions, playbooks) and those of
// the real @modelcontextprotocol/server-everything behind it, namespaced, read through the SDK Client.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, testConfig } from "../test/helpers.js";
import { createGatewayServer } from "./gateway-server.js";
import { startHttpTransport } from "./http-transport.js";

const EVERYTHING = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const installed = existsSync(EVERYTHING);
if (!installed) console.warn("[@afw/server] resources test skipped: @modelcontextprotocol/server-everything is not installed; run pnpm install.");

describe("a gateway without downstream servers", () => {
  let started: Awaited<ReturnType<typeof startTestGateway>>;
  beforeAll(async () => {
    started = await startTestGateway();
  });
  afterAll(() => started?.close());

  it("advertises resources but not prompts, and lists its own templates", async () => {
    const capabilities = started.client.getServerCapabilities();
    expect(capabilities?.resources).toEqual({ listChanged: true });
    expect(capabilities?.prompts).toBeUndefined();
    const { resourceTemplates } = await started.client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(["afw://sessions/{session_id}", "afw://playbooks/{workflow_id}"]);
  });

  it("lists sessions as resources and reads one", async () => {
    await started.gateway.stores.sessions.append("chat-1", { question: "what is MCP?", answer: "a protocol", askedAt: 1_000, answeredAt: 2_000 });
    const { resources } = await started.client.listResources();
    expect(resources.map((resource) => resource.uri)).toContain("afw://sessions/chat-1");
    const read = await started.client.readResource({ uri: "afw://sessions/chat-1" });
    const body = JSON.parse((read.contents[0] as { text: string }).text) as { session_id: string; history: { question: string }[] };
    expect(body.session_id).toBe("chat-1");
    expect(body.history.map((turn) => turn.question)).toEqual(["what is MCP?"]);
  });

  it("answers an unknown resource with -32002", async () => {
    const error = await started.client.readResource({ uri: "afw://sessions/nobody" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32002);
    const other = await started.client.readResource({ uri: "file:///etc/passwd" }).catch((caught: unknown) => caught);
    expect((other as McpError).code).toBe(-32002);
  });
});

describe.skipIf(!installed)("a gateway in front of server-everything", () => {
  let started: Awaited<ReturnType<typeof startTestGateway>>;
  beforeAll(async () => {
    started = await startTestGateway({
      config: { downstream: { servers: [{ name: "everything", transport: "stdio", command: process.execPath, args: [EVERYTHING], pingIntervalMs: 0 }] } },
    });
    await started.gateway.downstream!.settled();
  }, 30_000);
  afterAll(() => started?.close());

  it("lists the server's resources under namespaced URIs and reads one back", async () => {
    const { resources } = await started.client.listResources();
    const downstream = resources.filter((resource) => resource.uri.startsWith("downstream://everything/"));
    expect(downstream.length).toBeGreaterThan(0);
    const first = downstream[0]!;
    const read = await started.client.readResource({ uri: first.uri });
    expect(read.contents.length).toBeGreaterThan(0);
    expect(read.contents[0]!.uri).toBe(first.uri);
  });

  it("lists resource templates namespaced and reads an instance of one", async () => {
    const { resourceTemplates } = await started.client.listResourceTemplates();
    const text = resourceTemplates.find((template) => template.uriTemplate.startsWith("downstream://everything/") && template.uriTemplate.includes("/text/"));
    expect(text).toBeDefined();
    const uri = text!.uriTemplate.replace("{resourceId}", "7");
    const read = await started.client.readResource({ uri });
    expect(read.contents[0]!.uri).toBe(uri);
    expect(JSON.stringify(read.contents[0])).toContain("7");
  });

  it("lists the server's prompts namespaced and gets them with arguments", async () => {
    const { prompts } = await started.client.listPrompts();
    const names = prompts.map((prompt) => prompt.name);
    expect(names).toEqual(expect.arrayContaining(["everything__simple-prompt", "everything__args-prompt"]));
    const simple = await started.client.getPrompt({ name: "everything__simple-prompt" });
    expect(simple.messages.length).toBeGreaterThan(0);
    const args = prompts.find((prompt) => prompt.name === "everything__args-prompt")!;
    const values = Object.fromEntries((args.arguments ?? []).map((argument) => [argument.name, "Paris"]));
    const withArgs = await started.client.getPrompt({ name: "everything__args-prompt", arguments: values });
    expect(JSON.stringify(withArgs.messages)).toContain("Paris");
  });

  it("answers an unknown prompt with -32602", async () => {
    const error = await started.client.getPrompt({ name: "everything__no-such-prompt" }).catch((caught: unknown) => caught);
    expect((error as McpError).code).toBe(-32602);
  });
});

describe("session resources over HTTP with tenant tokens", () => {
  const ALICE = "afw-test-secret-resources-alice-01";
  const BOB = "afw-test-secret-resources-bob-0001";
  let gateway: Awaited<ReturnType<typeof createGatewayServer>>;
  let http: Awaited<ReturnType<typeof startHttpTransport>>;
  const clients: Client[] = [];
  const connect = async (token: string) => {
    const client = new Client({ name: "resources-tenant-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  };
  beforeAll(async () => {
    gateway = await createGatewayServer({
      config: testConfig({ http: { authTokens: [{ token: ALICE, name: "alice", tenant: "acme" }, { token: BOB, name: "bob", tenant: "globex" }] } }),
    });
    http = await startHttpTransport(gateway, { port: 0 });
    await gateway.stores.sessions.append("acme-plans", { question: `my token is ${ALICE}`, answer: "noted", askedAt: 1_000, answeredAt: 2_000 }, { tenant: "acme" });
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await http?.close();
    await gateway?.close();
  });

  it("lists and reads a session only for its own tenant, redacted", async () => {
    const alice = await connect(ALICE);
    const bob = await connect(BOB);
    expect((await alice.listResources()).resources.map((resource) => resource.uri)).toContain("afw://sessions/acme-plans");
    expect((await bob.listResources()).resources.map((resource) => resource.uri)).not.toContain("afw://sessions/acme-plans");
    const read = await alice.readResource({ uri: "afw://sessions/acme-plans" });
    const text = (read.contents[0] as { text: string }).text;
    expect(text).toContain("noted");
    expect(text).not.toContain(ALICE);
    const refused = await bob.readResource({ uri: "afw://sessions/acme-plans" }).catch((caught: unknown) => caught);
    expect((refused as McpError).code).toBe(-32002);
  });
});
