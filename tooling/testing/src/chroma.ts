import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { processListensOn } from "./listening.js";
import { freePort } from "./redis.js";

/** A Chroma server started by a test. */
export interface ChromaServerHandle {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** The port it listens on (loopback only). */
  readonly port: number;
  /** Stops the server (SIGTERM, then SIGKILL if it lingers) and deletes its data directory. */
  stop(): Promise<void>;
}

/**
 * The `chroma` CLI script of the `chromadb` npm package (`dist/cli.mjs`), resolved from this
 * package's dependencies.
 *
 * @throws Error when the chromadb package is not installed.
 */
export function chromaCliPath(): string {
  const require = createRequire(import.meta.url);
  // chromadb's exports map hides package.json: walk up from its entry point to the package root
  let dir = dirname(require.resolve("chromadb"));
  while (!existsSync(join(dir, "package.json")) || !existsSync(join(dir, "dist", "cli.mjs"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("chromadb package root not found");
    dir = parent;
  }
  return join(dir, "dist", "cli.mjs");
}

async function heartbeat(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/api/v2/heartbeat`, { signal: AbortSignal.timeout(500) });
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Starts a real Chroma server from the `chromadb` npm package (`chroma run --path <tmpdir> --host
 * 127.0.0.1 --port <free port>`), waits until its heartbeat answers, and returns its URL and a
 * `stop()`. Nothing is downloaded: the server is the native binding shipped in npm. Tests must
 * create collections with `embeddingFunction: null` and pass embeddings themselves.
 *
 * @example
 * ```ts
 * const chroma = await startChroma();
 * try { ... new ChromaClient({ host: "127.0.0.1", port: chroma.port }) ... } finally { await chroma.stop(); }
 * ```
 * @throws Error when the server does not answer within `startTimeoutMs`.
 */
export async function startChroma(options: { startTimeoutMs?: number } = {}): Promise<ChromaServerHandle> {
  const startTimeoutMs = options.startTimeoutMs ?? 20_000;
  const cli = chromaCliPath();
  const deadline = Date.now() + startTimeoutMs;
  let lastError = "";
  // A free port can be taken by another test process between freePort() and the bind: the child
  // then exits (or, worse, another server answers the heartbeat). Only a heartbeat served by this
  // child counts; a lost race is retried on another port.
  for (let attempt = 0; attempt < 5 && Date.now() < deadline; attempt++) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "afw-chroma-"));
    const url = `http://127.0.0.1:${port}`;
    const child: ChildProcess = spawn(process.execPath, [cli, "run", "--path", dir, "--host", "127.0.0.1", "--port", String(port)], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ANONYMIZED_TELEMETRY: "False" },
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    };
    while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
      if (await heartbeat(url)) {
        const ours = child.pid === undefined ? undefined : processListensOn(child.pid, port);
        if (ours !== false) return { url, port, stop };
        break; // another process serves this port
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    lastError = `chroma did not start on ${url}${stderr ? `: ${stderr.trim()}` : ""}`;
    await stop();
  }
  throw new Error(lastError || "chroma did not start");
}
