import { createHash } from "node:crypto";
import { Cluster, type Redis } from "ioredis";
import { AfwError, redactSecrets, type TraceContext } from "@afw/contracts";
import { createRedisClient, parseRedisUrl, type RedisClientSettings } from "./redis-config.js";
import { EventReporter, type CacheStoreEvent, type CacheStoreEventHandler, type StoreName } from "./store-events.js";

/** An ioredis client: standalone/Sentinel `Redis` or `Cluster`. */
export type RedisClient = Redis | Cluster;

/** The outcome of one bounded Redis operation. */
export type RedisOutcome<T> = { ok: true; value: T } | { ok: false; message: string };

/** Health of a store backend, from {@link RedisConnection.health} or the memory stores. */
export interface StoreHealth {
  /** True when the store answered. */
  ok: boolean;
  /** `redis` or `memory`. */
  backend: "redis" | "memory";
  /** Connection mode. */
  mode: "standalone" | "sentinel" | "cluster" | "memory";
  /** ioredis connection status (`ready`, `reconnecting`, ...) or `ready` for memory. */
  status: string;
  /** PING round trip. */
  latencyMs?: number | undefined;
  /** Why the store is not ok (no secrets). */
  message?: string | undefined;
}

/** Options of {@link RedisConnection}. Give exactly one of `url` and `client`. */
export interface RedisConnectionOptions extends RedisClientSettings {
  /** `redis://`, `rediss://`, `redis+sentinel://` or `redis+cluster://` URL; see {@link parseRedisUrl}. */
  url?: string | undefined;
  /** An existing ioredis client. It is not closed by {@link RedisConnection.close} unless `closeClient` is true. */
  client?: RedisClient | undefined;
  /** Close a given `client` on {@link RedisConnection.close}. @default false */
  closeClient?: boolean | undefined;
  /** Bound of every store operation; on expiry the operation degrades to a miss / no-op. @default 100 */
  operationTimeoutMs?: number;
  /** Trace context for `cache-unavailable` events. */
  trace?: TraceContext | undefined;
  /** Hook for store events (`cache-unavailable`, `cache-recovered`, `value-corrupt`). */
  onEvent?: CacheStoreEventHandler | undefined;
}

/**
 * A Lua script, registered on each client it runs on with ioredis `defineCommand` (which sends EVALSHA and falls back to
 * EVAL when the server does not know the script yet, pipelines included).
 * @example
 * ```ts
 * const INCR_TO = new LuaScript(`return redis.call("INCRBY", KEYS[1], ARGV[1])`);
 * await INCR_TO.run(client, ["counter"], [5]);
 * ```
 */
export class LuaScript {
  /** The command name it is defined under (from the SHA-1 of the source). */
  readonly name: string;
  private readonly definedOn = new WeakSet<object>();

  /** @param source The Lua source. */
  constructor(readonly source: string) {
    this.name = `afw${createHash("sha1").update(source).digest("hex").slice(0, 16)}`;
  }

  /** Runs the script with `keys` and `args` on `client`. */
  run(client: RedisClient, keys: readonly string[], args: ReadonlyArray<string | number | Buffer>): Promise<unknown> {
    if (!this.definedOn.has(client)) {
      client.defineCommand(this.name, { lua: this.source });
      this.definedOn.add(client);
    }
    const command = (client as unknown as Record<string, (...values: Array<string | number | Buffer>) => Promise<unknown>>)[this.name]!;
    return command.call(client, keys.length, ...keys, ...args);
  }
}

class OperationTimeoutError extends Error {}

/** Per-call options of {@link RedisConnection.run} and {@link RedisConnection.execute}. */
export interface RedisRunOptions {
  /**
   * Bound of this call in ms, including the wait for a first connection; attempts that time out
   * are retried within it. @default the connection's `operationTimeoutMs`
   */
  timeoutMs?: number | undefined;
}

const noop = () => {};

/** Timer lateness (ms) still taken as normal scheduling jitter rather than an event-loop stall. */
const STALL_SLACK_MS = 20;
/** How far event-loop stalls may stretch an operation's bound in all (ms). */
const STALL_ALLOWANCE_MS = 5_000;

/**
 * One ioredis client plus the rules that keep Redis trouble away from callers: every operation is bounded by
 * `operationTimeoutMs`; a failure or timeout becomes a `{ ok: false }` outcome and a `cache-unavailable` event instead
 * of an exception; while the client reconnects after having been connected, operations fail at once instead of waiting.
 */
export class RedisConnection {
  /** The ioredis client. */
  readonly client: RedisClient;
  /** Connection mode. */
  readonly mode: "standalone" | "sentinel" | "cluster";
  /** Bound of every operation. */
  readonly operationTimeoutMs: number;
  private readonly owned: boolean;
  private readonly reporter: EventReporter;
  private everReady: boolean;
  private readonly firstAttempt: Promise<void>;
  private degraded = false;
  private closed = false;

  /**
   * @throws AfwError `CONFIG_INVALID` for bad options or a malformed URL.
   * @example
   * ```ts
   * const connection = new RedisConnection({ url: "redis://127.0.0.1:6379", operationTimeoutMs: 100 });
   * // ...
   * await connection.close();
   * ```
   */
  constructor(options: RedisConnectionOptions) {
    for (const [name, ms] of [["operationTimeoutMs", options.operationTimeoutMs], ["commandTimeoutMs", options.commandTimeoutMs]] as const) {
      if (ms !== undefined && !(Number.isInteger(ms) && ms > 0 && ms <= 60_000)) throw new AfwError("CONFIG_INVALID", `Invalid Redis options: ${name} must be an integer from 1 to 60000`);
    }
    if ((options.url === undefined) === (options.client === undefined)) {
      throw new AfwError("CONFIG_INVALID", "Give exactly one of url or client for the Redis connection");
    }
    this.operationTimeoutMs = options.operationTimeoutMs ?? 100;
    this.reporter = new EventReporter({ trace: options.trace, onEvent: options.onEvent });
    if (options.client) {
      this.client = options.client;
      this.owned = options.closeClient ?? false;
      this.mode = options.client instanceof Cluster ? "cluster" : options.client.options.sentinels ? "sentinel" : "standalone";
    } else {
      const config = parseRedisUrl(options.url!);
      // Replies may take longer than one operation's bound (slow appends wait up to their own,
      // longer bound); the stores time operations out themselves.
      const commandTimeoutMs = options.commandTimeoutMs ?? Math.max(1000, this.operationTimeoutMs);
      this.client = createRedisClient(config, { ...options, operationTimeoutMs: this.operationTimeoutMs, commandTimeoutMs });
      this.owned = true;
      this.mode = config.mode;
    }
    // Without a listener ioredis prints every connection error; the stores report them as events.
    this.client.on("error", noop);
    this.everReady = this.client.status === "ready";
    this.client.on("ready", () => {
      this.everReady = true;
    });
    // Settles when the first connection attempt does: ready, or failed (reconnecting / ended).
    this.firstAttempt = this.everReady
      ? Promise.resolve()
      : new Promise((resolve) => {
          const settle = () => {
            for (const event of ["ready", "reconnecting", "end"]) this.client.off(event, settle);
            resolve();
          };
          for (const event of ["ready", "reconnecting", "end"]) this.client.once(event, settle);
        });
    this.firstAttempt.catch(noop);
  }

  /** Reports `event` through this connection's `onEvent` hook and trace context (`trace` overrides it). */
  report(event: CacheStoreEvent, trace?: TraceContext): void {
    this.reporter.report(event, trace);
  }

  /**
   * Runs `operation` bounded by `operationTimeoutMs` (or `options.timeoutMs`). Never rejects: failures, timeouts and a
   * disconnected client resolve to `{ ok: false }` and emit `cache-unavailable`.
   */
  async run<T>(
    store: StoreName,
    operation: string,
    fn: (client: RedisClient) => Promise<T>,
    trace?: TraceContext,
    options?: RedisRunOptions,
  ): Promise<RedisOutcome<T>> {
    const outcome = await this.execute(fn, options);
    if (outcome.ok) {
      if (this.degraded) {
        this.degraded = false;
        this.reporter.report({ type: "cache-recovered", store, operation }, trace);
      }
    } else {
      this.degraded = true;
      this.reporter.report({ type: "cache-unavailable", store, operation, message: outcome.message }, trace);
    }
    return outcome;
  }

  /** Like {@link RedisConnection.run} without events (background work such as counter flushes). */
  async execute<T>(fn: (client: RedisClient) => Promise<T>, options?: RedisRunOptions): Promise<RedisOutcome<T>> {
    const budget = options?.timeoutMs ?? this.operationTimeoutMs;
    const started = performance.now();
    // When the event loop was stalled past the bound (a loaded machine, a long synchronous task),
    // expired timers fire before the socket is read, so a reply that came in time would be
    // refused. A timer that fires late excuses the attempt it spanned: the operation gets a fresh
    // `operationTimeoutMs` from then, up to STALL_ALLOWANCE_MS past its bound in all.
    let deadline = started + budget;
    const hardDeadline = deadline + STALL_ALLOWANCE_MS;
    const excuseStall = (expectedAt: number) => {
      const now = performance.now();
      if (now - expectedAt <= STALL_SLACK_MS) return false;
      deadline = Math.min(hardDeadline, Math.max(deadline, now + this.operationTimeoutMs));
      return true;
    };
    let timer: NodeJS.Timeout | undefined;
    /** Resolves false once the deadline has passed (re-armed past stalls), unless cleared first. */
    const expiry = () =>
      new Promise<false>((resolve) => {
        const arm = () => {
          const expectedAt = deadline;
          timer = setTimeout(() => (excuseStall(expectedAt) && performance.now() < deadline ? arm() : resolve(false)), Math.max(1, deadline - performance.now()));
        };
        arm();
      });
    try {
      if (this.closed) throw new Error("Redis connection is closed");
      if (this.client.status !== "ready") {
        // During the first connection attempt: wait for it within the budget. Once connected
        // before, or after a failed first attempt, a client that is not ready is reconnecting:
        // fail at once rather than wait on a dead Redis.
        const status = this.client.status;
        if (this.everReady || status === "end" || status === "reconnecting" || status === "close") throw new Error(`Redis connection is ${status}`);
        if (this.client.status === "wait") this.client.connect().catch(noop);
        const settled = await Promise.race([this.firstAttempt.then(() => true), expiry()]);
        clearTimeout(timer);
        if (!settled || (this.client.status as string) !== "ready") throw new Error(`Redis connection is ${this.client.status}`);
      }
      for (;;) {
        const attemptStarted = performance.now();
        const pending = fn(this.client);
        pending.catch(noop);
        try {
          const value = await Promise.race([
            pending,
            expiry().then(() => {
              throw new OperationTimeoutError(`Redis operation timed out after ${budget} ms`);
            }),
          ]);
          return { ok: true, value };
        } catch (error) {
          clearTimeout(timer);
          // ioredis' own `commandTimeout` (= operationTimeoutMs) ends an attempt early: retry
          // while the budget lasts and the connection is up.
          const timedOut = error instanceof Error && error.message === "Command timed out";
          if (timedOut) excuseStall(attemptStarted + this.operationTimeoutMs);
          if (!timedOut || this.closed || this.client.status !== "ready" || deadline - performance.now() < 1) {
            throw timedOut ? new OperationTimeoutError(`Redis operation timed out after ${budget} ms`) : error;
          }
        }
      }
    } catch (error) {
      return { ok: false, message: redactSecrets(error instanceof Error ? error.message : String(error)) };
    } finally {
      clearTimeout(timer);
    }
  }

  /** True when the client is connected and ready for commands. */
  get ready(): boolean {
    return !this.closed && this.client.status === "ready";
  }

  /**
   * Visits every key matching `pattern` with `SCAN ... COUNT count` (on every master of a Cluster), calling `visit` per
   * batch; each SCAN round trip is one bounded operation.
   */
  async scan(store: StoreName, operation: string, pattern: string, count: number, visit: (keys: string[], node: RedisClient) => Promise<void>): Promise<boolean> {
    const nodes: RedisClient[] = this.client instanceof Cluster ? this.client.nodes("master") : [this.client];
    for (const node of nodes) {
      let cursor = "0";
      do {
        const outcome = await this.run(store, operation, () => node.scan(cursor, "MATCH", pattern, "COUNT", count));
        if (!outcome.ok) return false;
        const [next, keys] = outcome.value;
        cursor = next;
        if (keys.length > 0) await visit(keys, node);
      } while (cursor !== "0");
    }
    return true;
  }

  /** PINGs Redis within the operation bound. */
  async health(): Promise<StoreHealth> {
    const started = performance.now();
    const outcome = await this.run("connection", "ping", (client) => client.ping());
    const latencyMs = Math.round((performance.now() - started) * 1000) / 1000;
    return outcome.ok
      ? { ok: true, backend: "redis", mode: this.mode, status: this.client.status, latencyMs }
      : { ok: false, backend: "redis", mode: this.mode, status: this.client.status, message: outcome.message };
  }

  /** Closes the client if this connection created it (or `closeClient` was set). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.owned) return;
    if (this.client.status === "ready") {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.client.quit().catch(noop),
        new Promise((resolve) => {
          timer = setTimeout(resolve, 1000);
        }),
      ]);
      clearTimeout(timer);
    }
    this.client.disconnect();
  }
}
