import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A tiny round-robin HTTP load balancer in front of gateway instances. */
export interface RoundRobinProxy {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** Requests forwarded per target origin. */
  readonly forwarded: Map<string, number>;
  close(): Promise<void>;
}

/** Starts a round-robin proxy over `targets` (origins such as `http://127.0.0.1:4000`). */
export async function startRoundRobinProxy(targets: string[]): Promise<RoundRobinProxy> {
  let live = [...targets];
  let next = 0;
  const forwarded = new Map<string, number>();
  const forward = (incoming: IncomingMessage, body: Buffer, response: ServerResponse, attemptsLeft: number) => {
    if (live.length === 0 || attemptsLeft === 0) {
      response.writeHead(502).end("no live upstream");
      return;
    }
    const target = live[next++ % live.length]!;
    const url = new URL(incoming.url ?? "/", target);
    const upstream = httpRequest(url, { method: incoming.method, headers: { ...incoming.headers, host: url.host } }, (reply) => {
      forwarded.set(target, (forwarded.get(target) ?? 0) + 1);
      response.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(response);
      reply.on("error", () => response.destroy());
    });
    upstream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNREFUSED" && !response.headersSent) {
        live = live.filter((t) => t !== target);
        forward(incoming, body, response, attemptsLeft - 1);
        return;
      }
      // A reset (or broken pipe) on a kept-alive connection: the target may have died with this
      // request in it, so the request is not replayed (it may not be idempotent), but the target
      // leaves the rotation — later requests must not hit the dead instance's pooled sockets.
      if (error.code === "ECONNRESET" || error.code === "EPIPE" || error.code === "ECONNABORTED") live = live.filter((t) => t !== target);
      if (!response.headersSent) response.writeHead(502).end("upstream failed");
      else response.destroy();
    });
    upstream.end(body);
  };
  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => forward(incoming, Buffer.concat(chunks), response, targets.length));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    forwarded,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
