import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { demoFlows, startFlowiseServer, startLangflowServer } from "@afw/backends/test/servers";

const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
type Platform = Awaited<ReturnType<typeof startFlowiseServer>>;

function parse(result: unknown): { isError: boolean; body: Record<string, any> } {
  const r = result as { isError?: boolean; content: Array<{ type: string; text: string }> };
  return { isError: r.isError === true, body: JSON.parse(r.content[0]!.text) };
}

describe("afw CLI end to end (built binary)", () => {
  let flowise: Platform;
  let langflow: Platform;
  const secret = "afw-test-secret-flowise-e2e-0001";

  beforeAll(async () => {
    flowise = await startFlowiseServer({ flows: demoFlows("f"), apiKey: secret });
    langflow = await startLangflowServer({ flows: demoFlows("l") });
  });
  afterAll(async () => {
    await Promise.all([flowise.close(), langflow.close()]);
  });

  it("serves MCP over stdio: lists tools and answers universal_query from a backend, without leaking the API key", async () => {
    const stderr: string[] = [];
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, "serve", "--stdio"],
      env: { PATH: process.env["PATH"] ?? "", FLOWISE_BASE_URL: flowise.url, FLOWISE_API_KEY: secret, LANGFLOW_BASE_URL: langflow.url },
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
    const client = new Client({ name: "e2e", version: "1" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["universal_query", "flowise_query", "list_flows", "explain_routing", "search_tools", "clear_cache"]));

      const first = parse(await client.callTool({ name: "universal_query", arguments: { question: "My Go service panics with nil pointer dereference in the handler, how do I debug it?", session_id: "e2e-1" } }));
      expect(first.isError).toBe(false);
      expect(first.body["result"]).toContain("Let's debug");
      expect(first.body["_mcp_metadata"]).toMatchObject({ intent_classified: "technical-analysis", cache_hit: false, fallback_used: false });
      expect(flowise.runs.length + langflow.runs.length).toBe(1);

      const bad = parse(await client.callTool({ name: "universal_query", arguments: { question: "", timeout: 500 } }));
      expect(bad.isError).toBe(true);
      expect(bad.body["code"]).toBe("INVALID_INPUT");
    } finally {
      await client.close();
    }
    expect(stderr.join("")).not.toContain(secret);
  });

  it("serves Streamable HTTP on loopback with bearer auth: 401 without the token, answers with it", async () => {
    const token = "afw-test-secret-e2e-gateway-token-0123456789";
    const child = spawn(process.execPath, [cli, "serve", "--http", "--port", "0"], {
      env: { PATH: process.env["PATH"] ?? "", AFW_AUTH_TOKENS: token, LANGFLOW_BASE_URL: langflow.url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let text = "";
      child.stderr.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        const match = /serving MCP on (http:\/\/\S+\/mcp)/.exec(text);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`gateway exited with ${code}: ${text}`)));
    });
    try {
      const unauthorized = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
      expect(unauthorized.status).toBe(401);
      expect(await unauthorized.json()).toMatchObject({ code: "UNAUTHORIZED" });

      const client = new Client({ name: "e2e-http", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      const answer = parse(await client.callTool({ name: "universal_query", arguments: { question: "What does the onboarding handbook say about laptop setup? Cite it." } }));
      expect(answer.isError).toBe(false);
      expect(answer.body["_mcp_metadata"]["backend_used"]).toBe("langflow");
      await client.close();
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  });

  it("reloads the configuration file on SIGHUP: new intent patterns apply without a restart", async () => {
    const dir = await mkdtemp(join(tmpdir(), "afw-reload-"));
    const file = join(dir, "afw.yaml");
    const config = (intentPatterns: Record<string, unknown>) =>
      JSON.stringify({
        backends: [{ id: "langflow", kind: "langflow", baseURL: langflow.url }],
        routing: { classifierEmbedder: "hashing", health: { intervalMs: 0 }, intentPatterns },
        logging: { level: "silent" },
      });
    await writeFile(file, config({}));
    const child = spawn(process.execPath, [cli, "serve", "--http", "--port", "0", "--config", file], { env: { PATH: process.env["PATH"] ?? "" }, stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stderr.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    // Patterns are searched from where the previous wait ended.
    let seen = 0;
    const waitFor = (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(text.slice(seen));
          if (match) {
            seen += match.index + match[0].length;
            child.stderr.off("data", check);
            resolve(match);
          }
        };
        child.stderr.on("data", check);
        child.once("exit", (code) => reject(new Error(`gateway exited with ${code}: ${text}`)));
        check();
      });
    try {
      const url = (await waitFor(/serving MCP on (http:\/\/\S+\/mcp)/))[1]!;
      const client = new Client({ name: "e2e-reload", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const question = "hey, can you zorbify this for me?";
      const before = parse(await client.callTool({ name: "explain_routing", arguments: { question } }));
      expect(before.body["decision"]["intent"]).not.toBe("data-processing");

      await writeFile(file, config({ "data-processing": { keywords: { zorbify: 8 } } }));
      child.kill("SIGHUP");
      await waitFor(/configuration reloaded: intent patterns/);
      const after = parse(await client.callTool({ name: "explain_routing", arguments: { question } }));
      expect(after.body["decision"]["intent"]).toBe("data-processing");

      await writeFile(file, "backends: [");
      child.kill("SIGHUP");
      await waitFor(/configuration reload failed \(nothing applied\)/);
      const still = parse(await client.callTool({ name: "explain_routing", arguments: { question } }));
      expect(still.body["decision"]["intent"]).toBe("data-processing");
      await client.close();
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("answers usage errors with exit code 2 and one line, never a stack trace", () => {
    const run = spawnSync(process.execPath, [cli, "tools", "search", "--catalog", "/nonexistent.json"], { encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/catalog file not found/);
    const unknown = spawnSync(process.execPath, [cli, "frobnicate"], { encoding: "utf8" });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).not.toMatch(/\n\s+at /);
  });

  it("runs the demo: routing, fallback, cache hit and session resume", () => {
    const run = spawnSync(process.execPath, [cli, "demo"], { encoding: "utf8", timeout: 60_000 });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/cache hit\s+true/);
    expect(run.stdout).toMatch(/fallback true/);
    expect(run.stdout).toMatch(/2 turns remembered/);
  });
});
