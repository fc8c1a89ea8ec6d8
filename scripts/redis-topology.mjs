#!/usr/bin/env node
// Starts a local Redis Cluster (3 masters + 3 replicas) or a Sentinel setup (1 master, 2 replicas,
// 3 sentinels) from Debian's redis-server / redis-sentinel / redis-cli, on free loopback ports in a
// temporary directory, prints one JSON line describing it, and keeps it up until SIGTERM/SIGINT
// (or, with --stop-on-stdin-end, until stdin closes), then stops every process and deletes the directory.
//
//   node scripts/redis-topology.mjs cluster    -> {"kind":"cluster","url":"redis+cluster://...","nodes":[...],...}
//   node scripts/redis-topology.mjs sentinel   -> {"kind":"sentinel","url":"redis+sentinel://.../mymaster","master":{...},...}
//
// The opt-in tests in tooling/reliability (AFW_REDIS_CLUSTER=1, AFW_REDIS_SENTINEL=1) run it.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const kind = process.argv[2];
if (kind !== "cluster" && kind !== "sentinel") {
  process.stderr.write("usage: node scripts/redis-topology.mjs cluster|sentinel\n");
  process.exit(2);
}
for (const binary of ["redis-server", "redis-cli", ...(kind === "sentinel" ? ["redis-sentinel"] : [])]) {
  if (spawnSync("sh", ["-c", `command -v ${binary}`]).status !== 0) {
    process.stderr.write(`${binary} not found: apt-get install -y redis-server${kind === "sentinel" ? " redis-sentinel" : ""}\n`);
    process.exit(3);
  }
}

const HOST = "127.0.0.1";
const dir = mkdtempSync(join(tmpdir(), `afw-redis-${kind}-`));
const children = [];

const listenable = (port) =>
  new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });

/** A free port whose cluster bus port (+10000) is free too. */
async function freePort(taken) {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await listenable(port)) && (await listenable(port + 10_000))) {
      taken.add(port);
      return port;
    }
  }
}

const cli = (port, ...args) => spawnSync("redis-cli", ["-h", HOST, "-p", String(port), ...args], { encoding: "utf8", timeout: 5_000 }).stdout?.trim() ?? "";

async function until(what, check, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function launch(binary, args, name) {
  const child = spawn(binary, args, { stdio: ["ignore", "ignore", "inherit"] });
  children.push({ child, name });
  return child;
}

async function startServer(port, extra) {
  const data = join(dir, String(port));
  mkdirSync(data);
  const child = launch("redis-server", ["--port", String(port), "--bind", HOST, "--dir", data, "--save", "", "--appendonly", "no", "--daemonize", "no", ...extra], `redis-server:${port}`);
  await until(`redis-server on ${port}`, () => cli(port, "PING") === "PONG");
  return { host: HOST, port, pid: child.pid };
}

async function startCluster() {
  const taken = new Set();
  const ports = [];
  for (let i = 0; i < 6; i++) ports.push(await freePort(taken));
  const nodes = [];
  for (const port of ports) nodes.push(await startServer(port, ["--cluster-enabled", "yes", "--cluster-config-file", `nodes-${port}.conf`, "--cluster-node-timeout", "2000"]));
  const create = spawnSync("redis-cli", ["--cluster", "create", ...ports.map((p) => `${HOST}:${p}`), "--cluster-replicas", "1", "--cluster-yes"], { encoding: "utf8", timeout: 60_000 });
  if (create.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${create.stdout}\n${create.stderr}`);
  await until("cluster_state:ok on every node", () => ports.every((p) => cli(p, "CLUSTER", "INFO").includes("cluster_state:ok")));
  const roles = Object.fromEntries(ports.map((p) => [p, cli(p, "ROLE").split("\n")[0]]));
  return {
    kind: "cluster",
    url: `redis+cluster://${ports.slice(0, 3).map((p) => `${HOST}:${p}`).join(",")}`,
    nodes: nodes.map((n) => ({ ...n, role: roles[n.port] })),
  };
}

async function startSentinel() {
  const taken = new Set();
  const master = await startServer(await freePort(taken), []);
  const replicas = [];
  for (let i = 0; i < 2; i++) replicas.push(await startServer(await freePort(taken), ["--replicaof", HOST, String(master.port)]));
  await until("replicas in sync", () => replicas.every((r) => /master_link_status:up/.test(cli(r.port, "INFO", "replication"))));
  const sentinels = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort(taken);
    const conf = join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      conf,
      [
        `port ${port}`,
        `bind ${HOST}`,
        `dir ${dir}`,
        `sentinel monitor mymaster ${HOST} ${master.port} 2`,
        "sentinel down-after-milliseconds mymaster 1000",
        "sentinel failover-timeout mymaster 10000",
        "sentinel parallel-syncs mymaster 1",
        "",
      ].join("\n"),
    );
    const child = launch("redis-sentinel", [conf], `redis-sentinel:${port}`);
    await until(`sentinel on ${port}`, () => cli(port, "PING") === "PONG");
    sentinels.push({ host: HOST, port, pid: child.pid });
  }
  const masterField = (port, field) => {
    const lines = cli(port, "SENTINEL", "MASTER", "mymaster").split("\n");
    return lines[lines.indexOf(field) + 1];
  };
  await until("sentinels that know both replicas and each other", () =>
    sentinels.every((s) => masterField(s.port, "num-slaves") === "2" && masterField(s.port, "num-other-sentinels") === "2"),
  );
  return {
    kind: "sentinel",
    url: `redis+sentinel://${sentinels.map((s) => `${HOST}:${s.port}`).join(",")}/mymaster`,
    name: "mymaster",
    master,
    replicas,
    sentinels,
  };
}

let stopping = false;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  await Promise.all(
    children.map(
      ({ child }) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", resolve);
          child.kill("SIGKILL");
        }),
    ),
  );
  rmSync(dir, { recursive: true, force: true });
  process.exit(code);
}
process.on("SIGTERM", () => void stop(0));
process.on("SIGINT", () => void stop(0));
if (process.argv.includes("--stop-on-stdin-end")) {
  // For a parent process (a test) that keeps stdin open: the topology ends with it, even when it is killed.
  process.stdin.on("end", () => void stop(0));
  process.stdin.resume();
}

try {
  const topology = kind === "cluster" ? await startCluster() : await startSentinel();
  process.stdout.write(`${JSON.stringify({ ...topology, dir, pid: process.pid })}\n`);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  await stop(1);
}
