import { AfwError } from "@afw/contracts";
import { describe, expect, it } from "vitest";
import { importMcpJson } from "./mcp-json.js";

function problemsOf(json: unknown, options?: Parameters<typeof importMcpJson>[1]): string[] {
  try {
    importMcpJson(json, options);
  } catch (error) {
    expect(AfwError.isInstance(error)).toBe(true);
    expect((error as AfwError).code).toBe("CONFIG_INVALID");
    return ((error as AfwError).details?.problems as string[] | undefined) ?? [(error as AfwError).message];
  }
  throw new Error("expected the import to fail");
}

describe("importMcpJson", () => {
  it("converts stdio, http, streamable-http and sse entries", () => {
    const config = importMcpJson({
      mcpServers: {
        memory: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"], env: { MEMORY_FILE_PATH: "/tmp/m.jsonl" } },
        local: { type: "stdio", command: "node", args: ["server.js"], cwd: "/srv" },
        docs: { url: "https://example.com/mcp", headers: { Authorization: "Bearer abc" } },
        typed: { type: "http", url: "http://127.0.0.1:9000/mcp" },
        streamable: { type: "streamable-http", url: "http://127.0.0.1:9001/mcp" },
        legacy: { type: "sse", url: "http://127.0.0.1:9002/sse" },
      },
    });
    expect(config.servers.map((s) => [s.name, s.transport, s.transport === "http" ? s.protocol : s.command])).toEqual([
      ["memory", "stdio", "npx"],
      ["local", "stdio", "node"],
      ["docs", "http", "streamable-http"],
      ["typed", "http", "streamable-http"],
      ["streamable", "http", "streamable-http"],
      ["legacy", "http", "sse"],
    ]);
    expect(config.servers[0]).toMatchObject({ args: ["-y", "@modelcontextprotocol/server-memory"], env: { MEMORY_FILE_PATH: "/tmp/m.jsonl" }, mode: "hot" });
    expect(config.servers[1]).toMatchObject({ cwd: "/srv" });
    expect(config.servers[2]).toMatchObject({ url: "https://example.com/mcp", headers: { Authorization: "Bearer abc" } });
  });

  it("accepts the JSON text and VS Code's `servers` key", () => {
    const config = importMcpJson('{"servers": {"git": {"type": "stdio", "command": "uvx", "args": ["mcp-server-git"]}}}');
    expect(config.servers).toHaveLength(1);
    expect(config.servers[0]).toMatchObject({ name: "git", command: "uvx" });
  });

  it("skips disabled servers and ignores client-specific keys", () => {
    const config = importMcpJson({
      mcpServers: {
        on: { command: "a", alwaysAllow: ["x"], autoApprove: [], timeout: 60 },
        off: { command: "b", disabled: true },
      },
    });
    expect(config.servers.map((s) => s.name)).toEqual(["on"]);
  });

  it("expands ${VAR} and ${VAR:-default} when given an environment", () => {
    const config = importMcpJson(
      {
        mcpServers: {
          gh: { command: "${HOME_BIN}/gh-mcp", env: { GITHUB_TOKEN: "${GH_TOKEN}", MODE: "${GH_MODE:-read}" } },
          docs: { url: "https://${DOCS_HOST}/mcp", headers: { Authorization: "Bearer ${DOCS_TOKEN}" } },
        },
      },
      { env: { HOME_BIN: "/opt/bin", GH_TOKEN: "ghp_x", DOCS_HOST: "docs.example.com", DOCS_TOKEN: "t0k" } },
    );
    expect(config.servers[0]).toMatchObject({ command: "/opt/bin/gh-mcp", env: { GITHUB_TOKEN: "ghp_x", MODE: "read" } });
    expect(config.servers[1]).toMatchObject({ url: "https://docs.example.com/mcp", headers: { Authorization: "Bearer t0k" } });
    // without an environment, strings are kept as written
    expect(importMcpJson({ mcpServers: { gh: { command: "x", env: { T: "${GH_TOKEN}" } } } }).servers[0]).toMatchObject({ env: { T: "${GH_TOKEN}" } });
  });

  it("reports unset variables with the server that needs them", () => {
    expect(problemsOf({ mcpServers: { gh: { command: "gh", env: { T: "${GH_TOKEN}", U: "${OTHER}" } } } }, { env: {} })).toEqual([
      'server "gh": environment variables ${GH_TOKEN}, ${OTHER} not set and without default',
    ]);
  });

  it("names the server and field of every problem", () => {
    expect(
      problemsOf({
        mcpServers: {
          good: { command: "a" },
          nothing: { args: ["x"] },
          badurl: { url: "not a url" },
          weird: { type: "websocket", url: "ws://x" },
          "my.server": { command: "b" },
          notobject: "npx thing",
          badargs: { command: "c", args: "one two" },
        },
      }),
    ).toEqual([
      'server "nothing": needs either "command" (stdio) or "url" (http)',
      'server "badurl": url: url must be an http(s) URL',
      'server "weird": type: unknown type "websocket" (expected "stdio", "http", "streamable-http" or "sse")',
      `server "my.server": name: server name may only contain letters, digits, '_' and '-' (rename it, e.g. "my_server")`,
      'server "notobject": must be an object with command or url',
      'server "badargs": args: Invalid input: expected array, received string',
    ]);
  });

  it("rejects documents without servers and invalid JSON", () => {
    expect(problemsOf("{not json")[0]).toMatch(/^mcp.json is not valid JSON/);
    expect(problemsOf({ other: {} })[0]).toMatch(/must have an `mcpServers` object/);
    expect(problemsOf([])[0]).toMatch(/must be a JSON object/);
  });
});
