import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(new URL("../../../../scripts/redis-topology.mjs", import.meta.url));

/** A Redis process of a topology started by `scripts/redis-topology.mjs`. */
export interface RedisNode {
  host: string;
  port: number;
  pid: number;
  role?: string;
}

/** What `scripts/redis-topology.mjs` started. */
export interface RedisTopology {
  kind: "cluster" | "sentinel";
  /** `redis+cluster://...` or `redis+sentinel://.../mymaster`. */
  url: string;
  /** Cluster nodes. */
  nodes?: RedisNode[];
  /** Sentinel setup: the first master, its replicas and the sentinels. */
  master?: RedisNode;
  replicas?: RedisNode[];
  sentinels?: RedisNode[];
  /** Stops every process and deletes the data directory. */
  stop(): Promise<void>;
}

/** Runs `redis-cli -p <port> ...args` on loopback and returns its trimmed output. */
export function redisCli(port: number, ...args: string[]): string {
  return spawnSync("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...args], { encoding: "utf8", timeout: 10_000 }).stdout?.trim() ?? "";
}

/**
 * Starts a local Redis Cluster (3 masters, 3 replicas) or Sentinel setup (1 master, 2 replicas,
 * 3 sentinels) with `scripts/redis-topology.mjs`; it ends with this process even when killed.
 */
export async function startRedisTopology(kind: "cluster" | "sentinel", startTimeoutMs = 120_000): Promise<RedisTopology> {
  const child = spawn(process.execPath, [SCRIPT, kind, "--stop-on-stdin-end"], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(() => reject(new Error(`redis ${kind} did not start within ${startTimeoutMs} ms: ${stderr}`)), startTimeoutMs);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const end = stdout.indexOf("\n");
      if (end >= 0) {
        clearTimeout(timer);
        resolve(stdout.slice(0, end));
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`redis-topology.mjs ${kind} exited: ${stderr}`));
    });
  });
  return {
    ...(JSON.parse(line) as Omit<RedisTopology, "stop">),
    async stop() {
      child.stdin.end();
      await exited;
    },
  };
}
