import { createServer, type Server } from "node:http";
import type { LookupAddress } from "node:dns";
import type { AddressInfo } from "node:net";
import { fetch as undiciFetch, type Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { BackendError } from "@afw/contracts";
import {
  canonicalAddress,
  checkOutboundUrl,
  classifyAddress,
  ConnectRefusedError,
  createOutboundAgent,
  findConnectRefusal,
  lookupFromResolver,
  matchHostPattern,
  outboundConnectPolicy,
  type ConnectPolicy,
  type HostLookup,
  type HostResolver,
  type OutboundAgentOptions,
} from "./address-policy.js";
import { errorFromException } from "./error-mapping.js";
import { HttpClient, iterateBody } from "./http-client.js";
import { createFlowiseBackend } from "./flowise-backend.js";
import { createLangflowBackend } from "./langflow-backend.js";

describe("canonicalAddress", () => {
  it.each([
    ["127.0.0.1", "127.0.0.1"],
    ["2130706433", "127.0.0.1"],
    ["017700000001", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["10.0.1", "10.0.0.1"],
    ["169.254.169.254.", "169.254.169.254"],
    ["0xA9FEA9FE", "169.254.169.254"],
    ["2852039166", "169.254.169.254"],
    ["::1", "0:0:0:0:0:0:0:1"],
    ["[::1]", "0:0:0:0:0:0:0:1"],
    ["::ffff:127.0.0.1", "0:0:0:0:0:ffff:7f00:1"],
    ["::ffff:7f00:1", "0:0:0:0:0:ffff:7f00:1"],
    ["fe80::1%eth0", "fe80:0:0:0:0:0:0:1"],
    ["FD00:EC2::254", "fd00:ec2:0:0:0:0:0:254"],
    ["1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"],
  ])("reads the form %s as %s", (text, canonical) => {
    expect(canonicalAddress(text)).toBe(canonical);
  });

  it.each(["localhost", "example.com", "dead.beef", "256.1.1.1", "1.2.3.4.5", "0x1.0x100.1.1", "08.1.1.1", "4294967296", "", "1::2::3", "::g", "[::1"])(
    "refuses %j",
    (text) => {
      expect(canonicalAddress(text)).toBeUndefined();
    },
  );
});

describe("classifyAddress", () => {
  const addressesByClass: Record<string, string[]> = {
    public: ["8.8.8.8", "93.184.216.34", "2606:4700::1111"],
    loopback: ["127.0.0.1", "127.255.255.254", "2130706433", "0x7f.1", "::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "64:ff9b::7f00:1", "2002:7f00:1::"],
    private: ["10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "100.64.0.1", "fd12:3456::1", "fc00::1", "::ffff:10.0.0.1"],
    metadata: ["169.254.169.254", "0xa9fea9fe", "::ffff:169.254.169.254", "::ffff:a9fe:a9fe", "fd00:ec2::254", "169.254.170.2", "100.100.100.200"],
    "link-local": ["169.254.1.1", "fe80::1"],
    unspecified: ["0.0.0.0", "0", "::"],
    multicast: ["224.0.0.1", "ff02::1"],
    reserved: ["255.255.255.255", "192.0.2.1", "2001:db8::1", "2001:0:4136:e378::1"],
  };
  it.each(Object.entries(addressesByClass).flatMap(([expected, texts]) => texts.map((text) => [text, expected])))("%s is %s", (text, expected) => {
    expect(classifyAddress(text)).toBe(expected);
  });

  it("does not classify host names", () => {
    expect(classifyAddress("metadata.google.internal")).toBeUndefined();
  });

  it("agrees with the WHATWG URL parser on exotic IPv4 spellings", () => {
    for (const host of ["2130706433", "0x7f.1", "0177.0.0.01", "127.1", "0x7f.0.0.0x1"]) {
      const url = new URL(`http://${host}:8080/`);
      expect(url.hostname, host).toBe("127.0.0.1");
      expect(canonicalAddress(host), host).toBe(url.hostname);
    }
  });
});

describe("matchHostPattern", () => {
  const patterns = ["localhost", "*.example.com", "10.0.0.5:8080", "[::1]:3000"];
  it.each([
    ["http://localhost:9999", "exact"],
    ["http://LOCALHOST.:9999", "exact"],
    ["https://a.b.example.com", "domain"],
    ["https://example.com", undefined],
    ["https://badexample.com", undefined],
    ["https://example.com.evil.net", undefined],
    ["http://10.0.0.5:8080", "exact"],
    ["http://0xa.0.0.5:8080", "exact"],
    ["http://167772165:8080", "exact"],
    ["http://10.0.0.5", undefined],
    ["http://[::1]:3000", "exact"],
    ["http://[::1]:3001", undefined],
    ["http://127.0.0.1:3000@evil.com/", undefined],
  ])("%s -> %s", (url, expected) => {
    expect(matchHostPattern(new URL(url), patterns)).toBe(expected);
  });

  it("prefers the most specific entry and never lets a wildcard match an address", () => {
    expect(matchHostPattern(new URL("http://flows.internal"), ["*", "flows.internal"])).toBe("exact");
    expect(matchHostPattern(new URL("http://x.flows.internal"), ["*", "*.flows.internal"])).toBe("domain");
    expect(matchHostPattern(new URL("http://10.0.0.5"), ["*.5"])).toBeUndefined();
    expect(matchHostPattern(new URL("http://anything"), ["*"])).toBe("any");
  });
});

describe("checkOutboundUrl", () => {
  const resolver =
    (table: Record<string, string[]>): HostResolver =>
    async (host) => {
      const found = table[host];
      if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
      return found;
    };
  const resolve = resolver({
    "public.example.com": ["93.184.216.34"],
    "rebind.example.com": ["93.184.216.34", "10.0.0.7"],
    "meta.example.com": ["169.254.169.254"],
    "lo.example.com": ["::ffff:127.0.0.1"],
    "flowise.internal": ["10.0.0.5"],
    "metadata.google.internal": ["169.254.169.254"],
  });

  it("lets '*' reach public addresses only, whatever the spelling or DNS name", async () => {
    const any = { allowedHosts: ["*"], resolve };
    expect(await checkOutboundUrl("http://public.example.com/", any)).toMatchObject({ allowed: true, match: "any" });
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://[fd00:ec2::254]/",
      "http://2852039166/",
      "http://0xa9.0xfe.0xa9.0xfe/",
      "http://[::ffff:169.254.169.254]/",
      "http://127.0.0.1:3000/",
      "http://2130706433/",
      "http://0177.0.0.1/",
      "http://127.1/",
      "http://[::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://localhost/",
      "http://api.localhost/",
      "http://10.0.0.1/",
      "http://192.168.0.10/",
      "http://[fd12::1]/",
      "http://169.254.10.10/",
      "http://0.0.0.0/",
      "http://meta.example.com/",
      "http://lo.example.com/",
      "http://rebind.example.com/",
      "http://nowhere.example.com/",
    ]) {
      const decision = await checkOutboundUrl(url, any);
      expect(decision.allowed, url).toBe(false);
    }
  });

  it("lets named hosts and domains reach private addresses, but metadata only through an exact entry", async () => {
    expect(await checkOutboundUrl("http://flowise.internal:3000", { allowedHosts: ["flowise.internal"], resolve })).toMatchObject({ allowed: true, match: "exact" });
    expect(await checkOutboundUrl("http://flowise.internal:3000", { allowedHosts: ["*.internal"], resolve })).toMatchObject({ allowed: true, match: "domain" });
    expect(await checkOutboundUrl("http://127.0.0.1:3000", { allowedHosts: ["127.0.0.1:3000"], resolve })).toMatchObject({ allowed: true });
    const viaDomain = await checkOutboundUrl("http://metadata.google.internal/", { allowedHosts: ["*.internal"], resolve });
    expect(viaDomain).toMatchObject({ allowed: false });
    expect(viaDomain.allowed ? "" : viaDomain.reason).toContain("cloud metadata");
    expect(await checkOutboundUrl("http://169.254.169.254/", { allowedHosts: ["169.254.169.254"], resolve })).toMatchObject({ allowed: true, match: "exact" });
    expect(await checkOutboundUrl("http://unresolved.internal/", { allowedHosts: ["*.internal"], resolve })).toMatchObject({ allowed: true, targets: [] });
  });

  it("allows operator-configured URLs (no allowlist) to private hosts but never to metadata or link-local", async () => {
    expect(await checkOutboundUrl("http://127.0.0.1:8931/mcp", { resolve })).toMatchObject({ allowed: true, match: "configured" });
    expect(await checkOutboundUrl("http://flowise.internal/mcp", { resolve })).toMatchObject({ allowed: true });
    expect(await checkOutboundUrl("http://169.254.169.254/", { resolve })).toMatchObject({ allowed: false });
    expect(await checkOutboundUrl("http://meta.example.com/", { resolve })).toMatchObject({ allowed: false });
    expect(await checkOutboundUrl("http://[fe80::1]/", { resolve })).toMatchObject({ allowed: false });
  });

  it("refuses hosts off the allowlist and non-http schemes", async () => {
    expect(await checkOutboundUrl("http://public.example.com/", { allowedHosts: ["other.example.com"], resolve })).toMatchObject({ allowed: false });
    expect(await checkOutboundUrl("file:///etc/passwd", { allowedHosts: ["*"], resolve })).toMatchObject({ allowed: false });
    expect(await checkOutboundUrl("not a url", { allowedHosts: ["*"], resolve })).toMatchObject({ allowed: false });
  });

  it("uses the system resolver by default (localhost names never reach the resolver)", async () => {
    const decision = await checkOutboundUrl("http://localhost:1/", { allowedHosts: ["*"] });
    expect(decision).toMatchObject({ allowed: false, targets: [{ address: "127.0.0.1", class: "loopback" }] });
  });
});

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

describe("createOutboundAgent (undici fetch through the agent)", () => {
  const servers: Server[] = [];
  const agents: Agent[] = [];
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((agent) => agent.destroy()));
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

  const outboundFetch = (options: OutboundAgentOptions) => {
    const agent = createOutboundAgent(options);
    agents.push(agent);
    return (url: string) => undiciFetch(url, { dispatcher: agent });
  };

  const fixed = (address: string): HostLookup =>
    ((_host: string, options: { all?: boolean }, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) =>
      options.all ? callback(null, [{ address, family: 4 }]) : callback(null, address, 4)) as unknown as HostLookup;

  it("refuses an IP-literal host before connecting", async () => {
    const target = await serve("127.0.0.1", () => ({ status: 200, body: "secret internal data" }));
    const send = outboundFetch({ policy: outboundConnectPolicy(`http://127.0.0.1:${target.port}/`, { allowedHosts: ["*"] }) });
    const error = await send(`http://127.0.0.1:${target.port}/`).catch((e: unknown) => e);
    expect(findConnectRefusal(error)?.message).toContain("covers public addresses only");
    expect(target.connections).toBe(0);
  });

  it("checks every redirect hop: a listed host redirecting to an unlisted literal address is refused", async () => {
    const inner = await serve("127.0.0.2", () => ({ status: 200, body: "internal" }));
    const front = await serve("127.0.0.1", () => ({ status: 302, headers: { location: `http://127.0.0.2:${inner.port}/admin` } }));
    const url = `http://front.test:${front.port}/mcp`;
    const send = outboundFetch({ policy: outboundConnectPolicy(url, { allowedHosts: ["front.test"] }), lookup: fixed("127.0.0.1") });
    const error = await send(url).catch((e: unknown) => e);
    expect(front.requests).toEqual(["/mcp"]);
    expect(findConnectRefusal(error)?.address).toBe("127.0.0.2");
    expect(inner.connections).toBe(0);
  });

  it("answers through an allowed connection, looking up (and checking) every new connection", async () => {
    const target = await serve("127.0.0.1", (path) => ({ status: 200, headers: { "content-type": "text/plain" }, body: `hello ${path}` }));
    const url = `http://ok.test:${target.port}`;
    const asked: string[] = [];
    const send = outboundFetch({
      policy: outboundConnectPolicy(url, { allowedHosts: ["ok.test"] }),
      lookup: lookupFromResolver(async (host) => {
        asked.push(host);
        return ["127.0.0.1"];
      }),
    });
    expect(await (await send(`${url}/a`)).text()).toBe("hello /a");
    expect(await (await send(`${url}/b`)).text()).toBe("hello /b");
    expect(target.connections).toBeGreaterThan(0);
    expect(asked).toHaveLength(target.connections);
    expect(new Set(asked)).toEqual(new Set(["ok.test"]));
  });
});

/**
 * DNS rebinding without DNS: an injected lookup answers `127.0.0.2` (the stand-in for a public
 * address, the only one the test policy allows) and then `127.0.0.1`, where a real server counts
 * every connection it receives. Both servers listen on the same port, so the URL
 * `http://rebind.test:<port>` reaches whichever address the lookup answers.
 */
const ALLOWED = "127.0.0.2";
const REFUSED = "127.0.0.1";
const KEY = "afw-test-secret-connect-policy-key";

const policy: ConnectPolicy = (address) => address === ALLOWED || `${address} is not the allowed address`;

interface Target {
  server: Server;
  requests: string[];
  connections: number;
}

interface Pair {
  port: number;
  allowed: Target;
  refused: Target;
}

/** Answers each lookup with the next address of `answers` (the last one repeats); honours `options.all`. */
function sequenceLookup(answers: readonly string[]): HostLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = ((hostname: string, options: { all?: boolean }, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    const address = answers[Math.min(calls.length, answers.length - 1)]!;
    calls.push(hostname);
    queueMicrotask(() => (options.all ? callback(null, [{ address, family: 4 }]) : callback(null, address, 4)));
  }) as unknown as HostLookup & { calls: string[] };
  lookup.calls = calls;
  return lookup;
}

function target(handler: (path: string, response: import("node:http").ServerResponse) => void): Target {
  const state: Target = { server: createServer(), requests: [], connections: 0 };
  state.server.on("connection", () => state.connections++);
  state.server.on("request", (request, response) => {
    state.requests.push(request.url ?? "");
    handler(request.url ?? "", response);
  });
  return state;
}

const listening: Server[] = [];
const clients: HttpClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const server of listening.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      listening.push(server);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Two servers on one port: `127.0.0.2` (allowed) and `127.0.0.1` (refused). `close` sends `connection: close` from the allowed one. */
async function startPair(options: { close?: boolean } = {}): Promise<Pair> {
  const reply = (path: string, response: import("node:http").ServerResponse) => {
    if (options.close) response.setHeader("connection", "close");
    if (path.startsWith("/stream")) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: one\n\n");
      response.end("data: two\n\n");
      return;
    }
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ text: `answer from ${path}` }));
  };
  for (let attempt = 0; ; attempt++) {
    const allowed = target(reply);
    const refused = target(reply);
    const port = await listen(allowed.server, 0, ALLOWED);
    try {
      await listen(refused.server, port, REFUSED);
      return { port, allowed, refused };
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
}

function client(baseURL: string, lookup: HostLookup | undefined, connectPolicy: ConnectPolicy | null = policy): HttpClient {
  const http = new HttpClient({
    backendId: "remote",
    kind: "flowise",
    baseURL,
    headers: { authorization: `Bearer ${KEY}` },
    secrets: [KEY],
    ...(connectPolicy ? { connectPolicy } : {}),
    ...(lookup ? { lookup } : {}),
  });
  clients.push(http);
  return http;
}

const Reply = z.object({ text: z.string() });
const json = (http: HttpClient, path: string) => http.requestJson({ method: "POST", path, json: { q: 1 }, timeoutMs: 10_000, operation: "execute", flowId: "f1" }, Reply, 10_000);

async function streamText(http: HttpClient, path: string): Promise<string> {
  const open = await http.open({ method: "POST", path, json: { q: 1 }, timeoutMs: 10_000, operation: "stream", flowId: "f1", headers: { accept: "text/event-stream" } });
  let text = "";
  for await (const chunk of iterateBody(open, 10_000, 10_000)) text += Buffer.from(chunk).toString("utf8");
  return text;
}

function expectRefused(error: unknown, address: string): BackendError {
  expect(BackendError.isInstance(error)).toBe(true);
  const backendError = error as BackendError;
  expect(backendError.code).toBe("FORBIDDEN");
  expect(backendError.isRetryable).toBe(false);
  expect(backendError.message).toContain("rebind.test");
  expect(backendError.message).toContain(address);
  expect(backendError.message).not.toContain(KEY);
  expect(backendError.details).toMatchObject({ host: "rebind.test", address });
  return backendError;
}

describe("HttpClient with a connection policy: whole-body JSON (requestJson)", () => {
  it("connects to the allowed answer, then refuses the rebound loopback answer before any byte is sent", async () => {
    const pair = await startPair({ close: true });
    const lookup = sequenceLookup([ALLOWED, REFUSED]);
    const http = client(`http://rebind.test:${pair.port}`, lookup);

    await expect(json(http, "/first")).resolves.toMatchObject({ data: { text: "answer from /first" } });
    const error = await json(http, "/second").catch((e: unknown) => e);
    expectRefused(error, REFUSED);
    expect(lookup.calls).toEqual(["rebind.test", "rebind.test"]);
    expect(pair.allowed.requests).toEqual(["/first"]);
    expect(pair.refused.connections).toBe(0);
    expect(pair.refused.requests).toEqual([]);
  });

  it("keeps using a kept-alive connection to the checked address (no new lookup), and checks the next new connection", async () => {
    const pair = await startPair();
    const lookup = sequenceLookup([ALLOWED, REFUSED]);
    const http = client(`http://rebind.test:${pair.port}`, lookup);
    await json(http, "/a");
    await new Promise((resolve) => setImmediate(resolve)); // undici pools the connection one turn after the body ended
    await json(http, "/b");
    expect(lookup.calls).toHaveLength(1);
    expect(pair.allowed.connections).toBe(1);
    // The allowed server drops its idle connections: the next call must connect, and look up, again.
    const closed = new Promise<void>((resolve) => pair.allowed.server.once("close", resolve));
    pair.allowed.server.closeAllConnections();
    pair.allowed.server.close();
    await closed;
    expectRefused(await json(http, "/c").catch((e: unknown) => e), REFUSED);
    expect(pair.refused.connections).toBe(0);
  });

  it("refuses an IP-literal host the policy does not allow (sockets do not look literals up)", async () => {
    const pair = await startPair();
    const lookup = sequenceLookup([ALLOWED]);
    const http = client(`http://${REFUSED}:${pair.port}`, lookup);
    const error = (await json(http, "/x").catch((e: unknown) => e)) as BackendError;
    expect(error.code).toBe("FORBIDDEN");
    expect(error.isRetryable).toBe(false);
    expect(lookup.calls).toEqual([]);
    expect(pair.refused.connections).toBe(0);
  });

  it("without a policy a loopback backend still works (configured backends are trusted)", async () => {
    const pair = await startPair();
    const http = client(`http://localhost.test:${pair.port}`, sequenceLookup([REFUSED]), null);
    await expect(json(http, "/ok")).resolves.toMatchObject({ data: { text: "answer from /ok" } });
    expect(pair.refused.requests).toEqual(["/ok"]);
  });

  it("refuses a whole answer when one of its addresses is refused", async () => {
    const pair = await startPair();
    const mixed = ((_host: string, options: { all?: boolean }, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) =>
      options.all
        ? callback(null, [
            { address: ALLOWED, family: 4 },
            { address: "169.254.169.254", family: 4 },
          ])
        : callback(null, ALLOWED, 4)) as unknown as HostLookup;
    const http = client(`http://rebind.test:${pair.port}`, mixed);
    expectRefused(await json(http, "/x").catch((e: unknown) => e), "169.254.169.254");
    expect(pair.allowed.connections + pair.refused.connections).toBe(0);
  });
});

describe("HttpClient with a connection policy: streams (open + iterateBody)", () => {
  it("streams from the allowed answer, then refuses the rebound answer", async () => {
    const pair = await startPair({ close: true });
    const lookup = sequenceLookup([ALLOWED, REFUSED]);
    const http = client(`http://rebind.test:${pair.port}`, lookup);
    await expect(streamText(http, "/stream/1")).resolves.toBe("data: one\n\ndata: two\n\n");
    expectRefused(await streamText(http, "/stream/2").catch((e: unknown) => e), REFUSED);
    expect(pair.allowed.requests).toEqual(["/stream/1"]);
    expect(pair.refused.connections).toBe(0);
  });

  it("refuses an IP-literal host on the streaming path too", async () => {
    const pair = await startPair();
    const http = client(`http://${REFUSED}:${pair.port}`, undefined);
    const error = (await streamText(http, "/stream").catch((e: unknown) => e)) as BackendError;
    expect(error.code).toBe("FORBIDDEN");
    expect(pair.refused.connections).toBe(0);
  });
});

describe("connection policy settings", () => {
  it("a throwing policy refuses", async () => {
    const pair = await startPair();
    const throwing: ConnectPolicy = () => {
      throw new Error("boom");
    };
    const error = (await json(client(`http://rebind.test:${pair.port}`, sequenceLookup([ALLOWED]), throwing), "/x").catch((e: unknown) => e)) as BackendError;
    expect(error.details).toMatchObject({ host: "rebind.test", address: ALLOWED, reason: expect.stringContaining("policy failed") as unknown as string });
    expect(pair.allowed.connections).toBe(0);
  });

  it("maps a refusal wrapped by fetch to FORBIDDEN", () => {
    const wrapped = new TypeError("fetch failed", { cause: new ConnectRefusedError("h.test", "10.0.0.1", "private") });
    const error = errorFromException(wrapped, undefined, 1_000, { backendId: "b", kind: "langflow", operation: "execute", secrets: [KEY] });
    expect(error).toMatchObject({ code: "FORBIDDEN", isRetryable: false, details: { host: "h.test", address: "10.0.0.1", reason: "private" } });
  });

  it.each([
    ["flowise", createFlowiseBackend],
    ["langflow", createLangflowBackend],
  ] as const)("the %s adapter passes connectPolicy and lookup to its client", async (_kind, create) => {
    const pair = await startPair();
    const backend = create({ id: "remote", baseURL: `http://rebind.test:${pair.port}`, apiKey: KEY, connectPolicy: policy, lookup: sequenceLookup([REFUSED]) });
    try {
      const error = (await backend.execute({ flowId: "f1", question: "hi" }).catch((e: unknown) => e)) as BackendError;
      expect(error.code).toBe("FORBIDDEN");
      expect(error.message).not.toContain(KEY);
      expect(pair.refused.connections).toBe(0);
    } finally {
      await backend.close?.();
    }
  });
});
