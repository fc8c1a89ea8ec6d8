import { createServer, type Server } from "node:http";
import type { LookupAddress } from "node:dns";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { lookupFromResolver, outboundConnectPolicy, type HostLookup } from "./network-policy.js";
import { createOutboundFetch, OutboundAddressRefusedError, type OutboundFetch } from "./outbound-fetch.js";

describe("outboundConnectPolicy (the connection-time rules)", () => {
  it("applies the address rules of the URL's allowlist match to each connection's address", () => {
    const any = outboundConnectPolicy("http://flows.example.com", { allowedHosts: ["*"] });
    expect(any("93.184.216.34", 4, "flows.example.com")).toBe(true);
    expect(any("127.0.0.1", 4, "flows.example.com")).toContain("loopback address (127.0.0.1)");
    expect(any("10.1.2.3", 4, "flows.example.com")).toContain("private address");
    expect(any("::ffff:169.254.169.254", 6, "flows.example.com")).toContain("cloud metadata");

    const domain = outboundConnectPolicy("http://a.flows.internal:3000", { allowedHosts: ["*.flows.internal"] });
    expect(domain("10.0.0.5", 4, "a.flows.internal")).toBe(true);
    expect(domain("169.254.169.254", 4, "a.flows.internal")).toContain("exact allowlist entry");

    const exact = outboundConnectPolicy("http://169.254.169.254/", { allowedHosts: ["169.254.169.254"] });
    expect(exact("169.254.169.254", 4, "169.254.169.254")).toBe(true);

    const configured = outboundConnectPolicy("http://localhost:8931/mcp");
    expect(configured("127.0.0.1", 4, "localhost")).toBe(true);
    expect(configured("169.254.169.254", 4, "localhost")).toContain("cloud metadata");
  });

  it("makes another host (a redirect) match the allowlist itself; without one, public addresses only", () => {
    const listed = outboundConnectPolicy("http://a.flows.internal", { allowedHosts: ["a.flows.internal"] });
    expect(listed("10.0.0.5", 4, "b.flows.internal", 80)).toContain("not in the allowlist");
    const configured = outboundConnectPolicy("http://127.0.0.1:8931/mcp");
    expect(configured("127.0.0.1", 4, "127.0.0.1", 8931)).toBe(true);
    expect(configured("127.0.0.1", 4, "127.0.0.1", 9999)).toContain("covers public addresses only");
    expect(configured("93.184.216.34", 4, "elsewhere.example.com", 80)).toBe(true);
  });
});

describe("createOutboundFetch", () => {
  const servers: Server[] = [];
  const fetches: OutboundFetch[] = [];
  afterEach(async () => {
    await Promise.all(fetches.splice(0).map((f) => f.close()));
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  async function serve(host: string, handler: (path: string) => { status: number; headers?: Record<string, string>; body?: string }) {
    const state = { connections: 0, requests: [] as string[], port: 0 };
    const server = createServer((request, response) => {
      state.requests.push(request.url ?? "");
      const reply = handler(request.url ?? "");
      response.writeHead(reply.status, reply.headers).end(reply.body ?? "");
    });
    server.on("connection", () => state.connections++);
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    servers.push(server);
    state.port = (server.address() as AddressInfo).port;
    return state;
  }

  const fixed = (address: string): HostLookup =>
    ((_host: string, options: { all?: boolean }, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) =>
      options.all ? callback(null, [{ address, family: 4 }]) : callback(null, address, 4)) as unknown as HostLookup;

  it("refuses an IP-literal host before connecting", async () => {
    const target = await serve("127.0.0.1", () => ({ status: 200, body: "secret internal data" }));
    const outbound = createOutboundFetch({ policy: outboundConnectPolicy(`http://127.0.0.1:${target.port}/`, { allowedHosts: ["*"] }) });
    fetches.push(outbound);
    const error = await outbound.fetch(`http://127.0.0.1:${target.port}/`).catch((e: unknown) => e);
    expect(OutboundAddressRefusedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("covers public addresses only");
    expect(target.connections).toBe(0);
  });

  it("checks every redirect hop: a listed host redirecting to an unlisted literal address is refused", async () => {
    const inner = await serve("127.0.0.2", () => ({ status: 200, body: "internal" }));
    const front = await serve("127.0.0.1", () => ({ status: 302, headers: { location: `http://127.0.0.2:${inner.port}/admin` } }));
    const url = `http://front.test:${front.port}/mcp`;
    const outbound = createOutboundFetch({ policy: outboundConnectPolicy(url, { allowedHosts: ["front.test"] }), lookup: fixed("127.0.0.1") });
    fetches.push(outbound);
    const error = await outbound.fetch(url).catch((e: unknown) => e);
    expect(front.requests).toEqual(["/mcp"]);
    expect(OutboundAddressRefusedError.isInstance(error)).toBe(true);
    expect((error as OutboundAddressRefusedError).address).toBe("127.0.0.2");
    expect(inner.connections).toBe(0);
  });

  it("answers through an allowed connection, looking up (and checking) every new connection", async () => {
    const target = await serve("127.0.0.1", (path) => ({ status: 200, headers: { "content-type": "text/plain" }, body: `hello ${path}` }));
    const url = `http://ok.test:${target.port}`;
    const asked: string[] = [];
    const outbound = createOutboundFetch({
      policy: outboundConnectPolicy(url, { allowedHosts: ["ok.test"] }),
      lookup: lookupFromResolver(async (host) => {
        asked.push(host);
        return ["127.0.0.1"];
      }),
    });
    fetches.push(outbound);
    expect(await (await outbound.fetch(`${url}/a`)).text()).toBe("hello /a");
    expect(await (await outbound.fetch(`${url}/b`)).text()).toBe("hello /b");
    expect(target.connections).toBeGreaterThan(0);
    expect(asked).toHaveLength(target.connections);
    expect(new Set(asked)).toEqual(new Set(["ok.test"]));
  });
});
