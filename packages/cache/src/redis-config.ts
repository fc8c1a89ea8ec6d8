import { Cluster, Redis, type RedisOptions } from "ioredis";
import { AfwError, computeBackoffDelay } from "@afw/contracts";

/** A host and port of a Redis node or Sentinel. */
export interface RedisAddress {
  /** Host name or IP address. */
  host: string;
  /** TCP port. */
  port: number;
}

/** Credentials and TLS shared by every connection mode. */
export interface RedisAuth {
  /** ACL user name. */
  username?: string | undefined;
  /** Password (of `username`, or the default user). */
  password?: string | undefined;
  /** Connect with TLS (`rediss://`). */
  tls?: boolean | undefined;
}

/** Where Redis is and how to reach it: one server, a Sentinel-managed master, or a Cluster. */
export type RedisConnectionConfig =
  | (RedisAuth & { mode: "standalone"; host: string; port: number; db?: number | undefined })
  | (RedisAuth & {
      mode: "sentinel";
      sentinels: RedisAddress[];
      /** Master group name. */
      name: string;
      db?: number | undefined;
      sentinelUsername?: string | undefined;
      sentinelPassword?: string | undefined;
    })
  | (RedisAuth & { mode: "cluster"; nodes: RedisAddress[] });

const URL_PATTERN = /^([a-z][a-z0-9+.-]*):\/\/(?:([^@/?#]*)@)?([^/?#]*)([^?#]*)(?:\?([^#]*))?$/i;

const invalid = (message: string): AfwError => new AfwError("CONFIG_INVALID", message);

function parseHosts(hosts: string, defaultPort: number): RedisAddress[] {
  if (!hosts) return [{ host: "127.0.0.1", port: defaultPort }];
  return hosts.split(",").map((entry) => {
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    const plain = /^([^:]+)(?::(\d+))?$/.exec(entry);
    const match = bracketed ?? plain;
    if (!match?.[1]) throw invalid(`Invalid Redis host "${entry}"`);
    const port = match[2] === undefined ? defaultPort : Number(match[2]);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) throw invalid(`Invalid Redis port in "${entry}"`);
    return { host: match[1], port };
  });
}

function parseDb(value: string | undefined | null): number | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const db = Number(value);
  if (!Number.isInteger(db) || db < 0) throw invalid("Invalid Redis database index in URL");
  return db;
}

/**
 * Parses a Redis URL.
 * @throws AfwError `CONFIG_INVALID` for an unknown scheme or a malformed URL.
 * @example
 * ```ts
 * parseRedisUrl("redis+sentinel://s1:26379,s2:26379/mymaster/2")
 * // { mode: "sentinel", sentinels: [{ host: "s1", port: 26379 }, { host: "s2", port: 26379 }], name: "mymaster", db: 2 }
 * ```
 */
export function parseRedisUrl(url: string): RedisConnectionConfig {
  const match = URL_PATTERN.exec(url.trim());
  if (!match) throw invalid("Invalid Redis URL (expected redis://, rediss://, redis+sentinel:// or redis+cluster://)");
  const [, rawScheme = "", userInfo, hosts = "", path = "", query = ""] = match;
  const scheme = rawScheme.toLowerCase();
  const tls = scheme.startsWith("rediss");
  const auth: RedisAuth = {};
  if (userInfo !== undefined) {
    const colon = userInfo.indexOf(":");
    const user = decodeURIComponent(colon === -1 ? "" : userInfo.slice(0, colon));
    const password = decodeURIComponent(colon === -1 ? userInfo : userInfo.slice(colon + 1));
    if (user) auth.username = user;
    if (password) auth.password = password;
  }
  if (tls) auth.tls = true;
  const params = new URLSearchParams(query);
  const segments = path.split("/").filter((segment) => segment.length > 0);
  switch (scheme) {
    case "redis":
    case "rediss": {
      const [address] = parseHosts(hosts, 6379);
      if (!address || hosts.includes(",")) throw invalid("A redis:// URL names exactly one host; use redis+cluster:// or redis+sentinel:// for several");
      const db = parseDb(segments[0] ?? params.get("db"));
      return { mode: "standalone", ...address, ...auth, ...(db === undefined ? {} : { db }) };
    }
    case "redis+sentinel":
    case "rediss+sentinel":
    case "sentinel": {
      const name = segments[0] ? decodeURIComponent(segments[0]) : params.get("name");
      if (!name) throw invalid("A redis+sentinel:// URL needs the master name as its path, e.g. redis+sentinel://host:26379/mymaster");
      const db = parseDb(segments[1] ?? params.get("db"));
      const sentinelUsername = params.get("sentinelUsername");
      const sentinelPassword = params.get("sentinelPassword");
      return {
        mode: "sentinel",
        sentinels: parseHosts(hosts, 26_379),
        name,
        ...auth,
        ...(db === undefined ? {} : { db }),
        ...(sentinelUsername ? { sentinelUsername } : {}),
        ...(sentinelPassword ? { sentinelPassword } : {}),
      };
    }
    case "redis+cluster":
    case "rediss+cluster":
      return { mode: "cluster", nodes: parseHosts(hosts, 6379), ...auth };
    default:
      throw invalid(`Unsupported Redis URL scheme "${scheme}:"`);
  }
}

/** How the client reconnects after losing Redis. */
export interface ReconnectOptions {
  /** First delay. @default 50 */
  initialDelayMs?: number;
  /** Largest delay (exponential backoff with jitter up to this). @default 2000 */
  maxDelayMs?: number;
}

/** Settings that make the client fail fast instead of queueing while Redis is away. */
export interface RedisClientSettings {
  /** Bound of every store operation (the stores enforce it themselves). @default 100 */
  operationTimeoutMs?: number;
  /**
   * Per-command timeout given to ioredis: how long a command may wait for its reply before it is
   * failed, at least the longest bound any store uses for one operation. @default operationTimeoutMs
   */
  commandTimeoutMs?: number;
  /** Reconnect backoff. */
  reconnect?: ReconnectOptions;
  /** Do not connect until the first command (tests, tooling). @default false */
  lazyConnect?: boolean;
}

/**
 * Creates an ioredis client for a URL or {@link RedisConnectionConfig}: a `Redis` for standalone and Sentinel, a
 * `Cluster` for Cluster. It fails fast: no offline queue, no retries of in-flight commands, a per-command timeout, a
 * 2 s connect timeout, and reconnects with exponential backoff and jitter.
 * @throws AfwError `CONFIG_INVALID` for a malformed URL.
 * @example
 * ```ts
 * const client = createRedisClient("redis+cluster://10.0.0.1:7000,10.0.0.2:7000");
 * client instanceof Cluster // true
 * ```
 */
export function createRedisClient(url: string | RedisConnectionConfig, settings: RedisClientSettings = {}): Redis | Cluster {
  const config = typeof url === "string" ? parseRedisUrl(url) : url;
  const operationTimeoutMs = settings.operationTimeoutMs ?? 100;
  const common = {
    commandTimeout: settings.commandTimeoutMs ?? operationTimeoutMs,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    lazyConnect: settings.lazyConnect ?? false,
    ...(config.username === undefined ? {} : { username: config.username }),
    ...(config.password === undefined ? {} : { password: config.password }),
    ...(config.tls ? { tls: {} } : {}),
  } satisfies RedisOptions;
  const backoff = { initialDelayMs: settings.reconnect?.initialDelayMs ?? 50, maxDelayMs: settings.reconnect?.maxDelayMs ?? 2000 };
  const retryStrategy = (attempt: number) => computeBackoffDelay(attempt, backoff);
  if (config.mode === "cluster") {
    return new Cluster(config.nodes, {
      enableOfflineQueue: false,
      lazyConnect: common.lazyConnect,
      clusterRetryStrategy: retryStrategy,
      clusterNodeRetryStrategy: retryStrategy,
      slotsRefreshTimeout: Math.max(1000, operationTimeoutMs),
      // The node connections also carry the Cluster's own CLUSTER SLOTS and ready checks, whose
      // time includes connecting: a 100 ms command bound kept a Cluster from ever becoming ready
      // on a loaded machine. Store operations stay bounded by the stores themselves.
      redisOptions: { ...common, commandTimeout: Math.max(1000, common.commandTimeout), lazyConnect: undefined },
    });
  }
  return new Redis({
    ...common,
    enableOfflineQueue: false,
    retryStrategy,
    ...(config.mode === "standalone"
      ? { host: config.host, port: config.port }
      : {
          sentinels: config.sentinels,
          name: config.name,
          sentinelRetryStrategy: retryStrategy,
          ...(config.sentinelUsername === undefined ? {} : { sentinelUsername: config.sentinelUsername }),
          ...(config.sentinelPassword === undefined ? {} : { sentinelPassword: config.sentinelPassword }),
          ...(config.tls ? { enableTLSForSentinelMode: true } : {}),
        }),
    ...(config.db === undefined ? {} : { db: config.db }),
  });
}
