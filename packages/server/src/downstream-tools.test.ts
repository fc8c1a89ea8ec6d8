import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TraceEvent } from "@afw/contracts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError, ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { namespaceToolName } from "@afw/downstream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { callTool, startTestGateway, testConfig } from "../test/helpers.js";
import type { GatewayConfigInput } from "./config-schema.js";
import { createGatewayDashboardSource } from "./gateway-dashboard.js";
import { createGatewayServer, type GatewayServer } from "./gateway-server.js";
import { startHttpTransport } from "./http-transport.js";

const FIXTURE = fileURLToPath(new URL("../test/fixtures/downstream-server.mjs", import.meta.url));

function fixtureServer(name: string, tools: "math" | "notes") {
  return { name, transport: "stdio" as const, command: process.execPath, args: [FIXTURE], env: { FIXTURE_NAME: name, FIXTURE_TOOLS: tools }, pingIntervalMs: 0 };
}

interface Harness {
  gateway: GatewayServer;
  client: Client;
  events: TraceEvent[];
  close(): Promise<void>;
  /** Resolves on the next `notifications/tools/list_changed`. */
  nextListChanged(): Promise<void>;
}

async function startHarness(config: GatewayConfigInput): Promise<Harness> {
  const events: TraceEvent[] = [];
  // `${TOOLS_KIND}` of the imported mcp.json comes from the environment.
  vi.stubEnv("TOOLS_KIND", "notes");
  const started = await startTestGateway({ config, traceSinks: [{ emit: (event) => void events.push(event) }] });
  await started.gateway.downstream!.settled();
  let waiters: (() => void)[] = [];
  started.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    const current = waiters;
    waiters = [];
    for (const resolve of current) resolve();
  });
  return {
    ...started,
    events,
    nextListChanged: () => new Promise<void>((resolve) => waiters.push(resolve)),
  };
}

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;
const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);

describe("downstream MCP servers, exposure `search` (default)", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({
      downstream: {
        servers: [
          fixtureServer("math", "math"),
          fixtureServer("notes", "notes"),
          // Exits at once: never connects.
          { name: "broken", transport: "stdio", command: process.execPath, args: ["-e", "process.exit(3)"], pingIntervalMs: 0, retries: 0 },
        ],
        maxRestarts: 0,
      },
    });
  });
  afterAll(async () => harness.close());

  it("lists the gateway's tools with search_tools and call_tool, but no downstream tool", async () => {
    const listed = await names(harness.client);
    expect(listed).toContain("universal_query");
    expect(listed).toContain("search_tools");
    expect(listed).toContain("call_tool");
    expect(listed.filter((name) => name.includes("__"))).toEqual([]);
    const decided = harness.events.filter((event) => event.type === "tool-list-decided");
    expect(decided.at(-1)).toMatchObject({ mode: "search", exposed: [] });
  });

  it("indexes downstream tools under server/name ids and finds one from a plain-language task", async () => {
    expect(harness.gateway.toolSearch.size).toBeGreaterThanOrEqual(8);
    const found = await callTool<{ results: { id: string }[] }>(harness.client, "search_tools", { query: "write down a new note in my notebook", top_k: 3 });
    expect(found.isError).toBe(false);
    expect(found.body.results[0]?.id).toBe("notes/create_note");
  });

  it("proxies call_tool with arguments, and direct namespaced calls", async () => {
    const viaMeta = (await harness.client.callTool({ name: "call_tool", arguments: { name: "math__add", arguments: { a: 2, b: 40 } } })) as CallToolResult;
    expect(viaMeta.isError).toBeFalsy();
    expect(textOf(viaMeta)).toBe("42");
    expect(viaMeta.structuredContent).toEqual({ sum: 42 });
    const direct = await harness.client.callTool({ name: "math__echo", arguments: { text: "hello" } });
    expect(textOf(direct)).toBe("math: hello");
    const byId = await harness.client.callTool({ name: "call_tool", arguments: { name: "notes/create_note", arguments: { title: "t", body: "b" } } });
    expect(textOf(byId)).toBe("created t");
    const starts = harness.events.filter((event) => event.type === "tool-call-start");
    expect(starts.map((event) => (event as { tool: string }).tool)).toEqual(expect.arrayContaining(["add", "echo", "create_note"]));
    expect(harness.events.filter((event) => event.type === "tool-call-end" && event.outcome === "success").length).toBeGreaterThanOrEqual(3);
  });

  it("answers typed errors as isError results with a code", async () => {
    const missing = await callTool(harness.client, "call_tool", { name: "math__nope", arguments: {} });
    expect(missing).toMatchObject({ isError: true, body: { code: "TOOL_NOT_FOUND" } });
    const unknownServer = await callTool(harness.client, "ghost__tool", {});
    expect(unknownServer).toMatchObject({ isError: true, body: { code: "TOOL_NOT_FOUND" } });
    const badArguments = await callTool(harness.client, "call_tool", { name: "math__add", arguments: "not an object" });
    expect(badArguments).toMatchObject({ isError: true, body: { code: "INVALID_INPUT" } });
    const down = await callTool(harness.client, "broken__anything", {});
    expect(down).toMatchObject({ isError: true, body: { code: "SERVER_CONNECTION_FAILED", details: { server: "broken" } } });
    // A tool-level error comes back as the downstream server gave it.
    const toolError = (await harness.client.callTool({ name: "math__fail", arguments: { reason: "on purpose" } })) as CallToolResult;
    expect(toolError.isError).toBe(true);
    expect(textOf(toolError)).toBe("failed: on purpose");
  });

  it("learns from successful calls: the task's words boost the tool that was used", async () => {
    const task = "the sum for the invoice";
    const before = (await harness.gateway.toolSearch.rank!(task)).tools.find((tool) => tool.id === "math/add");
    await callTool(harness.client, "search_tools", { query: task });
    await harness.client.callTool({ name: "math__add", arguments: { a: 1, b: 2 } });
    const after = (await harness.gateway.toolSearch.rank!(task)).tools.find((tool) => tool.id === "math/add");
    expect(before?.usage).toBe(0);
    expect(after?.usage).toBeGreaterThan(0);
    expect(after!.score).toBeGreaterThan(before!.score);
  });

  it("feeds the dashboard: downstream servers and what search_tools returns", async () => {
    const source = createGatewayDashboardSource(harness.gateway);
    const servers = await source.toolServers!();
    expect(servers?.map((server) => [server.name, server.connected])).toEqual([
      ["math", true],
      ["notes", true],
      ["broken", false],
    ]);
    expect(servers?.find((server) => server.name === "notes")?.toolCount).toBe(3);
    const search = await source.searchTools!("delete a note by its title", { limit: 3 });
    expect(search?.results[0]?.id).toBe("notes/delete_note");
  });

  it("reports downstream-connected events for the servers that started", () => {
    const connected = harness.events.filter((event) => event.type === "downstream-connected").map((event) => (event as { server: string }).server);
    expect(connected.sort()).toEqual(["math", "notes"]);
  });
});

describe("downstream MCP servers, exposure `all` with an mcp.json import", () => {
  let harness: Harness;
  let directory: string;
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), "afw-mcp-json-"));
    const mcpJson = join(directory, "mcp.json");
    writeFileSync(
      mcpJson,
      JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [FIXTURE], env: { FIXTURE_NAME: "notes", FIXTURE_TOOLS: "${TOOLS_KIND}" } } } }),
    );
    harness = await startHarness({ tools: { exposure: "all" }, downstream: { servers: [fixtureServer("math", "math")], mcpJson } });
  });
  afterAll(async () => {
    await harness?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("lists every downstream tool namespaced, including the imported server's", async () => {
    const { tools } = await harness.client.listTools();
    const listed = tools.map((tool) => tool.name);
    expect(listed).toContain("universal_query");
    expect(listed).not.toContain("call_tool");
    expect(listed).toEqual(expect.arrayContaining(["math__add", "math__echo", "notes__create_note", "notes__list_notes"]));
    const add = tools.find((tool) => tool.name === "math__add");
    expect(add?.inputSchema.properties).toHaveProperty("a");
  });

  it("sends list_changed when a downstream server's tools change, and keeps the index in sync", async () => {
    const added = harness.nextListChanged();
    await harness.client.callTool({ name: "math__add_tool", arguments: { tool: "bonus_round" } });
    await added;
    expect(await names(harness.client)).toContain("math__bonus_round");
    expect(harness.gateway.toolSearch.size).toBe(9);
    const removed = harness.nextListChanged();
    await harness.client.callTool({ name: "math__remove_tool", arguments: { tool: "bonus_round" } });
    await removed;
    expect(await names(harness.client)).not.toContain("math__bonus_round");
    expect(harness.gateway.toolSearch.size).toBe(8);
  });

  it("stops the downstream servers on close", async () => {
    const manager = harness.gateway.downstream!.manager;
    await harness.gateway.close();
    expect(manager.status().every((status) => status.state !== "connected")).toBe(true);
  });
}, 20_000);

describe("downstream JSON-RPC errors and long tool names, exposure `all`", () => {
  const LONG = "summarise_every_open_incident_of_the_last_quarter_by_team_and_severity";
  const LONG_SERVER = "incident-reporting-".repeat(3).concat("eu-1");
  let harness: Harness;
  beforeAll(async () => {
    const errs = { ...fixtureServer("errs", "math"), env: { FIXTURE_NAME: "errs", FIXTURE_TOOLS: "errors", FIXTURE_DATA_TOKEN: "errs-data-token-0815" } };
    // A 61-character server name: every name of its tools is shortened, the server part included.
    const longServer = { ...fixtureServer(LONG_SERVER, "math"), env: { FIXTURE_NAME: LONG_SERVER, FIXTURE_TOOLS: "errors" } };
    harness = await startHarness({ tools: { exposure: "all" }, downstream: { servers: [fixtureServer("math", "math"), errs, longServer] } });
  });
  afterAll(async () => harness?.close());

  const rejection = async (name: string) => {
    try {
      await harness.client.callTool({ name, arguments: {} });
    } catch (error) {
      return error as McpError;
    }
    throw new Error(`${name} did not fail`);
  };

  it("forwards a downstream -32602 with its code, its message once and its data", async () => {
    const error = await rejection("errs__strict");
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(-32602);
    expect(error.message).toBe('MCP error -32602: Invalid arguments: "path" must be absolute');
    expect(error.data).toEqual({ field: "path" });
  });

  it("keeps a custom error code and redacts the configured secret in its data", async () => {
    const error = await rejection("errs__custom");
    expect(error.code).toBe(-32099);
    expect(error.message).toBe("MCP error -32099: quota exhausted");
    expect(error.data).toEqual({ retryAfterSeconds: 30, upstream: "https://quota.example.test/?key=[REDACTED]" });
    expect(JSON.stringify(error.data)).not.toContain("errs-data-token-0815");
  });

  it("lists names of at most 64 characters and routes a shortened name to its tool", async () => {
    const listed = await names(harness.client);
    expect(listed.filter((name) => name.length > 64)).toEqual([]);
    const short = namespaceToolName("errs", LONG);
    expect(listed).toContain(short);
    expect(textOf(await harness.client.callTool({ name: short, arguments: {} }))).toBe("long ok");
    // a name whose server part was cut too still reaches its server
    const cut = namespaceToolName(LONG_SERVER, "strict");
    expect(cut).toHaveLength(64);
    expect(listed).toContain(cut);
    expect((await rejection(cut)).code).toBe(-32602);
  });

  it("keeps the search index in sync when a tool with a shortened name comes and goes", async () => {
    const before = harness.gateway.toolSearch.size;
    const added = harness.nextListChanged();
    await harness.client.callTool({ name: "math__add_tool", arguments: { tool: LONG } });
    await added;
    expect(await names(harness.client)).toContain(namespaceToolName("math", LONG));
    expect(harness.gateway.toolSearch.size).toBe(before + 1);
    const removed = harness.nextListChanged();
    await harness.client.callTool({ name: "math__remove_tool", arguments: { tool: LONG } });
    await removed;
    expect(harness.gateway.toolSearch.size).toBe(before);
  });
}, 20_000);

describe("downstream MCP servers, exposure `routed`", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({
      tools: { exposure: "routed", routedTopK: 2 },
      downstream: { servers: [fixtureServer("math", "math"), fixtureServer("notes", "notes")] },
    });
  });
  afterAll(async () => harness.close());

  it("exposes the top-k tools for the session's recent context, with affordance summaries, and notifies when they change", async () => {
    expect((await names(harness.client)).filter((name) => name.includes("__"))).toEqual([]);

    const changed = harness.nextListChanged();
    await callTool(harness.client, "search_tools", { query: "create a note in my notebook" });
    await changed;
    const { tools } = await harness.client.listTools();
    const downstream = tools.filter((tool) => tool.name.includes("__"));
    expect(downstream.length).toBeLessThanOrEqual(2);
    expect(downstream[0]?.name).toBe("notes__create_note");
    expect(downstream[0]?.description).toMatch(/^Use when: .* \| Inputs: title\*, body\* \| Output:/);
    expect(tools.map((tool) => tool.name)).not.toContain("call_tool");

    const decided = harness.events.filter((event) => event.type === "tool-list-decided").at(-1) as Extract<TraceEvent, { type: "tool-list-decided" }>;
    expect(decided.mode).toBe("routed");
    expect(decided.exposed[0]).toBe("notes__create_note");
    expect(decided.candidates[0]).toMatchObject({ id: "notes/create_note" });
    expect(decided.candidates[0]?.reason).toMatch(/keyword/);
    const requested = harness.events.filter((event) => event.type === "tool-list-requested").at(-1);
    expect(requested).toMatchObject({ mode: "routed", context: expect.stringContaining("create a note") });

    // A new task moves the exposed set, and the client is told.
    const movedAgain = harness.nextListChanged();
    await callTool(harness.client, "search_tools", { query: "add two numbers to get the sum" });
    await movedAgain;
    expect(await names(harness.client)).toContain("math__add");
  });

  it("exposes tools for each step of a multi-step task and says which step each serves", async () => {
    await callTool(harness.client, "search_tools", { query: "create a note titled groceries, then add 2 and 3" });
    const { tools } = await harness.client.listTools();
    const names = tools.filter((tool) => tool.name.includes("__")).map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["notes__create_note", "math__add"]));
    const decided = harness.events.filter((event) => event.type === "tool-list-decided").at(-1) as Extract<TraceEvent, { type: "tool-list-decided" }>;
    expect(decided.candidates.some((candidate) => /for step \d "/.test(candidate.reason ?? ""))).toBe(true);
    expect(tools.some((tool) => /\| Step: /.test(tool.description ?? ""))).toBe(true);
  });
});

describe("downstream MCP servers over stateful Streamable HTTP, exposure `routed`", () => {
  it("sends list_changed to the HTTP session whose context moved", async () => {
    const gateway = await createGatewayServer({
      config: testConfig({ http: { stateless: false }, tools: { exposure: "routed", routedTopK: 2 }, downstream: { servers: [fixtureServer("notes", "notes")] } }),
    });
    await gateway.downstream!.settled();
    const http = await startHttpTransport(gateway, { port: 0 });
    const client = new Client({ name: "routed-http", version: "1.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
      expect((await names(client)).filter((name) => name.includes("__"))).toEqual([]);
      await callTool(client, "search_tools", { query: "list every note title in the notebook" });
      await changed;
      expect((await names(client)).filter((name) => name.includes("__"))[0]).toBe("notes__list_notes");
    } finally {
      await client.close();
      await http.close();
      await gateway.close();
    }
  });
});
