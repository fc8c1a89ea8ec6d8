import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { BackendError } from "@afw/contracts";
import { HttpClient } from "./http-client.js";

const Reply = z.object({ text: z.string() });

async function serve(handler: (request: IncomingMessage, response: ServerResponse, socket: Socket) => void): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => handler(request, response, request.socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${address.port}` };
}

function client(baseURL: string) {
  return new HttpClient({ backendId: "b", kind: "flowise", baseURL, headers: { "x-extra": "1", authorization: "Bearer secret-key-123" }, secrets: ["secret-key-123"] });
}

/** undici hands a connection back to its pool one event-loop turn after the body ended. */
const pooled = () => new Promise((resolve) => setImmediate(resolve));

const open: { server: Server; http: HttpClient }[] = [];
afterEach(async () => {
  for (const { server, http } of open.splice(0)) {
    http.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe("HttpClient.requestJson (undici.request on one keep-alive agent)", () => {
  it("sends the headers and JSON body and reuses one keep-alive connection", async () => {
    const seen: { headers: IncomingMessage["headers"]; body: string; socket: Socket }[] = [];
    const { server, url } = await serve((request, response, socket) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        seen.push({ headers: request.headers, body, socket });
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ text: `got ${body}` }));
      });
    });
    const http = client(url);
    open.push({ server, http });
    const first = await http.requestJson({ method: "POST", path: "/p", json: { q: 1 }, timeoutMs: 5_000, operation: "execute" }, Reply, 1_000);
    await pooled();
    const second = await http.requestJson({ method: "POST", path: "/p", json: { q: 2 }, timeoutMs: 5_000, operation: "execute" }, Reply, 1_000);
    expect(first).toEqual({ data: { text: 'got {"q":1}' }, status: 200 });
    expect(second.data.text).toBe('got {"q":2}');
    expect(seen[0]!.headers).toMatchObject({ authorization: "Bearer secret-key-123", "x-extra": "1", "content-type": "application/json", accept: "application/json", "user-agent": "node" });
    expect(seen[0]!.headers["accept-encoding"]).toBeUndefined();
    expect(seen[1]!.socket).toBe(seen[0]!.socket);
  });

  it("decodes a gzip reply and bounds the decoded size", async () => {
    const { server, url } = await serve((request, response) => {
      const size = request.url === "/big" ? 10_000 : 10;
      response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(gzipSync(JSON.stringify({ text: "x".repeat(size) })));
    });
    const http = client(url);
    open.push({ server, http });
    const small = await http.requestJson({ method: "GET", path: "/small", timeoutMs: 5_000, operation: "get" }, Reply, 1_000);
    expect(small.data.text).toBe("x".repeat(10));
    const error = await http.requestJson({ method: "GET", path: "/big", timeoutMs: 5_000, operation: "get" }, Reply, 1_000).catch((e: unknown) => e);
    expect(BackendError.isInstance(error) && error.code).toBe("BACKEND_BAD_RESPONSE");
    expect((error as Error).message).toMatch(/larger than 1000 bytes/);
  });

  /** A server whose keep-alive sockets all go stale: a second request on a connection is dropped unanswered, as after its idle timeout. */
  async function staleSocketServer() {
    const served = new WeakSet<Socket>();
    const state = { requests: 0 };
    const { server, url } = await serve((request, response, socket) => {
      state.requests++;
      if (served.has(socket)) return void socket.destroy();
      served.add(socket);
      request.resume();
      request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end('{"text":"ok"}'));
    });
    const http = client(url);
    open.push({ server, http });
    const ask = () => http.requestJson({ method: "POST", path: "/p", json: {}, timeoutMs: 5_000, operation: "execute" }, Reply, 1_000);
    return { state, ask };
  }

  it("sends again once on a fresh connection when a reused keep-alive socket was closed by the server", async () => {
    const { state, ask } = await staleSocketServer();
    await ask();
    await pooled();
    expect((await ask()).data.text).toBe("ok");
    expect(state.requests).toBe(3);
  });

  it("sends again until a fresh connection when every pooled keep-alive socket was closed by the server", async () => {
    const { state, ask } = await staleSocketServer();
    // Two requests at once leave two idle sockets in the pool; both are stale for the next request.
    await Promise.all([ask(), ask()]);
    await pooled();
    expect((await ask()).data.text).toBe("ok");
    // Each stale socket tried costs one dropped request; the pool may open the fresh one before trying them all.
    expect(state.requests).toBeGreaterThanOrEqual(4);
    expect(state.requests).toBeLessThanOrEqual(5);
  });

  it("maps a status, a timeout, a caller abort and a reset mid-body", async () => {
    const { server, url } = await serve((request, response) => {
      if (request.url === "/limited") return void response.writeHead(429, { "retry-after": "2" }).end('{"message":"slow down, secret-key-123"}');
      if (request.url === "/hang") return;
      if (request.url === "/cut") {
        response.writeHead(200, { "content-type": "application/json", "content-length": "100" });
        response.write('{"text":"par');
        setImmediate(() => response.socket?.destroy());
      }
    });
    const http = client(url);
    open.push({ server, http });
    {
      const subject = http;
      const limited = (await subject.requestJson({ method: "GET", path: "/limited", timeoutMs: 5_000, operation: "get" }, Reply, 1_000).catch((e: unknown) => e)) as BackendError;
      expect(limited.code).toBe("BACKEND_RATE_LIMITED");
      expect(limited.details?.["retryAfterMs"]).toBe(2_000);
      expect(limited.message).not.toContain("secret-key-123");
      const timedOut = (await subject.requestJson({ method: "GET", path: "/hang", timeoutMs: 50, operation: "get" }, Reply, 1_000).catch((e: unknown) => e)) as BackendError;
      expect(timedOut.code).toBe("BACKEND_TIMEOUT");
      expect(timedOut.message).toContain("50 ms");
      const controller = new AbortController();
      const pending = subject.requestJson({ method: "GET", path: "/hang", timeoutMs: 5_000, signal: controller.signal, operation: "get" }, Reply, 1_000).catch((e: unknown) => e);
      controller.abort();
      expect(((await pending) as BackendError).code).toBe("ABORTED");
      const cut = (await subject.requestJson({ method: "GET", path: "/cut", timeoutMs: 5_000, operation: "get" }, Reply, 1_000).catch((e: unknown) => e)) as BackendError;
      expect(cut.code).toBe("BACKEND_UNAVAILABLE");
      expect(cut.isRetryable).toBe(true);
    }
  });
});
