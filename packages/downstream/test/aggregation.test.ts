// Aggregation of two stdio fixture servers and one in-process Streamable HTTP server:
// namespacing, allow/deny lists, overrides, proxied calls, errors, list_changed, timeouts.
import { TraceEventSchema } from "@afw/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDownstreamManager, namespaceToolName, toMcpTool, type DownstreamManager, type ToolCallReport, type ToolsChangedEvent } from "../src/index.js";
import { startHttpFixture, type HttpFixture } from "./http-fixture.js";
import { firstText, isAlive, recordingTrace, rejectionOf, stdioFixture } from "./helpers.js";

describe("a manager aggregating two stdio servers and one HTTP server", () => {
  let http: HttpFixture;
  let manager: DownstreamManager;
  const trace = recordingTrace();
  const reports: ToolCallReport[] = [];
  const changes: ToolsChangedEvent[] = [];
  const pids: number[] = [];

  const nextChange = (predicate: (event: ToolsChangedEvent) => boolean) =>
    new Promise<ToolsChangedEvent>((resolve) => {
      const unsubscribe = manager.onToolsChanged((event) => {
        if (predicate(event)) {
          unsubscribe();
          resolve(event);
        }
      });
    });

  beforeAll(async () => {
    http = await startHttpFixture({ name: "web-fixture" });
    manager = createDownstreamManager(
      {
        servers: [
          stdioFixture("alpha", {
            deny: ["secret_*"],
            tags: ["fixture"],
            toolOverrides: { echo: { description: "Say it back, verbatim.", tags: ["text"] } },
          }, { FIXTURE_DATA_TOKEN: "alpha-data-token-4711" }),
          stdioFixture("beta", { allow: ["echo", "add", "fail"] }, {
            FIXTURE_TITLE: "Beta Arithmetic",
            FIXTURE_INSTRUCTIONS: "  Adds numbers and echoes text.  ",
          }),
          { name: "web", transport: "http", url: http.url, headers: { Authorization: "Bearer http-fixture-token-123" }, pingIntervalMs: 0 },
        ],
      },
      { trace, onToolCall: (report) => reports.push(report) },
    );
    manager.onToolsChanged((event) => changes.push(event));
    await manager.start();
    for (const status of manager.status()) if (status.pid !== undefined) pids.push(status.pid);
  });

  afterAll(async () => {
    await manager?.stop();
    await http?.close();
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  });

  it("connects every hot server at start and reports it", () => {
    const status = manager.status();
    expect(status.map((s) => [s.name, s.state, s.transport])).toEqual([
      ["alpha", "connected", "stdio"],
      ["beta", "connected", "stdio"],
      ["web", "connected", "http"],
    ]);
    expect(pids).toHaveLength(2);
    const connected = trace.ofType("downstream-connected");
    expect(connected.map((e) => e.server).sort()).toEqual(["alpha", "beta", "web"]);
    expect(connected.find((e) => e.server === "beta")?.toolCount).toBe(3);
    // one change event per server on connect
    expect(changes.filter((c) => c.reason === "connected").map((c) => c.server).sort()).toEqual(["alpha", "beta", "web"]);
  });

  it("reports what each server said about itself (title, instructions) with its tools", () => {
    const connected = (server: string) => changes.find((event) => event.server === server && event.reason === "connected");
    expect(connected("beta")?.serverInfo).toEqual({ title: "Beta Arithmetic", instructions: "Adds numbers and echoes text." });
    // alpha's serverInfo.name is its configured name, and it sends no instructions
    expect(connected("alpha")?.serverInfo).toEqual({});
  });

  it("lists the tools of every server under namespaced names", () => {
    const names = manager.listTools().map((tool) => tool.namespacedName);
    expect(names).toContain("alpha__echo");
    expect(names).toContain("beta__echo");
    expect(names).toContain("web__lookup");
    expect(names).toContain("web__slow");
    const webLookup = manager.getTool("web__lookup");
    expect(webLookup).toMatchObject({ server: "web", name: "lookup", available: true, annotations: { readOnlyHint: true } });
    expect(webLookup?.inputSchema).toMatchObject({ type: "object", properties: { key: { type: "string" } } });
    expect(manager.listTools().filter((t) => t.server === "beta").map((t) => t.name)).toEqual(["echo", "add", "fail"]);
    expect(manager.status().find((s) => s.name === "beta")?.toolCount).toBe(3);
  });

  it("applies deny lists, allow lists, description overrides and tags", () => {
    const names = manager.listTools().map((tool) => tool.namespacedName);
    expect(names).not.toContain("alpha__secret_admin");
    expect(names).toContain("alpha__hang");
    expect(names).not.toContain("beta__hang");
    const alphaEcho = manager.getTool("alpha__echo");
    expect(alphaEcho?.description).toBe("Say it back, verbatim.");
    expect(alphaEcho?.tags).toEqual(["fixture", "text"]);
    expect(manager.getTool("alpha__add")?.tags).toEqual(["fixture"]);
    expect(manager.getTool("beta__echo")?.description).toBe("Echoes the text back (beta).");
    expect(manager.getTool("alpha__secret_admin")).toBeUndefined();
  });

  it("converts tools to MCP tools with the namespaced name", () => {
    const tool = manager.getTool("beta__add");
    expect(tool).toBeDefined();
    const mcp = toMcpTool(tool!);
    expect(mcp.name).toBe("beta__add");
    expect(mcp.description).toBe("Adds two numbers.");
    expect(mcp.inputSchema.required).toEqual(["a", "b"]);
    expect(mcp.outputSchema?.properties).toHaveProperty("sum");
  });

  it("sends the configured HTTP headers", () => {
    expect(http.authorizations.length).toBeGreaterThan(0);
    expect(new Set(http.authorizations)).toEqual(new Set(["Bearer http-fixture-token-123"]));
  });

  it("proxies calls with arguments to the right server", async () => {
    expect(firstText(await manager.callTool("alpha__echo", { text: "hi" }))).toBe("alpha: hi");
    expect(firstText(await manager.callTool("beta__echo", { text: "hi" }))).toBe("beta: hi");
    const sum = await manager.callTool("beta__add", { a: 2, b: 40 });
    expect(sum.structuredContent).toEqual({ sum: 42 });
    const lookup = await manager.callTool("web__lookup", { key: "omega" }, { usageContext: "find the last letter" });
    expect(firstText(lookup)).toBe("last letter");
    expect(lookup.isError).toBeFalsy();
  });

  it("reports successful calls for usage learning", () => {
    const lookup = reports.find((r) => r.namespacedName === "web__lookup");
    expect(lookup).toMatchObject({ server: "web", tool: "lookup", attempts: 1, usageContext: "find the last letter" });
    expect(lookup?.latencyMs).toBeGreaterThanOrEqual(0);
    expect(reports.map((r) => r.namespacedName)).toEqual(expect.arrayContaining(["alpha__echo", "beta__echo", "beta__add"]));
  });

  it("returns tool-level errors as-is, without retrying or reporting them", async () => {
    const before = trace.ofType("tool-call-start").length;
    const result = await manager.callTool("alpha__fail", { reason: "on purpose" });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toBe("failed: on purpose");
    expect(trace.ofType("tool-call-start").length - before).toBe(1);
    const end = trace.ofType("tool-call-end").at(-1);
    expect(end).toMatchObject({ server: "alpha", tool: "fail", outcome: "error", errorCode: "TOOL_RESULT_IS_ERROR" });
    expect(reports.some((r) => r.tool === "fail")).toBe(false);

    const missing = await manager.callTool("web__lookup", { key: "nothing" });
    expect(missing.isError).toBe(true);
    // invalid arguments are a tool-level error from the SDK server, too
    const invalid = await manager.callTool("beta__add", { a: "two" });
    expect(invalid.isError).toBe(true);
  });

  it("rejects unknown, unnamespaced and denied tools with TOOL_NOT_FOUND", async () => {
    for (const name of ["nowhere__echo", "echo", "alpha__secret_admin", "beta__hang", "alpha__missing", "alpha__"]) {
      const error = await rejectionOf(manager.callTool(name, {}));
      expect(error.code, name).toBe("TOOL_NOT_FOUND");
      expect(error.message).toContain(name);
    }
  });

  it("maps a JSON-RPC error from the server to TOOL_EXECUTION_FAILED without retrying, keeping its code, message (once) and redacted data", async () => {
    const before = trace.ofType("tool-call-start").length;
    const error = await rejectionOf(manager.callTool("alpha__protocol_error", {}));
    expect(error.code).toBe("TOOL_EXECUTION_FAILED");
    expect(error.message).toBe('downstream server "alpha" rejected the call of "protocol_error": this tool needs a browser');
    expect(error.details).toMatchObject({
      server: "alpha",
      tool: "protocol_error",
      jsonRpcCode: -32042,
      jsonRpcMessage: "this tool needs a browser",
      jsonRpcData: { elicitations: [{ mode: "url", url: "https://auth.example.test/?session=[REDACTED]" }] },
    });
    expect(JSON.stringify(error.details)).not.toContain("alpha-data-token-4711");
    expect(trace.ofType("tool-call-start").length - before).toBe(1);
  });

  it("times out a hanging call with TOOL_EXECUTION_FAILED and keeps the server when it still answers pings", async () => {
    const before = trace.ofType("tool-call-start").length;
    const error = await rejectionOf(manager.callTool("alpha__hang", {}, { timeoutMs: 200 }));
    expect(error.code).toBe("TOOL_EXECUTION_FAILED");
    expect(error.message).toMatch(/timed out after 200 ms/);
    // not annotated read-only/idempotent: not retried
    expect(trace.ofType("tool-call-start").length - before).toBe(1);
    expect(trace.ofType("tool-call-end").at(-1)).toMatchObject({ tool: "hang", outcome: "timeout", errorCode: "TOOL_EXECUTION_FAILED" });
    // the next call waits for the health ping the timeout triggered; the server passes it
    expect(firstText(await manager.callTool("alpha__echo", { text: "still here" }))).toBe("alpha: still here");
    expect(manager.status().find((s) => s.name === "alpha")).toMatchObject({ state: "connected", restarts: 0 });
  });

  it("retries timeouts of read-only tools with backoff, up to the configured retries", async () => {
    const before = trace.ofType("tool-call-start").length;
    const error = await rejectionOf(manager.callTool("alpha__sleep", { ms: 2_000 }, { timeoutMs: 100 }));
    expect(error.code).toBe("TOOL_EXECUTION_FAILED");
    const starts = trace.ofType("tool-call-start").slice(before);
    expect(starts.map((e) => [e.tool, e.attempt])).toEqual([
      ["sleep", 1],
      ["sleep", 2],
      ["sleep", 3],
    ]);
    expect(trace.ofType("tool-call-end").slice(-3).map((e) => e.outcome)).toEqual(["timeout", "timeout", "timeout"]);
  });

  it("aborts a call when the caller's signal aborts", async () => {
    const controller = new AbortController();
    const call = manager.callTool("web__slow", { ms: 5_000 }, { signal: controller.signal, timeoutMs: 10_000 });
    controller.abort(new Error("user cancelled"));
    const error = await rejectionOf(call);
    expect(error.code).toBe("ABORTED");
  });

  it("lists a tool whose namespaced name exceeds 64 characters under a stable shortened name that calls reach", async () => {
    const longTool = "summarise_every_open_incident_of_the_last_quarter_by_team_and_severity";
    const expected = namespaceToolName("alpha", longTool);
    expect(expected).toHaveLength(64);
    const added = nextChange((e) => e.server === "alpha" && e.added.includes(expected));
    await manager.callTool("alpha__add_tool", { tool: longTool });
    await added;
    expect(manager.listTools().filter((tool) => tool.namespacedName.length > 64)).toEqual([]);
    expect(manager.getTool(expected)).toMatchObject({ server: "alpha", name: longTool });
    expect(firstText(await manager.callTool(expected, {}))).toBe(`dynamic ${longTool}`);
    await manager.callTool("alpha__remove_tool", { tool: longTool });
  });

  it("follows a stdio server's tools/list_changed notifications", async () => {
    const added = nextChange((e) => e.server === "alpha" && e.added.includes("alpha__late_tool"));
    await manager.callTool("alpha__add_tool", { tool: "late_tool" });
    const event = await added;
    expect(event.reason).toBe("list-changed");
    expect(event.removed).toEqual([]);
    expect(event.updated).toEqual([]);
    expect(event.tools.map((t) => t.namespacedName)).toContain("alpha__late_tool");
    expect(event.tools.every((t) => t.server === "alpha")).toBe(true);
    expect(manager.getTool("alpha__late_tool")?.description).toBe("Dynamic tool late_tool.");
    expect(firstText(await manager.callTool("alpha__late_tool", {}))).toBe("dynamic late_tool");

    const removed = nextChange((e) => e.server === "alpha" && e.removed.includes("alpha__late_tool"));
    await manager.callTool("alpha__remove_tool", { tool: "late_tool" });
    await removed;
    expect(manager.getTool("alpha__late_tool")).toBeUndefined();
    expect((await rejectionOf(manager.callTool("alpha__late_tool", {}))).code).toBe("TOOL_NOT_FOUND");
  });

  it("follows an HTTP server's tools/list_changed notifications", async () => {
    const added = nextChange((e) => e.server === "web" && e.added.includes("web__fresh"));
    http.addTool("fresh");
    expect((await added).reason).toBe("list-changed");
    expect(firstText(await manager.callTool("web__fresh", {}))).toBe("dynamic fresh");
    const removed = nextChange((e) => e.server === "web" && e.removed.includes("web__fresh"));
    http.removeTool("fresh");
    await removed;
  });

  it("ignores list_changed notifications that change only denied tools", async () => {
    const before = changes.length;
    const added = nextChange((e) => e.server === "alpha" && e.added.includes("alpha__visible_tool"));
    await manager.callTool("alpha__add_tool", { tool: "secret_extra" });
    await manager.callTool("alpha__add_tool", { tool: "visible_tool" });
    await added;
    const alphaEvents = changes.slice(before).filter((e) => e.server === "alpha");
    expect(alphaEvents.flatMap((e) => e.added)).toEqual(["alpha__visible_tool"]);
  });

  it("emits only valid trace events", () => {
    expect(trace.events.length).toBeGreaterThan(10);
    for (const event of trace.events) expect(TraceEventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
    const json = JSON.stringify(trace.events);
    expect(json).not.toContain("http-fixture-token-123");
  });
});
