import { Redis, type Cluster } from "ioredis";
import { AfwError, redactSecrets } from "@afw/contracts";

/** An ioredis client: standalone/Sentinel `Redis` or `Cluster`. */
export type RedisClient = Redis | Cluster;

/** How the Redis-backed stores of this package reach Redis. Give `url` or `client`. */
export interface RedisStoreConnectionOptions {
  /** `redis://` or `rediss://` URL. The store creates (and closes) its own client. */
  url?: string | undefined;
  /**
   * An existing ioredis client (e.g. the gateway's shared one). Not closed by the store unless
   * `closeClient` is true.
   */
  client?: RedisClient | undefined;
  /** Close a given `client` when the store is closed. @default false */
  closeClient?: boolean | undefined;
  /** Prefix of every key the store writes. @default "afw:analytics:" */
  keyPrefix?: string | undefined;
  /**
   * Bound of every Redis operation; an operation that takes longer counts as failed and the
   * store degrades (drops writes, reports failures) instead of waiting. @default 500
   */
  operationTimeoutMs?: number | undefined;
}

/** Default key prefix of the Redis stores. */
export const DEFAULT_KEY_PREFIX = "afw:analytics:";

/** The outcome of one bounded Redis operation. @internal */
export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };

const noop = () => {};


/**
 * One ioredis client and the rule that keeps Redis trouble away from callers: every operation is
 * bounded by `operationTimeoutMs` and resolves to an {@link Outcome} instead of throwing; once the
 * client has been connected, a reconnecting client fails operations at once instead of queueing
 * them. @internal
 */
export class BoundedRedis {
  readonly client: RedisClient;
  readonly keyPrefix: string;
  readonly operationTimeoutMs: number;
  private readonly owned: boolean;
  private everReady: boolean;
  private readonly firstReady: Promise<void>;
  private closed = false;

  constructor(options: RedisStoreConnectionOptions, what: string) {
    if ((options.url === undefined) === (options.client === undefined)) {
      throw new AfwError("CONFIG_INVALID", `${what}: give exactly one of 'url' or 'client'`);
    }
    const timeout = options.operationTimeoutMs ?? 500;
    if (!Number.isFinite(timeout) || timeout <= 0) throw new AfwError("CONFIG_INVALID", `${what}: operationTimeoutMs must be positive`);
    this.operationTimeoutMs = timeout;
    this.keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    if (options.client) {
      this.client = options.client;
      this.owned = options.closeClient ?? false;
    } else {
      this.client = new Redis(options.url!, {
        lazyConnect: true,
        maxRetriesPerRequest: 1,
        connectTimeout: Math.max(1000, timeout * 4),
        retryStrategy: (times) => Math.min(2000, 50 * 2 ** Math.min(times, 6)),
      });
      this.owned = true;
    }
    // Without a listener ioredis prints every connection error; failures are counted instead.
    this.client.on("error", noop);
    this.everReady = this.client.status === "ready";
    this.client.on("ready", () => {
      this.everReady = true;
    });
    this.firstReady = this.everReady ? Promise.resolve() : new Promise((resolve) => this.client.once("ready", () => resolve()));
    this.firstReady.catch(noop);
  }

  /** The full key of `name`. */
  key(name: string): string {
    return `${this.keyPrefix}${name}`;
  }

  /** Runs `fn` within the operation bound. Never rejects. */
  async run<T>(fn: (client: RedisClient) => Promise<T>, timeoutMs = this.operationTimeoutMs): Promise<Outcome<T>> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      if (this.closed) throw new Error("the Redis connection is closed");
      if (this.client.status !== "ready") {
        if (this.everReady || this.client.status === "end") throw new Error(`Redis connection is ${this.client.status}`);
        if (this.client.status === "wait") this.client.connect().catch(noop);
        const ready = await Promise.race([
          this.firstReady.then(() => true),
          new Promise<false>((resolve) => {
            timer = setTimeout(() => resolve(false), timeoutMs);
          }),
        ]);
        clearTimeout(timer);
        if (!ready || (this.client.status as string) !== "ready") throw new Error(`Redis connection is ${this.client.status}`);
      }
      const remaining = Math.max(1, timeoutMs - (performance.now() - started));
      const pending = fn(this.client);
      pending.catch(noop);
      const value = await Promise.race([
        pending,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`Redis operation timed out after ${timeoutMs} ms`)), remaining);
        }),
      ]);
      return { ok: true, value };
    } catch (error) {
      return { ok: false, message: redactSecrets(error instanceof Error ? error.message : String(error)) };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the client if this connection owns it. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.owned) return;
    try {
      await Promise.race([this.client.quit(), new Promise((resolve) => setTimeout(resolve, 500).unref())]);
    } catch {
      // already gone
    }
    this.client.disconnect();
  }
}
