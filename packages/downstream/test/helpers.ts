import { fileURLToPath } from "node:url";
import type { TraceContext, TraceEvent } from "@afw/contracts";
import { createDownstreamManager } from "../src/index.js";
import type { DownstreamConfigInput, DownstreamManager, DownstreamManagerOptions, DownstreamServerConfigInput, DownstreamServerStatus } from "../src/index.js";

/** The stdio fixture server script. */
export const STDIO_FIXTURE = fileURLToPath(new URL("./fixtures/stdio-server.mjs", import.meta.url));

/** Config of a stdio fixture server named `name`. */
export function stdioFixture(name: string, settings: Partial<DownstreamServerConfigInput> = {}, env: Record<string, string> = {}): DownstreamServerConfigInput {
  return {
    name,
    transport: "stdio",
    command: process.execPath,
    args: [STDIO_FIXTURE],
    env: { FIXTURE_NAME: name, ...env },
    pingIntervalMs: 0,
    ...settings,
  } as DownstreamServerConfigInput;
}

/** A trace context that records every event. */
export function recordingTrace(): TraceContext & { events: TraceEvent[]; ofType<T extends TraceEvent["type"]>(type: T): Extract<TraceEvent, { type: T }>[] } {
  const events: TraceEvent[] = [];
  return {
    traceId: "trace-test",
    requestId: "request-test",
    sink: { emit: (event) => events.push(event) },
    events,
    ofType: (type) => events.filter((event) => event.type === type) as never,
  };
}

/**
 * Resolves with the server's status once `predicate` holds (checked now and on every status
 * change). Rejects after `limitMs` so a broken test fails instead of hanging.
 */
export function waitForStatus(
  manager: DownstreamManager,
  server: string,
  predicate: (status: DownstreamServerStatus) => boolean,
  limitMs = 15_000,
): Promise<DownstreamServerStatus> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const status = manager.status().find((s) => s.name === server);
      if (status && predicate(status)) {
        cleanup();
        resolve(status);
      }
    };
    const unsubscribe = manager.onStatusChanged(() => check());
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`timed out waiting for server "${server}"; status: ${JSON.stringify(manager.status().find((s) => s.name === server))}`));
    }, limitMs);
    const cleanup = () => {
      clearTimeout(timer);
      unsubscribe();
    };
    check();
  });
}

/** Whether a process with this pid is alive. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Text of the first content block of a tool result. */
export function firstText(result: { content?: unknown }): string {
  const content = result.content as Array<{ type: string; text?: string }> | undefined;
  return content?.[0]?.text ?? "";
}

/** Resolves with the error a promise rejects with (fails if it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error & { code?: string; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error("expected the promise to reject");
}

/**
 * Creates managers that are all stopped by `stopAll`, which also checks that no child process
 * any of them started is still alive.
 */
export function createManagerTracker() {
  const managers: DownstreamManager[] = [];
  const seenPids = new Set<number>();
  return {
    create(config: DownstreamConfigInput, options: DownstreamManagerOptions = {}): DownstreamManager {
      // No backoff jitter: restart delays are exactly the configured ones.
      const manager = createDownstreamManager(config, { random: () => 1, ...options });
      managers.push(manager);
      manager.onStatusChanged((status) => {
        if (status.pid !== undefined) seenPids.add(status.pid);
      });
      return manager;
    },
    statusOf(manager: DownstreamManager, name: string): DownstreamServerStatus {
      const status = manager.status().find((s) => s.name === name);
      if (!status) throw new Error(`no server "${name}"`);
      return status;
    },
    async stopAll(): Promise<void> {
      await Promise.all(managers.map((manager) => manager.stop()));
      const alive = [...seenPids].filter((pid) => isAlive(pid));
      if (alive.length > 0) throw new Error(`child processes still alive: ${alive.join(", ")}`);
    },
  };
}
