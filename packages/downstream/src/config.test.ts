import { AfwError } from "@afw/contracts";
import { describe, expect, it } from "vitest";
import { DownstreamServerNameSchema, parseDownstreamConfig } from "./config.js";

function problemsOf(input: unknown): string[] {
  try {
    parseDownstreamConfig(input);
  } catch (error) {
    expect(AfwError.isInstance(error)).toBe(true);
    expect((error as AfwError).code).toBe("CONFIG_INVALID");
    return (error as AfwError).details?.problems as string[];
  }
  throw new Error("expected the config to be rejected");
}

describe("parseDownstreamConfig", () => {
  it("applies defaults", () => {
    const config = parseDownstreamConfig({
      servers: [
        { name: "files", transport: "stdio", command: "npx", args: ["-y", "server-filesystem", "/tmp"] },
        { name: "docs", transport: "http", url: "https://example.com/mcp" },
      ],
    });
    const [files, docs] = config.servers;
    expect(files).toMatchObject({ mode: "hot", enabled: true, retries: 2, retryUnsafeCalls: false, env: {}, deny: [], tags: [], toolOverrides: {} });
    expect(files?.allow).toBeUndefined();
    expect(docs).toMatchObject({ transport: "http", protocol: "streamable-http", headers: {}, callTimeoutMs: 60_000 });
    expect(config.restartBackoff).toEqual({ initialDelayMs: 500, maxDelayMs: 30_000 });
    expect(config.discoverColdServers).toBe(true);
    expect(parseDownstreamConfig({}).servers).toEqual([]);
  });

  it("fills backoff fields that are left out", () => {
    const config = parseDownstreamConfig({ restartBackoff: { maxDelayMs: 5_000 } });
    expect(config.restartBackoff).toEqual({ initialDelayMs: 500, maxDelayMs: 5_000 });
  });

  it("names the server and the field of every problem", () => {
    const problems = problemsOf({
      servers: [
        { name: "ok", transport: "stdio", command: "node" },
        { name: "web", transport: "http", url: "ftp://example.com", idleTimeout: 5 },
        { name: "bad", transport: "stdio", command: "" },
        { name: "nope" },
      ],
    });
    expect(problems).toEqual([
      'server "web" (servers[1]): url: url must be an http(s) URL',
      'server "web" (servers[1]): Unrecognized key: "idleTimeout"',
      'server "bad" (servers[2]): command: command must not be empty',
      'server "nope" (servers[3]): transport: transport must be "stdio" (with command) or "http" (with url)',
    ]);
  });

  it("rejects duplicate server names", () => {
    const problems = problemsOf({
      servers: [
        { name: "same", transport: "stdio", command: "a" },
        { name: "same", transport: "stdio", command: "b" },
      ],
    });
    expect(problems).toEqual(['server "same" (servers[1]): name: duplicate server name (also used by servers[0])']);
  });

  it("rejects invalid values with readable messages", () => {
    const problems = problemsOf({ servers: [{ name: "x", transport: "stdio", command: "a", mode: "warm", retries: -1 }] });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^server "x" \(servers\[0\]\): mode: /);
    expect(problems[1]).toMatch(/^server "x" \(servers\[0\]\): retries: /);
  });
});

describe("server names", () => {
  it("accepts names safe for namespacing", () => {
    for (const name of ["github", "my-server", "my_server", "_private", "S3", "a-b_c-9"]) expect(DownstreamServerNameSchema.safeParse(name).success, name).toBe(true);
  });

  it("rejects names that would make namespaced names ambiguous or unsafe", () => {
    const cases: Record<string, RegExp> = {
      "": /must not be empty/,
      "a__b": /must not contain '__'/,
      "ends_": /must not end with '_'/,
      "my.server": /only contain letters, digits/,
      "my server": /only contain letters, digits/,
      ["x".repeat(65)]: /at most 64/,
    };
    for (const [name, message] of Object.entries(cases)) {
      const result = DownstreamServerNameSchema.safeParse(name);
      expect(result.success, name).toBe(false);
      expect(result.error?.issues[0]?.message).toMatch(message);
    }
  });
});
