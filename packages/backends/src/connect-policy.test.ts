import { Agent, createServer, request as httpRequest, type Server } from "node:http";
import type { LookupAddress } from "node:dns";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { AfwError, BackendError } from "@afw/contracts";
import { checkedLookup, ConnectRefusedError, findConnectRefusal, type ConnectPolicy, type HostLookup } from "./connect-policy.js";
import { errorFromException } from "./error-mapping.js";
import { HttpClient, iterateBody } from "./http-client.js";
import { createFlowiseBackend } from "./flowise-backend.js";
import { createLangflowBackend } from "./langflow-backend.js";

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
    headers: {},
    authHeaders: { authorization: `Bearer ${KEY}` },
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

describe("connection policy on the node:http path (requestJson)", () => {
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

describe("connection policy on the streaming path (open, undici with a checked lookup)", () => {
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

describe("checkedLookup on a shared keep-alive agent", () => {
  it("an idle connection to one host is never reused for another host: the new host is looked up and checked", async () => {
    const pair = await startPair();
    const answers: Record<string, string> = { "a.test": ALLOWED, "b.test": REFUSED };
    const lookup = ((hostname: string, options: { all?: boolean }, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
      const address = answers[hostname]!;
      if (options.all) callback(null, [{ address, family: 4 }]);
      else callback(null, address, 4);
    }) as unknown as HostLookup;
    const agent = new Agent({ keepAlive: true, maxSockets: 1, lookup: checkedLookup(policy, lookup) });
    const get = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest({ host, port: pair.port, path: `/${host}`, agent }, (response) => {
          response.resume();
          response.once("end", () => resolve(response.statusCode ?? 0));
        });
        request.once("error", reject);
        request.end();
      });
    try {
      expect(await get("a.test")).toBe(200);
      const error = await get("b.test").catch((e: unknown) => e);
      expect(findConnectRefusal(error)).toMatchObject({ host: "b.test", address: REFUSED });
      expect(pair.refused.connections).toBe(0);
      expect(await get("a.test")).toBe(200);
      expect(pair.allowed.connections).toBe(1);
    } finally {
      agent.destroy();
    }
  });
});

describe("connection policy settings", () => {
  it("cannot be combined with a custom fetch", () => {
    expect(() => new HttpClient({ backendId: "b", kind: "flowise", baseURL: "http://x.test", headers: {}, authHeaders: {}, secrets: [], connectPolicy: policy, fetch: globalThis.fetch })).toThrowError(
      expect.objectContaining({ code: "CONFIG_INVALID" }) as unknown as AfwError,
    );
  });

  it("a throwing policy refuses", async () => {
    const lookup = checkedLookup(() => {
      throw new Error("boom");
    }, sequenceLookup([ALLOWED]));
    const error = await new Promise<unknown>((resolve) => lookup("h.test", { all: false }, (e) => resolve(e)));
    expect(findConnectRefusal(error)).toMatchObject({ host: "h.test", address: ALLOWED, reason: expect.stringContaining("policy failed") as unknown as string });
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
