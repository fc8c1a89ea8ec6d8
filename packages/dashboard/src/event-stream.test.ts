import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { TraceEvent } from "@afw/contracts";
import { openEventStream, startDashboardServer, type DashboardServer, type EventStreamReader } from "../test/harness.js";
import { EventStreamHub } from "./event-stream.js";
import type { DashboardSource } from "./index.js";
import type { TraceEventListener } from "./dashboard-source.js";
import { buildQueryTrace, createInMemoryDashboardSource, createSampleDashboardSource } from "./testing.js";

const HOSTILE = `<img src=x onerror=alert(1)>`;

let running: DashboardServer | undefined;
const streams: EventStreamReader[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  await running?.close();
  running = undefined;
});

async function start(...args: Parameters<typeof startDashboardServer>): Promise<DashboardServer> {
  running = await startDashboardServer(...args);
  return running;
}

async function open(server: DashboardServer, path = "/api/events"): Promise<EventStreamReader> {
  const stream = await openEventStream(`${server.url}${path}`);
  streams.push(stream);
  return stream;
}

function cacheMiss(traceId: string): TraceEvent {
  return { type: "cache-miss", traceId, requestId: "r", timestamp: new Date().toISOString(), scope: "shared", reason: "absent" };
}

describe("GET /api/events (server-sent events)", () => {
  it("frames retry, ready, trace and query events with ids and JSON data", async () => {
    const source = createSampleDashboardSource({ withoutQueries: true });
    const server = await start({ source });
    const stream = await open(server);
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(stream.headers.get("cache-control")).toBe("no-store");
    expect(stream.headers.get("content-security-policy")).toContain("default-src 'self'");
    const ready = await stream.waitFor((frame) => frame.event === "ready");
    expect(stream.frames[0]?.retry).toBe(3000);
    expect(JSON.parse(ready.data)).toEqual({ redacted: false, heartbeatMs: 15000 });
    expect(source.subscriberCount).toBe(1);

    const events = buildQueryTrace({
      traceId: "live-1",
      attempts: [
        { backendId: "langflow-local", flowId: "langflow-local:architect", outcome: "error", errorCode: "BACKEND_UNAVAILABLE" },
        { backendId: "flowise-local", flowId: "flowise-local:code-helper" },
      ],
    });
    // the first lifecycle event produces a pending row, the last one the answered row
    source.setQuestion("live-1", `Why? ${HOSTILE}`);
    source.emit(events[0] as TraceEvent);
    const pending = JSON.parse((await stream.waitFor((frame) => frame.event === "query")).data);
    expect(pending).toMatchObject({ traceId: "live-1", outcome: "pending", questionLength: 42 });
    for (const event of events.slice(1)) source.emit(event);
    const answered = await stream.waitFor((frame) => frame.event === "query" && JSON.parse(frame.data).outcome === "answered");
    const summary = JSON.parse(answered.data);
    expect(summary).toMatchObject({ traceId: "live-1", question: `Why? ${HOSTILE}`, answeredFlowId: "flowise-local:code-helper" });
    expect(summary.fallbacks).toHaveLength(1);
    expect(answered.data).not.toContain("<img");
    const traces = stream.frames.filter((frame) => frame.event === "trace").map((frame) => JSON.parse(frame.data).type);
    expect(traces).toEqual(events.map((event) => event.type));
    const ids = stream.frames.filter((frame) => frame.id !== undefined).map((frame) => Number(frame.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("keeps query updates in order even when the source answers slowly", async () => {
    const inner = createInMemoryDashboardSource();
    let delayFirst = true;
    const source: DashboardSource = {
      ...inner,
      subscribe: inner.subscribe?.bind(inner),
      async query(traceId) {
        if (delayFirst) {
          delayFirst = false;
          await new Promise((resolve) => setImmediate(resolve));
          await new Promise((resolve) => setImmediate(resolve));
        }
        return inner.query?.(traceId);
      },
    };
    const server = await start({ source });
    const stream = await open(server);
    await stream.waitFor((frame) => frame.event === "ready");
    inner.recordQuery("q", buildQueryTrace({ traceId: "ordered", attempts: [{ backendId: "b", flowId: "b:f" }] }));
    await stream.waitFor((frame) => frame.event === "query" && JSON.parse(frame.data).outcome === "answered");
    const outcomes = stream.frames.filter((frame) => frame.event === "query").map((frame) => JSON.parse(frame.data).outcome);
    expect(outcomes).toEqual(["answered", "answered"]);
  });

  it("sends heartbeat comments", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    try {
      const server = await start({ source: createSampleDashboardSource() });
      const stream = await open(server);
      await stream.waitFor((frame) => frame.event === "ready");
      vi.advanceTimersByTime(15_000);
      const ping = await stream.waitFor((frame) => frame.comment === "ping");
      expect(ping.data).toBe("");
    } finally {
      vi.useRealTimers();
    }
  });

  it("shares one subscription and drops it when the last page disconnects", async () => {
    const source = createSampleDashboardSource();
    const server = await start({ source });
    const first = await open(server);
    const second = await open(server);
    await first.waitFor((frame) => frame.event === "ready");
    await second.waitFor((frame) => frame.event === "ready");
    expect(source.subscriberCount).toBe(1);
    expect(server.dashboard.liveClientCount).toBe(2);
    first.close();
    source.emit(cacheMiss("after-first-left"));
    await second.waitFor((frame) => frame.event === "trace" && frame.data.includes("after-first-left"));
    second.close();
    await source.waitForSubscribers((count) => count === 0);
    expect(source.subscriberCount).toBe(0);
    // and subscribes again for the next page
    const third = await open(server);
    await third.waitFor((frame) => frame.event === "ready");
    expect(source.subscriberCount).toBe(1);
  });

  it("awaits an asynchronous subscribe and calls its unsubscribe", async () => {
    const listeners = new Set<TraceEventListener>();
    let unsubscribed = 0;
    let resolveUnsubscribed: () => void = () => undefined;
    const unsubscribedOnce = new Promise<void>((resolve) => (resolveUnsubscribed = resolve));
    const source: DashboardSource = {
      async subscribe(listener) {
        await new Promise((resolve) => setImmediate(resolve));
        listeners.add(listener);
        return () => {
          listeners.delete(listener);
          unsubscribed++;
          resolveUnsubscribed();
        };
      },
    };
    const server = await start({ source });
    const stream = await open(server);
    await stream.waitFor((frame) => frame.event === "ready");
    expect(listeners.size).toBe(1);
    stream.close();
    await unsubscribedOnce;
    expect(unsubscribed).toBe(1);
    expect(listeners.size).toBe(0);
  });

  it("ends the stream when subscribing fails, and reports it", async () => {
    const errors: string[] = [];
    const server = await start({
      source: {
        subscribe: () => {
          throw new Error("ring buffer gone");
        },
      },
      onError: (error, context) => errors.push(`${context.operation}: ${(error as Error).message}`),
    });
    const stream = await open(server);
    await expect(stream.waitFor((frame) => frame.event === "ready")).rejects.toThrow(/ended/);
    expect(errors).toEqual(["subscribe: ring buffer gone"]);
    expect(server.dashboard.liveClientCount).toBe(0);
  });

  it("limits simultaneous connections with 503 TOO_MANY_CLIENTS", async () => {
    const server = await start({ source: createSampleDashboardSource() });
    for (let i = 0; i < 32; i++) await (await open(server)).waitFor((frame) => frame.event === "ready");
    const response = await fetch(`${server.url}/api/events`);
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("10");
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("TOO_MANY_CLIENTS");
  });

  it("redacts tool-search text in redacted mode and says so in ready", async () => {
    const source = createSampleDashboardSource({ withoutQueries: true });
    const server = await start({ source, redact: true });
    const stream = await open(server);
    const ready = await stream.waitFor((frame) => frame.event === "ready");
    expect(JSON.parse(ready.data).redacted).toBe(true);
    source.emit({ type: "tool-search-low-confidence", traceId: "s", requestId: "r", timestamp: new Date().toISOString(), query: "my secret", confidence: 0.1, threshold: 0.3, fallbackIds: [] });
    source.recordQuery("private question", buildQueryTrace({ traceId: "private", attempts: [{ backendId: "b", flowId: "b:f" }] }));
    await stream.waitFor((frame) => frame.event === "query" && JSON.parse(frame.data).outcome === "answered");
    const all = stream.frames.map((frame) => frame.data).join("\n");
    expect(all).not.toContain("my secret");
    expect(all).not.toContain("private question");
    expect(all).toContain("[redacted]");
  });

  it("close() ends every stream so the server can shut down", async () => {
    const server = await start({ source: createSampleDashboardSource() });
    const stream = await open(server);
    await stream.waitFor((frame) => frame.event === "ready");
    server.dashboard.close();
    await expect(stream.waitFor(() => false)).rejects.toThrow();
    expect(server.dashboard.liveClientCount).toBe(0);
  });
});

/** A response whose socket is "full": write() returns false until drain() is called. */
class SlowResponse extends EventEmitter {
  written: string[] = [];
  accepting = false;
  writableEnded = false;
  destroyed = false;
  headers: Record<string, unknown> = {};
  statusCode = 0;
  setHeader(name: string, value: unknown): void {
    this.headers[name] = value;
  }
  writeHead(status: number, headers: Record<string, unknown>): this {
    this.statusCode = status;
    Object.assign(this.headers, headers);
    return this;
  }
  write(chunk: string): boolean {
    this.written.push(chunk);
    return this.accepting;
  }
  end(): void {
    this.writableEnded = true;
  }
  drain(): void {
    this.accepting = true;
    this.emit("drain");
  }
}

/** A hub on an in-memory source with one connected {@link SlowResponse}. */
async function connectSlowClient() {
  const source = createInMemoryDashboardSource();
  const hub = new EventStreamHub(
    source,
    { redacted: false, query: (summary) => summary, event: (event) => event },
    () => undefined,
  );
  const response = new SlowResponse();
  const req = { socket: { setNoDelay() {}, setKeepAlive() {} } } as unknown as IncomingMessage;
  await hub.connect(req, response as unknown as ServerResponse);
  return { source, hub, response };
}

describe("EventStreamHub buffering", () => {
  it("bounds what it queues for a slow client, drops the oldest frames and reports the gap", async () => {
    const { source, hub, response } = await connectSlowClient();
    // retry was written and refused: from now on frames queue
    expect(response.written).toHaveLength(1);
    for (let index = 0; index < 300; index++) source.emit(cacheMiss(`t${index}`));
    expect(response.written).toHaveLength(1);
    response.drain();
    const after = response.written.slice(1);
    expect(after[0]).toMatch(/^id: \d+\nevent: gap\ndata: \{"dropped":45\}\n\n$/);
    expect(after).toHaveLength(1 + 256);
    // the newest frames survived (ready was among the dropped ones)
    expect(after.slice(-5).map((frame) => /"traceId":"(t\d+)"/.exec(frame)?.[1])).toEqual(["t295", "t296", "t297", "t298", "t299"]);
    hub.close();
    await source.waitForSubscribers((count) => count === 0);
  });

  it("also bounds the queued bytes", async () => {
    const { source, hub, response } = await connectSlowClient();
    for (let index = 0; index < 200; index++) source.emit(cacheMiss(`trace-${index}-${"x".repeat(10_000)}`));
    response.drain();
    const delivered = response.written.slice(1);
    const bytes = delivered.slice(1).reduce((total, frame) => total + frame.length, 0);
    expect(delivered[0]).toContain("event: gap");
    expect(bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(delivered.length).toBeGreaterThan(2);
    hub.close();
  });
});
