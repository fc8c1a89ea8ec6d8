import { spawn, spawnSync } from "node:child_process";
import { createServer, Socket } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Sends one inline command to host:port and resolves what `parse` makes of the reply collected so far, once it
 * returns a value; `fallback` on an error reply, a connection error or silence for `timeoutMs`.
 */
function askRedis<T>(host: string, port: number, command: string, parse: (reply: string) => T | undefined, fallback: T, timeoutMs: number): Promise<T> {
  return new Promise((resolve) => {
    const socket = new Socket();
    let done = false;
    let reply = "";
    const finish = (value: T) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(value);
    };
    socket.setTimeout(timeoutMs, () => finish(fallback));
    socket.once("error", () => finish(fallback));
    socket.connect(port, host, () => socket.write(`${command}\r\n`));
    socket.on("data", (data) => {
      reply += data.toString();
      const value = reply.startsWith("-") ? fallback : parse(reply);
      if (value !== undefined) finish(value);
    });
  });
}

/** Sends PING to host:port and resolves true on +PONG within `timeoutMs`. */
export async function pingRedis(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return askRedis(host, port, "PING", (reply) => reply.startsWith("+PONG") || (reply.length >= 5 ? false : undefined), false, timeoutMs);
}

/**
 * Asks the Redis at host:port for its `process_id` (INFO server). Resolves undefined when nothing
 * answers within `timeoutMs`. Tells a server this process started from another one that took
 * the same port in the meantime.
 */
export async function redisProcessId(host: string, port: number, timeoutMs = 500): Promise<number | undefined> {
  return askRedis(host, port, "INFO server", (reply) => {
    const match = /\bprocess_id:(\d+)/.exec(reply);
    return match ? Number(match[1]) : undefined;
  }, undefined, timeoutMs);
}

/** A redis-server process started by a test. */
export interface RedisServerHandle {
  readonly url: string;
  readonly port: number;
  /** Stops the server (SHUTDOWN, then SIGKILL if it lingers). Data on disk is kept for restart(). */
  stop(options?: { kill?: boolean }): Promise<void>;
  /** Starts the server again on the same port and data directory. */
  restart(): Promise<void>;
  /** Stops the server and deletes its data directory. */
  dispose(): Promise<void>;
}

function redisServerBinary(): string | undefined {
  const found = spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" });
  const path = found.stdout.trim();
  return found.status === 0 && path ? path : undefined;
}

/** Message shown when no Redis can be found or started. */
export const REDIS_MISSING_MESSAGE =
  "No Redis available for tests: set REDIS_URL, run a Redis on 127.0.0.1:6379, or install redis-server (Debian: apt-get install -y redis-server).";

/**
 * Starts a private `redis-server` on a free loopback port (no persistence unless `appendOnly`).
 *
 * @throws Error with {@link REDIS_MISSING_MESSAGE} when redis-server is not installed.
 */
export async function startRedisServer(options: { appendOnly?: boolean; port?: number } = {}): Promise<RedisServerHandle> {
  const binary = redisServerBinary();
  if (!binary) throw new Error(REDIS_MISSING_MESSAGE);
  let port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), "afw-redis-"));
  let child: ReturnType<typeof spawn> | undefined;
  // Starts redis-server on `port` and waits until the server answering there is this child (by
  // its process id): a free port can be taken by another test process between freePort() and
  // the bind, and a PING alone would then talk to that other server.
  const launch = async (): Promise<boolean> => {
    const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--dir", dir, "--daemonize", "no"];
    args.push("--appendonly", options.appendOnly ? "yes" : "no");
    if (options.appendOnly) args.push("--appendfsync", "always");
    const proc = spawn(binary, args, { stdio: "ignore" });
    child = proc;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null || proc.signalCode !== null) return false; // e.g. the port was taken
      if (proc.pid !== undefined && (await redisProcessId("127.0.0.1", port, 200)) === proc.pid) return true;
      await new Promise((r) => setTimeout(r, 25));
    }
    proc.kill("SIGKILL");
    throw new Error(`redis-server did not start on port ${port}`);
  };
  const start = async () => {
    if (await launch()) return;
    throw new Error(`redis-server could not start again on port ${port} (is the port taken?)`);
  };
  const firstStart = async () => {
    for (let attempt = 0; attempt < 5; attempt++) {
      if (await launch()) return;
      if (options.port !== undefined) break;
      port = await freePort(); // lost a race for the port: try another one
    }
    throw new Error(`redis-server did not start (last port tried: ${port})`);
  };
  const stop = async ({ kill = false } = {}) => {
    const proc = child;
    // A killed process has a signalCode and no exitCode: it has exited all the same.
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    proc.kill(kill ? "SIGKILL" : "SIGTERM");
    const timer = setTimeout(() => proc.kill("SIGKILL"), 3000);
    await exited;
    clearTimeout(timer);
  };
  await firstStart();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    restart: start,
    async dispose() {
      await stop({ kill: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Where tests find Redis. */
export interface TestRedis {
  /** `redis://` URL of the server. */
  readonly url: string;
  /** A fresh key prefix for one test file or case, e.g. `afwtest:<uuid>:`. */
  prefix(): string;
  /** Stops a server this helper started (no-op for an external one). */
  dispose(): Promise<void>;
}

/**
 * Finds a Redis for tests: `REDIS_URL` if set, else 127.0.0.1:6379 if it answers PING, else a
 * private `redis-server` on a free port. Fails with a clear message when none can be had.
 * Isolate tests by {@link TestRedis.prefix} and delete your keys afterwards.
 *
 * @throws Error with {@link REDIS_MISSING_MESSAGE}.
 */
export async function getTestRedis(): Promise<TestRedis> {
  const prefix = () => `afwtest:${randomUUID()}:`;
  const fromEnv = process.env["REDIS_URL"];
  if (fromEnv) return { url: fromEnv, prefix, dispose: async () => {} };
  if (await pingRedis("127.0.0.1", 6379)) return { url: "redis://127.0.0.1:6379", prefix, dispose: async () => {} };
  const server = await startRedisServer();
  return { url: server.url, prefix, dispose: () => server.dispose() };
}

/**
 * Walks every key that starts with `prefix` on the Redis at `url` (SCAN with a bounded COUNT,
 * never KEYS), handing each batch to `onBatch`, and resolves to the sum of what it returned.
 */
async function scanByPrefix(
  url: string,
  prefix: string,
  onBatch: (client: import("ioredis").Redis, keys: string[]) => Promise<number> | number,
): Promise<number> {
  const { Redis } = await import("ioredis");
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  client.on("error", () => {});
  try {
    await client.connect();
    const pattern = `${prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;
    let cursor = "0";
    let total = 0;
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", pattern, "COUNT", 500);
      cursor = next;
      if (keys.length > 0) total += await onBatch(client, keys);
    } while (cursor !== "0");
    return total;
  } finally {
    client.disconnect();
  }
}

/**
 * Deletes every key that starts with `prefix` from the Redis at `url` (SCAN with a bounded COUNT
 * + UNLINK, never KEYS) and resolves to how many keys were removed. Use it in `afterAll` to
 * leave no keys behind.
 */
export async function deleteRedisKeys(url: string, prefix: string): Promise<number> {
  if (!prefix) throw new Error("deleteRedisKeys needs a non-empty prefix");
  return scanByPrefix(url, prefix, (client, keys) => client.unlink(...keys));
}

/** Counts the keys that start with `prefix` (SCAN, never KEYS). */
export async function countRedisKeys(url: string, prefix: string): Promise<number> {
  return scanByPrefix(url, prefix, (_client, keys) => keys.length);
}
