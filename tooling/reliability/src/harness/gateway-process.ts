import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { GatewayConfigInput } from "@afw/server";

const require = createRequire(import.meta.url);

/** Longest wait for a gateway process to listen. */
const START_TIMEOUT_MS = 120_000;

/** Path of the built `afw` CLI (`apps/gateway/dist/cli.js`). */
export function gatewayCliPath(): string {
  return join(dirname(require.resolve("@afw/gateway/package.json")), "dist", "cli.js");
}

/** A gateway running as its own process (`afw serve --http`). */
export interface GatewayProcess {
  /** `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly child: ChildProcess;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Resident set size of the process in bytes, read from /proc. */
  rssBytes(): number;
  /** Scrapes `/metrics` and returns the value of one sample (e.g. `afw_nodejs_heap_size_used_bytes`). */
  metric(name: string): Promise<number | undefined>;
  /** SIGKILLs the process (no graceful shutdown) and waits for it to exit. */
  kill(): Promise<void>;
  /** SIGTERM, then waits for exit (SIGKILL after 5 s). */
  stop(): Promise<void>;
}

/**
 * Spawns `node apps/gateway/dist/cli.js serve --http --port 0` with `config` written to a temporary JSON file (JSON is
 * YAML), waits for its "serving MCP on <url>" line and returns a handle.
 */
export async function startGatewayProcess(
  config: GatewayConfigInput,
  options: { /** Node options, e.g. `--max-old-space-size=160`. */ nodeArgs?: string[] } = {},
): Promise<GatewayProcess> {
  const dir = mkdtempSync(join(tmpdir(), "afw-reliability-"));
  const file = join(dir, "afw.json");
  writeFileSync(file, JSON.stringify(config, null, 2));
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), gatewayCliPath(), "serve", "--http", "--config", file, "--port", "0"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  void exited.then(() => rmSync(dir, { recursive: true, force: true }));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start within ${START_TIMEOUT_MS} ms:\n${stderr}`)), START_TIMEOUT_MS);
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      stderr += chunk;
      if (stderr.length > 4_000_000) stderr = stderr.slice(-2_000_000);
      const match = /serving MCP on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code} before listening:\n${stderr}`));
    });
  });
  const origin = new URL(url).origin;
  const waitExit = async (signal: NodeJS.Signals, graceMs: number) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return {
    url,
    origin,
    child,
    stderr: () => stderr,
    rssBytes() {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
      return kb === undefined ? 0 : Number(kb) * 1024;
    },
    async metric(name) {
      const text = await (await fetch(`${origin}/metrics`)).text();
      const line = text.split("\n").find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
      return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
    },
    kill: () => waitExit("SIGKILL", 0),
    stop: () => waitExit("SIGTERM", 5_000),
  };
}
