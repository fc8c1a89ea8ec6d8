import type { IncomingMessage, ServerResponse } from "node:http";
import type { TraceEvent } from "@afw/contracts";
import type { DashboardSource, QuerySummary } from "./dashboard-source.js";
import { DashboardHttpError, setSecurityHeaders, toSafeJson } from "./http-responses.js";
import { isQueryLifecycleEvent } from "./query-summary.js";

/** Interval of the heartbeat comments. */
const HEARTBEAT_MS = 15_000;
/** Reconnection delay suggested to the page. */
const RETRY_MS = 3_000;
/** Most simultaneous connections. */
const MAX_CLIENTS = 32;
/** Most frames, and bytes, queued for one slow client before the oldest are dropped. */
const MAX_BUFFERED_EVENTS = 256;
const MAX_BUFFERED_BYTES = 1024 * 1024;

interface Client {
  res: ServerResponse;
  queue: string[];
  queuedBytes: number;
  dropped: number;
  blocked: boolean;
  onDrain: () => void;
}

// The hub looks up at most 500 rows at once (further lifecycle events only go out as `trace` frames).
const MAX_PENDING_SUMMARIES = 500;

/**
 * Fans the source's trace events out to every connected page as server-sent events.
 *
 * One subscription to the source is held while at least one page is connected. Every event goes
 * out as an `event: trace` frame; query lifecycle events (`query-received`, `query-answered`,
 * `query-failed`) also produce an `event: query` frame with the feed row (from the source's `query`). Writes to a slow page
 * are queued up to a bound; when the bound is exceeded the oldest frames are dropped and the page
 * receives an `event: gap` frame (`{ "dropped": n }`) once it catches up, so it can reload.
 */
export class EventStreamHub {
  private readonly clients = new Set<Client>();
  private subscription: Promise<(() => void) | undefined> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private nextId = 1;
  private chain: Promise<void> = Promise.resolve();
  private pendingSummaries = 0;

  constructor(
    private readonly source: DashboardSource,
    private readonly present: { query(summary: QuerySummary): QuerySummary; event(event: TraceEvent): TraceEvent; redacted: boolean },
    private readonly onError: (error: unknown, where: string) => void,
  ) {}

  /** Connected pages. */
  get clientCount(): number {
    return this.clients.size;
  }

  /**
   * Starts a live feed on `res`; resolves once subscribed and the `ready` frame is written.
   * @throws DashboardHttpError 501 when the source has no `subscribe`, 503 when too many pages are connected.
   */
  async connect(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.source.subscribe) throw new DashboardHttpError(501, "NOT_CONFIGURED", "the live feed is not configured");
    if (this.clients.size >= MAX_CLIENTS) {
      throw new DashboardHttpError(503, "TOO_MANY_CLIENTS", "too many live-feed connections", { headers: { "retry-after": "10" } });
    }
    const client: Client = { res, queue: [], queuedBytes: 0, dropped: 0, blocked: false, onDrain: () => this.flush(client) };
    req.socket.setNoDelay(true);
    req.socket.setKeepAlive(true);
    setSecurityHeaders(res);
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    this.clients.add(client);
    res.on("close", () => this.remove(client));
    res.on("error", () => this.remove(client));
    this.write(client, `retry: ${RETRY_MS}\n\n`);
    try {
      await this.ensureSubscribed();
    } catch (error) {
      this.onError(error, "subscribe");
      this.remove(client);
      res.end();
      return;
    }
    if (!this.clients.has(client)) return;
    this.write(client, this.frame("ready", { redacted: this.present.redacted, heartbeatMs: HEARTBEAT_MS }));
    this.startHeartbeat();
  }

  /** Ends every live feed and drops the source subscription. */
  close(): void {
    for (const client of [...this.clients]) {
      this.remove(client);
      client.res.end();
    }
  }

  private ensureSubscribed(): Promise<(() => void) | undefined> {
    if (!this.subscription) {
      const subscribe = this.source.subscribe;
      const attempt = Promise.resolve().then(() => subscribe?.call(this.source, (event) => this.onEvent(event)));
      this.subscription = attempt;
      attempt.catch(() => {
        if (this.subscription === attempt) this.subscription = undefined;
      });
    }
    return this.subscription;
  }

  private remove(client: Client): void {
    if (!this.clients.delete(client)) return;
    client.res.off("drain", client.onDrain);
    client.queue.length = 0;
    client.queuedBytes = 0;
    if (this.clients.size === 0) {
      if (this.heartbeat) clearInterval(this.heartbeat);
      this.heartbeat = undefined;
      const subscription = this.subscription;
      this.subscription = undefined;
      subscription?.then(
        (unsubscribe) => unsubscribe?.(),
        () => undefined,
      );
    }
  }

  private startHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      for (const client of this.clients) if (!client.blocked) this.write(client, ": ping\n\n");
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  private frame(event: string, data: unknown): string {
    return `id: ${this.nextId++}\nevent: ${event}\ndata: ${toSafeJson(data)}\n\n`;
  }

  private broadcast(frame: string): void {
    for (const client of this.clients) this.write(client, frame);
  }

  private write(client: Client, frame: string): void {
    if (client.res.writableEnded || client.res.destroyed) return;
    if (client.blocked) {
      client.queue.push(frame);
      client.queuedBytes += frame.length;
      while (client.queue.length > MAX_BUFFERED_EVENTS || client.queuedBytes > MAX_BUFFERED_BYTES) {
        const dropped = client.queue.shift();
        if (dropped === undefined) break;
        client.queuedBytes -= dropped.length;
        client.dropped++;
      }
      return;
    }
    if (!client.res.write(frame)) {
      client.blocked = true;
      client.res.once("drain", client.onDrain);
    }
  }

  private flush(client: Client): void {
    if (!this.clients.has(client)) return;
    client.blocked = false;
    if (client.dropped > 0) {
      const dropped = client.dropped;
      client.dropped = 0;
      this.write(client, this.frame("gap", { dropped }));
    }
    while (!client.blocked && client.queue.length > 0) {
      const next = client.queue.shift() as string;
      client.queuedBytes -= next.length;
      this.write(client, next);
    }
  }

  private onEvent(event: TraceEvent): void {
    if (this.clients.size === 0) return;
    try {
      this.broadcast(this.frame("trace", this.present.event(event)));
    } catch (error) {
      this.onError(error, "trace event");
      return;
    }
    if (!isQueryLifecycleEvent(event) || !this.source.query || this.pendingSummaries >= MAX_PENDING_SUMMARIES) return;
    this.pendingSummaries++;
    // Rows are built one after another so a slow lookup cannot reorder a query's updates.
    this.chain = this.chain.then(async () => {
      try {
        const summary = await this.source.query?.(event.traceId);
        if (summary && this.clients.size > 0) this.broadcast(this.frame("query", this.present.query(summary)));
      } catch (error) {
        this.onError(error, "query summary");
      } finally {
        this.pendingSummaries--;
      }
    });
  }
}
