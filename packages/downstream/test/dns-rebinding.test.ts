// DNS rebinding against downstream HTTP MCP servers, without DNS: an injected resolver answers the
// configuration-time check with one address and the connection with another. The fixture (a real
// MCP server on 127.0.0.1) counts the TCP connections it accepts: a refused connection is none.
import { afterAll, describe, expect, it } from "vitest";
import { createManagerTracker, firstText } from "./helpers.js";
import { startHttpFixture, type HttpFixture } from "./http-fixture.js";

const { create, statusOf, stopAll } = createManagerTracker();
afterAll(stopAll);

/** Answers the i-th resolution with `answers[i]` (the last one repeats) and records the names asked. */
function sequenceResolver(answers: readonly string[][]) {
  const asked: string[] = [];
  const resolve = async (host: string) => {
    const answer = answers[Math.min(asked.length, answers.length - 1)]!;
    asked.push(host);
    return answer;
  };
  return { resolve, asked };
}

describe("a downstream HTTP server whose name rebinds between the check and the connection", () => {
  const fixtures: HttpFixture[] = [];
  afterAll(async () => Promise.all(fixtures.map((f) => f.close())));
  const start = async () => {
    const fixture = await startHttpFixture();
    fixtures.push(fixture);
    return fixture;
  };
  /** A started manager of one HTTP server `web` named mcp.rebind.test, whose resolutions answer `answers` in turn. */
  const startRebinding = async (answers: string[][], allowedHosts: string[], settings: { maxRestarts?: number } = {}) => {
    const fixture = await start();
    const resolver = sequenceResolver(answers);
    const manager = create(
      { servers: [{ name: "web", transport: "http", url: `http://mcp.rebind.test:${fixture.port}/mcp`, pingIntervalMs: 0 }], allowedHosts, ...settings },
      { resolveHost: resolver.resolve },
    );
    await manager.start();
    return { fixture, resolver, manager };
  };

  it("is refused when the name answers a public address to the check and 127.0.0.1 to the connection ('*' entry)", async () => {
    const { fixture, resolver, manager } = await startRebinding([["93.184.216.34"], ["127.0.0.1"]], ["*"], { maxRestarts: 0 });
    const status = statusOf(manager, "web");
    expect(resolver.asked.length).toBeGreaterThanOrEqual(2);
    expect(status.lastError).toContain("refused by the outbound address policy at connection time");
    expect(status.lastError).toContain("loopback address (127.0.0.1)");
    expect(manager.listTools()).toEqual([]);
    expect(fixture.connectionCount()).toBe(0);
  });

  it("is refused when a domain entry's name answers loopback to the check and the metadata address to the connection", async () => {
    const { fixture, manager } = await startRebinding([["127.0.0.1"], ["169.254.169.254"]], ["*.rebind.test"], { maxRestarts: 0 });
    expect(statusOf(manager, "web").lastError).toContain("cloud metadata address (169.254.169.254)");
    expect(fixture.connectionCount()).toBe(0);
  });

  it("connects when the connection goes to an address the entry allows (loopback through a domain entry)", async () => {
    const { fixture, resolver, manager } = await startRebinding([["127.0.0.1"]], ["*.rebind.test"]);
    expect(firstText(await manager.callTool("web__lookup", { key: "alpha" }))).toBe("first letter");
    expect(fixture.connectionCount()).toBeGreaterThan(0);
    // The connection's own lookup ran, not only the check.
    expect(resolver.asked.length).toBeGreaterThanOrEqual(2);
  });

  it("an operator-configured loopback URL (no allowlist) still connects", async () => {
    const fixture = await start();
    const manager = create({ servers: [{ name: "local", transport: "http", url: fixture.url, pingIntervalMs: 0 }] });
    await manager.start();
    expect(firstText(await manager.callTool("local__lookup", { key: "omega" }))).toBe("last letter");
  });
});

describe("downstream HTTP servers and the outbound address policy", () => {
  it("refuses special addresses and hosts off the allowlist at configuration time", async () => {
    const { parseDownstreamConfig } = await import("../src/config.js");
    const server = (url: string) => ({ name: "web", transport: "http" as const, url });
    expect(() => parseDownstreamConfig({ servers: [server("http://169.254.169.254/mcp")] })).toThrow(/metadata address/);
    expect(() => parseDownstreamConfig({ servers: [server("http://[::ffff:a9fe:a9fe]/mcp")] })).toThrow(/metadata address/);
    expect(() => parseDownstreamConfig({ servers: [server("http://[fe80::1]/mcp")] })).toThrow(/link-local/);
    expect(() => parseDownstreamConfig({ servers: [server("http://tools.example.com/mcp")], allowedHosts: ["*.internal"] })).toThrow(/not in downstream.allowedHosts/);
    expect(parseDownstreamConfig({ servers: [server("http://127.0.0.1:8931/mcp")] }).servers).toHaveLength(1);
    expect(parseDownstreamConfig({ servers: [server("http://169.254.169.254/mcp")], allowedHosts: ["169.254.169.254"] }).allowedHosts).toEqual(["169.254.169.254"]);
  });

  it("never connects to a server whose name resolves to a metadata address", async () => {
    const { createDownstreamManager } = await import("../src/downstream-manager.js");
    const asked: string[] = [];
    const manager = createDownstreamManager(
      { servers: [{ name: "web", transport: "http", url: "http://tools.example.com:1/mcp", connectTimeoutMs: 2_000 }], maxRestarts: 0 },
      {
        resolveHost: async (host) => {
          asked.push(host);
          return ["169.254.169.254"];
        },
      },
    );
    try {
      await manager.start();
      const [status] = manager.status();
      expect(asked).toContain("tools.example.com");
      expect(JSON.stringify(status)).toContain("outbound address policy");
    } finally {
      await manager.stop();
    }
  });
});
