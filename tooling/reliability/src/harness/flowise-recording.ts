import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One HTTP exchange between the gateway and Flowise, as recorded (secrets never stored). */
export interface RecordedExchange {
  method: string;
  /** Path and query, as sent. */
  path: string;
  /** Which key the request carried: none, the valid key, or another one. */
  auth: "none" | "valid" | "invalid";
  /** The JSON request body, if any. */
  request?: unknown;
  status?: number;
  contentType?: string | null;
  body?: string;
  /** Flowise never answered (the client gave up first). */
  hang?: true;
}

/** A recording of one run of the scenario against a real Flowise. */
export interface FlowiseRecording {
  flowise: string;
  recordedAt: string;
  /** Chatflow ids of the run. */
  ids: Record<string, string>;
  exchanges: RecordedExchange[];
}

/** A loopback HTTP server in front of Flowise (recording) or instead of it (replaying). */
export interface FlowiseFront {
  url: string;
  /** Exchanges seen so far, in arrival order. */
  readonly exchanges: RecordedExchange[];
  close(): Promise<void>;
}

function authOf(headers: IncomingHttpHeaders, apiKey: string): RecordedExchange["auth"] {
  const value = headers["authorization"];
  if (typeof value !== "string" || value.trim() === "") return "none";
  return value.trim() === `Bearer ${apiKey}` ? "valid" : "invalid";
}

async function readBody(request: AsyncIterable<Buffer>): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk);
  if (chunks.length === 0) return undefined;
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/**
 * A proxy to the Flowise at `target` that records every exchange (the key replaced by its
 * validity). Replies are buffered whole, then forwarded.
 */
export async function startRecordingProxy(target: string, apiKey: string): Promise<FlowiseFront> {
  const exchanges: RecordedExchange[] = [];
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const entry: RecordedExchange = { method: request.method ?? "GET", path: request.url ?? "/", auth: authOf(request.headers, apiKey), ...(body === undefined ? {} : { request: body }) };
    exchanges.push(entry);
    const controller = new AbortController();
    response.on("close", () => {
      if (!response.writableFinished) controller.abort();
    });
    const headers: Record<string, string> = {};
    for (const name of ["authorization", "content-type", "accept"]) {
      const value = request.headers[name];
      if (typeof value === "string") headers[name] = value;
    }
    try {
      const upstream = await fetch(`${target}${entry.path}`, {
        method: entry.method,
        headers,
        ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
        signal: controller.signal,
      });
      const text = await upstream.text();
      entry.status = upstream.status;
      entry.contentType = upstream.headers.get("content-type");
      entry.body = text;
      response.writeHead(upstream.status, { "content-type": entry.contentType ?? "application/octet-stream" }).end(text);
    } catch {
      entry.hang = true;
      response.destroy();
    }
  });
  const url = await listen(server);
  return { url, exchanges, close: closer(server) };
}

/**
 * A fake Flowise serving `recording`: each request gets the next unused recorded reply of the same method, path and key
 * validity (the last one again once they are used up); a recorded hang never answers.
 */
export async function startReplayServer(recording: FlowiseRecording, apiKey: string): Promise<FlowiseFront & { unmatched: RecordedExchange[] }> {
  const exchanges: RecordedExchange[] = [];
  const unmatched: RecordedExchange[] = [];
  const used = new Set<number>();
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const entry: RecordedExchange = { method: request.method ?? "GET", path: request.url ?? "/", auth: authOf(request.headers, apiKey), ...(body === undefined ? {} : { request: body }) };
    exchanges.push(entry);
    const same = (candidate: RecordedExchange) => candidate.method === entry.method && candidate.path === entry.path && candidate.auth === entry.auth;
    let index = recording.exchanges.findIndex((candidate, position) => !used.has(position) && same(candidate));
    if (index === -1) index = recording.exchanges.findLastIndex(same);
    const recorded = recording.exchanges[index];
    if (!recorded) {
      unmatched.push(entry);
      response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ statusCode: 404, success: false, message: "not recorded", stack: {} }));
      return;
    }
    used.add(index);
    if (recorded.hang) return; // Flowise never answers this one; the client gives up
    response.writeHead(recorded.status ?? 200, { "content-type": recorded.contentType ?? "application/json" }).end(recorded.body ?? "");
  });
  const url = await listen(server);
  return { url, exchanges, unmatched, close: closer(server) };
}
