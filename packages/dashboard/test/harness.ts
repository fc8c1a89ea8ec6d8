import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import { createDashboard, type Dashboard, type DashboardOptions } from "../src/index.js";

/** A `node:http` server on a random loopback port that mounts one dashboard. */
export interface DashboardServer {
  url: string;
  dashboard: Dashboard;
  server: Server;
  /** Requests the dashboard did not own (the test server answered 404 "outside"). */
  unhandled: string[];
  close(): Promise<void>;
}

export async function startDashboardServer(options: DashboardOptions): Promise<DashboardServer> {
  const dashboard = createDashboard(options);
  const unhandled: string[] = [];
  const server = createServer((req, res) => {
    dashboard.handle(req, res).then(
      (handled) => {
        if (handled) return;
        unhandled.push(req.url ?? "");
        res.writeHead(404, { "content-type": "text/plain" }).end("outside");
      },
      (error: unknown) => {
        res.writeHead(599).end(String(error));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dashboard,
    server,
    unhandled,
    async close() {
      dashboard.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Starts dashboard servers for the tests of one file and closes the running one after each test.
 * Call it at the top level of a test file.
 */
export function useDashboardServer(): (options: DashboardOptions) => Promise<DashboardServer> {
  let running: DashboardServer | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });
  return async (options) => {
    running = await startDashboardServer(options);
    return running;
  };
}

/** A response read as text and, when it parses, as JSON. */
export interface FetchedJson {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

/** Fetches `path` from `server` and parses the body as JSON when it is JSON (else `body` is undefined). */
export async function fetchJson(server: DashboardServer, path: string, init: RequestInit = {}): Promise<FetchedJson> {
  const response = await fetch(`${server.url}${path}`, init);
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body, text, headers: response.headers };
}

/** One parsed server-sent-event frame. */
export interface SseFrame {
  id?: string;
  event: string;
  data: string;
  comment?: string;
  retry?: number;
}

/** A live-feed connection read frame by frame. */
export interface EventStreamReader {
  status: number;
  headers: Headers;
  /** Every frame read so far (including comments such as `: ping`). */
  frames: SseFrame[];
  /** Resolves with the first frame (already read or coming) that matches. */
  waitFor(predicate: (frame: SseFrame) => boolean): Promise<SseFrame>;
  close(): void;
}

function parseFrame(raw: string): SseFrame {
  const frame: SseFrame = { event: "message", data: "" };
  const data: string[] = [];
  for (const line of raw.split("\n")) {
    if (line.startsWith(":")) {
      frame.comment = line.slice(1).trim();
      continue;
    }
    const colon = line.indexOf(":");
    const field = colon >= 0 ? line.slice(0, colon) : line;
    const value = colon >= 0 ? line.slice(colon + 1).replace(/^ /, "") : "";
    if (field === "event") frame.event = value;
    else if (field === "data") data.push(value);
    else if (field === "id") frame.id = value;
    else if (field === "retry") frame.retry = Number(value);
  }
  frame.data = data.join("\n");
  return frame;
}

export async function openEventStream(url: string, headers: Record<string, string> = {}): Promise<EventStreamReader> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: controller.signal });
  const frames: SseFrame[] = [];
  const waiters: Array<{ predicate: (frame: SseFrame) => boolean; resolve: (frame: SseFrame) => void; reject: (error: Error) => void }> = [];
  let ended: Error | undefined;
  const settle = (frame: SseFrame): void => {
    for (const waiter of [...waiters]) {
      if (waiter.predicate(frame)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(frame);
      }
    }
  };
  if (response.body) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      let buffer = "";
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const frame = parseFrame(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
            frames.push(frame);
            settle(frame);
          }
        }
        ended = new Error("stream ended");
      } catch (error) {
        ended = error instanceof Error ? error : new Error(String(error));
      }
      for (const waiter of waiters.splice(0)) waiter.reject(ended);
    })();
  }
  return {
    status: response.status,
    headers: response.headers,
    frames,
    waitFor(predicate) {
      const found = frames.find(predicate);
      if (found) return Promise.resolve(found);
      if (ended) return Promise.reject(ended);
      return new Promise((resolve, reject) => waiters.push({ predicate, resolve, reject }));
    },
    close() {
      controller.abort();
    },
  };
}
