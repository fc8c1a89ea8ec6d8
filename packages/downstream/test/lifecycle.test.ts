// Cold servers, crashes, hangs, floods, HTTP outages and shutdown.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { createDownstreamManager, type DownstreamManager, type DownstreamManagerOptions, type ToolsChangedEvent } from "../src/index.js";
import type { DownstreamConfigInput } from "../src/index.js";
import { startHttpFixture, type HttpFixture } from "./http-fixture.js";
import { firstText, isAlive, recordingTrace, rejectionOf, stdioFixture, waitForStatus } from "./helpers.js";

const managers: DownstreamManager[] = [];
const seenPids = new Set<number>();

function track(manager: DownstreamManager): DownstreamManager {
  managers.push(manager);
  manager.onStatusChanged((status) => {
    if (status.pid !== undefined) seenPids.add(status.pid);
  });
  return manager;
}

function create(config: DownstreamConfigInput, options: DownstreamManagerOptions = {}): DownstreamManager {
  return track(createDownstreamManager(config, options));
}

const statusOf = (manager: DownstreamManager, name: string) => manager.status().find((s) => s.name === name)!;

afterAll(async () => {
  await Promise.all(managers.map((manager) => manager.stop()));
  // no child process may outlive the tests
  for (const pid of seenPids) expect(isAlive(pid), `pid ${pid}`).toBe(false);
});

describe("a cold server", () => {
  it("is discovered at start, connected on first use and disconnected after idle", async () => {
    const trace = recordingTrace();
    const manager = create({ servers: [stdioFixture("lazy", { mode: "cold", idleTimeoutMs: 150 })] }, { trace });
    await manager.start();
    // discovery: connected once to learn the tools, then disconnected
    const afterStart = statusOf(manager, "lazy");
    expect(afterStart).toMatchObject({ state: "idle", toolsKnown: true, available: true });
    expect(afterStart.pid).toBeUndefined();
    expect(afterStart.toolCount).toBeGreaterThan(5);
    expect(trace.ofType("downstream-disconnected").map((e) => e.reason)).toEqual(["idle"]);
    expect(manager.getTool("lazy__echo")?.available).toBe(true);

    const result = await manager.callTool("lazy__pid", {});
    const pid = Number(firstText(result));
    expect(isAlive(pid)).toBe(true);
    expect(statusOf(manager, "lazy")).toMatchObject({ state: "connected", pid });
    expect(trace.ofType("downstream-connected")).toHaveLength(2);

    // a call longer than the idle timeout keeps it connected
    expect(firstText(await manager.callTool("lazy__sleep", { ms: 400 }))).toBe("slept 400");
    expect(trace.ofType("downstream-disconnected")).toHaveLength(1);
    expect(statusOf(manager, "lazy").pid).toBe(pid);

    await waitForStatus(manager, "lazy", (s) => s.state === "idle");
    expect(isAlive(pid)).toBe(false);
    expect(trace.ofType("downstream-disconnected").map((e) => e.reason)).toEqual(["idle", "idle"]);
    expect(statusOf(manager, "lazy").restarts).toBe(0);

    // and again on the next use
    expect(firstText(await manager.callTool("lazy__echo", { text: "again" }))).toBe("lazy: again");
  });

  it("uses the injected clock for its idle timer", async () => {
    let now = Date.parse("2030-01-01T00:00:00Z");
    const timers = new Set<{ at: number; callback: () => void }>();
    const clock = {
      now: () => now,
      setTimeout(callback: () => void, delayMs: number) {
        const timer = { at: now + delayMs, callback };
        timers.add(timer);
        return timer;
      },
      clearTimeout(handle: unknown) {
        timers.delete(handle as { at: number; callback: () => void });
      },
    };
    const advance = (ms: number) => {
      now += ms;
      for (const timer of [...timers]) {
        if (timer.at <= now) {
          timers.delete(timer);
          timer.callback();
        }
      }
    };
    const manager = create({ servers: [stdioFixture("clocked", { mode: "cold", idleTimeoutMs: 1_000 })], discoverColdServers: false }, { clock });
    await manager.callTool("clocked__echo", { text: "tick" });
    expect(statusOf(manager, "clocked")).toMatchObject({ state: "connected", connectedSince: "2030-01-01T00:00:00.000Z" });
    advance(999);
    expect(statusOf(manager, "clocked").state).toBe("connected");
    advance(1);
    await waitForStatus(manager, "clocked", (s) => s.state === "idle");
  });

  it("without discovery has unknown tools until its first use", async () => {
    const manager = create({ servers: [stdioFixture("unseen", { mode: "cold", idleTimeoutMs: 60_000 })], discoverColdServers: false });
    const changes: ToolsChangedEvent[] = [];
    manager.onToolsChanged((e) => changes.push(e));
    await manager.start();
    expect(statusOf(manager, "unseen")).toMatchObject({ state: "idle", toolsKnown: false, toolCount: 0 });
    expect(manager.listTools()).toEqual([]);
    expect(firstText(await manager.callTool("unseen__echo", { text: "x" }))).toBe("unseen: x");
    expect(manager.listTools().length).toBeGreaterThan(5);
    expect(changes.map((c) => c.reason)).toEqual(["connected"]);
    expect((await rejectionOf(manager.callTool("unseen__nothing", {}))).code).toBe("TOOL_NOT_FOUND");
  });
});

describe("a crashing server", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "afw-downstream-"));
  afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

  it("is restarted with backoff while the other servers keep serving", async () => {
    const trace = recordingTrace();
    const manager = create(
      {
        servers: [stdioFixture("crashy"), stdioFixture("steady")],
        restartBackoff: { initialDelayMs: 250, maxDelayMs: 5_000, multiplier: 2, jitter: 0 },
      },
      { trace },
    );
    const changes: ToolsChangedEvent[] = [];
    manager.onToolsChanged((e) => changes.push(e));
    await manager.start();
    const firstPid = statusOf(manager, "crashy").pid!;

    const crash = await rejectionOf(manager.callTool("crashy__crash", { code: 7 }));
    expect(crash.code).toBe("SERVER_CONNECTION_FAILED");
    const crashed = statusOf(manager, "crashy");
    expect(crashed).toMatchObject({ state: "backing-off", available: false, consecutiveFailures: 1, restarts: 0 });
    expect(crashed.lastError).toContain("crash requested, exiting with 7");
    expect(Date.parse(crashed.nextRestartAt!) - Date.parse(crashed.lastErrorAt!)).toBe(250);
    expect(trace.ofType("downstream-disconnected").at(-1)).toMatchObject({ server: "crashy", reason: "crash" });

    // its tools are marked unavailable; a change event says so
    expect(manager.getTool("crashy__echo")?.available).toBe(false);
    expect(manager.listTools({ availableOnly: true }).some((t) => t.server === "crashy")).toBe(false);
    const failed = changes.find((c) => c.server === "crashy" && c.reason === "failed");
    expect(failed?.updated).toContain("crashy__echo");

    // calls fail fast meanwhile; the other server is unaffected
    const fast = await rejectionOf(manager.callTool("crashy__echo", { text: "x" }));
    expect(fast.code).toBe("SERVER_CONNECTION_FAILED");
    expect(fast.details).toMatchObject({ server: "crashy", state: "backing-off" });
    expect(firstText(await manager.callTool("steady__echo", { text: "ok" }))).toBe("steady: ok");

    const restarted = await waitForStatus(manager, "crashy", (s) => s.state === "connected");
    expect(restarted.restarts).toBe(1);
    expect(restarted.pid).not.toBe(firstPid);
    expect(isAlive(firstPid)).toBe(false);
    expect(manager.getTool("crashy__echo")?.available).toBe(true);
    expect(changes.filter((c) => c.server === "crashy").map((c) => c.reason)).toEqual(["connected", "failed", "connected"]);
    expect(firstText(await manager.callTool("crashy__echo", { text: "back" }))).toBe("crashy: back");

    // a second crash right away backs off twice as long
    await rejectionOf(manager.callTool("crashy__crash", { code: 1 }));
    const again = statusOf(manager, "crashy");
    expect(again.consecutiveFailures).toBe(2);
    expect(Date.parse(again.nextRestartAt!) - Date.parse(again.lastErrorAt!)).toBe(500);
    expect(statusOf(manager, "steady")).toMatchObject({ state: "connected", restarts: 0 });
    // stop() cancels the pending restart
    await manager.stop();
    expect(statusOf(manager, "crashy")).toMatchObject({ state: "stopped", restarts: 1 });
  });

  it("retries a read-only call across a crash once the server is back", async () => {
    const trace = recordingTrace();
    const manager = create(
      {
        servers: [stdioFixture("flaky", {}, { FIXTURE_STATE_DIR: stateDir })],
        restartBackoff: { initialDelayMs: 100, maxDelayMs: 1_000, multiplier: 2, jitter: 0 },
      },
      { trace },
    );
    await manager.start();
    const result = await manager.callTool("flaky__flaky_read", {});
    expect(firstText(result)).toMatch(/^flaky ok from \d+$/);
    const ends = trace.ofType("tool-call-end");
    expect(ends.map((e) => [e.attempt, e.outcome, e.errorCode])).toEqual([
      [1, "error", "SERVER_CONNECTION_FAILED"],
      [2, "success", undefined],
    ]);
    expect(statusOf(manager, "flaky").restarts).toBe(1);
  });

  it("is given up as crashed after maxRestarts failed restarts, with the reason from its stderr and secrets redacted", async () => {
    const secret = "tok_9f8e7d6c5b4a3210";
    const trace = recordingTrace();
    const manager = create(
      {
        servers: [stdioFixture("broken", {}, { FIXTURE_EXIT_ON_START: "2", FIXTURE_SECRET: secret }), stdioFixture("fine")],
        restartBackoff: { initialDelayMs: 20, maxDelayMs: 100, multiplier: 2, jitter: 0 },
        maxRestarts: 1,
      },
      { trace },
    );
    await manager.start();
    expect(statusOf(manager, "fine").state).toBe("connected");
    const status = await waitForStatus(manager, "broken", (s) => s.state === "crashed");
    expect(status).toMatchObject({ restarts: 1, consecutiveFailures: 2, available: false, toolsKnown: false });
    expect(status.lastError).toContain("cannot start (missing configuration)");
    expect(status.lastError).toContain("[REDACTED]");
    expect(status.lastError).not.toContain(secret);
    expect(status.stderrTail).not.toContain(secret);
    const error = await rejectionOf(manager.callTool("broken__echo", {}));
    expect(error.code).toBe("SERVER_CONNECTION_FAILED");
    expect(error.message).not.toContain(secret);
    expect(JSON.stringify(trace.events)).not.toContain(secret);
  });

  it("reports a command that cannot be spawned", async () => {
    const manager = create({
      servers: [{ name: "ghost", transport: "stdio", command: join(stateDir, "no-such-binary") }],
      maxRestarts: 0,
    });
    await manager.start();
    const status = statusOf(manager, "ghost");
    expect(status.state).toBe("crashed");
    expect(status.lastError).toMatch(/ENOENT/);
  });
});

describe("a hanging server", () => {
  it("is killed and restarted when a timed-out call is followed by a failed ping", async () => {
    const trace = recordingTrace();
    const manager = create(
      {
        servers: [stdioFixture("frozen", { pingTimeoutMs: 200 })],
        restartBackoff: { initialDelayMs: 50, maxDelayMs: 1_000, multiplier: 2, jitter: 0 },
      },
      { trace },
    );
    await manager.start();
    const pid = statusOf(manager, "frozen").pid!;
    const error = await rejectionOf(manager.callTool("frozen__freeze", { ms: 20_000 }, { timeoutMs: 200 }));
    expect(error.code).toBe("TOOL_EXECUTION_FAILED");
    const restarted = await waitForStatus(manager, "frozen", (s) => s.state === "connected" && s.restarts === 1);
    expect(restarted.lastError).toContain("health ping failed");
    expect(isAlive(pid)).toBe(false);
    expect(trace.ofType("downstream-disconnected").map((e) => e.reason)).toEqual(["error"]);
    expect(firstText(await manager.callTool("frozen__echo", { text: "thawed" }))).toBe("frozen: thawed");
  });

  it("is detected by the periodic health ping even without a call timeout", async () => {
    const manager = create({
      servers: [stdioFixture("sleepy", { pingIntervalMs: 100, pingTimeoutMs: 150 })],
      restartBackoff: { initialDelayMs: 50, maxDelayMs: 1_000, multiplier: 2, jitter: 0 },
    });
    await manager.start();
    const error = await rejectionOf(manager.callTool("sleepy__freeze", { ms: 20_000 }, { timeoutMs: 30_000 }));
    expect(error.code).toBe("SERVER_CONNECTION_FAILED");
    await waitForStatus(manager, "sleepy", (s) => s.state === "connected" && s.restarts === 1);
  });
});

describe("a noisy server", () => {
  afterEach(() => vi.restoreAllMocks());

  it("floods stdout garbage and stderr without reaching our output or growing our memory, and is restarted on an oversized line", async () => {
    const lines = 2_000;
    const lineBytes = 200;
    let expectedStderrBytes = 0;
    for (let i = 0; i < lines; i++) expectedStderrBytes += `noise ${i} `.length + lineBytes + 1;
    let stderrSeen = 0;
    let stderrDrained!: () => void;
    const drained = new Promise<void>((resolve) => (stderrDrained = resolve));
    const written: string[] = [];
    const capture = (chunk: unknown) => {
      written.push(String(chunk));
      return true;
    };
    const manager = create(
      {
        servers: [stdioFixture("noisy", { stderrTailBytes: 1024, maxMessageBytes: 1024 * 1024 })],
        restartBackoff: { initialDelayMs: 50, maxDelayMs: 1_000, multiplier: 2, jitter: 0 },
      },
      {
        onServerStderr: (_server, chunk) => {
          stderrSeen += Buffer.byteLength(chunk);
          if (stderrSeen >= expectedStderrBytes) stderrDrained();
        },
      },
    );
    await manager.start();
    vi.spyOn(process.stdout, "write").mockImplementation(capture as never);
    vi.spyOn(process.stderr, "write").mockImplementation(capture as never);
    const result = await manager.callTool("noisy__flood", { lines, lineBytes });
    await drained;
    vi.restoreAllMocks();
    expect(firstText(result)).toBe("flooded");
    expect(written.filter((w) => w.includes("garbage") || w.includes("noise"))).toEqual([]);
    const status = statusOf(manager, "noisy");
    expect(status.state).toBe("connected");
    expect(status.transportErrors).toBeGreaterThanOrEqual(lines);
    expect(status.stderrBytes).toBe(expectedStderrBytes);
    expect(status.stderrTail.length).toBeLessThanOrEqual(1024);
    expect(status.stderrTail).toContain(`noise ${lines - 1} xxx`);
    expect(firstText(await manager.callTool("noisy__echo", { text: "calm" }))).toBe("noisy: calm");

    // A stdout line over maxMessageBytes is not buffered: the server is disconnected and restarted.
    // (The answer may still arrive before the process has exited: only the restart is certain.)
    const firstPid = status.pid!;
    await manager.callTool("noisy__flood", { lines: 1, lineBytes: 3_000_000 }).catch(() => undefined);
    const restarted = await waitForStatus(manager, "noisy", (s) => s.state === "connected" && s.restarts === 1);
    expect(restarted.lastError).toContain("ReadBuffer exceeded maximum size of 1048576 bytes");
    expect(isAlive(firstPid)).toBe(false);
    expect(firstText(await manager.callTool("noisy__echo", { text: "ok" }))).toBe("noisy: ok");
  });
});

describe("an HTTP server", () => {
  let fixture: HttpFixture | undefined;
  afterAll(async () => fixture?.close());

  it("that goes down is backed off and reconnected when it comes back", async () => {
    fixture = await startHttpFixture();
    const port = fixture.port;
    const manager = create({
      servers: [{ name: "remote", transport: "http", url: fixture.url, pingIntervalMs: 0 }],
      restartBackoff: { initialDelayMs: 50, maxDelayMs: 200, multiplier: 2, jitter: 0 },
    });
    await manager.start();
    expect(firstText(await manager.callTool("remote__lookup", { key: "alpha" }))).toBe("first letter");

    await fixture.close();
    fixture = undefined;
    const error = await rejectionOf(manager.callTool("remote__lookup", { key: "alpha" }));
    expect(error.code).toBe("SERVER_CONNECTION_FAILED");
    await waitForStatus(manager, "remote", (s) => s.state === "backing-off" && s.consecutiveFailures >= 2);
    expect(manager.getTool("remote__lookup")?.available).toBe(false);

    fixture = await startHttpFixture({ port });
    await waitForStatus(manager, "remote", (s) => s.state === "connected");
    expect(firstText(await manager.callTool("remote__lookup", { key: "omega" }))).toBe("last letter");
  });

  it("with a lost session reconnects and the read-only call succeeds on retry", async () => {
    fixture ??= await startHttpFixture();
    const manager = create({
      servers: [{ name: "session", transport: "http", url: fixture.url, pingIntervalMs: 0 }],
      restartBackoff: { initialDelayMs: 20, maxDelayMs: 200, multiplier: 2, jitter: 0 },
    });
    await manager.start();
    const port = fixture.port;
    await fixture.close();
    fixture = await startHttpFixture({ port }); // a restarted server knows no sessions
    expect(firstText(await manager.callTool("session__lookup", { key: "alpha" }))).toBe("first letter");
    expect(statusOf(manager, "session").restarts).toBe(1);
  });

  it("speaking the legacy SSE transport is listed and called", async () => {
    fixture ??= await startHttpFixture();
    const manager = create({ servers: [{ name: "legacy", transport: "http", protocol: "sse", url: fixture.sseUrl, pingIntervalMs: 0 }] });
    await manager.start();
    expect(statusOf(manager, "legacy").state).toBe("connected");
    expect(manager.listTools().map((t) => t.namespacedName)).toEqual(expect.arrayContaining(["legacy__lookup", "legacy__slow"]));
    expect(firstText(await manager.callTool("legacy__lookup", { key: "alpha" }))).toBe("first letter");
  });
});

describe("stop()", () => {
  it("closes every child process, marks tools unavailable and refuses calls", async () => {
    const trace = recordingTrace();
    const manager = create(
      { servers: [stdioFixture("one"), stdioFixture("two", { mode: "cold", idleTimeoutMs: 60_000 })], discoverColdServers: false },
      { trace },
    );
    const changes: ToolsChangedEvent[] = [];
    manager.onToolsChanged((e) => changes.push(e));
    await manager.start();
    await manager.callTool("two__echo", { text: "wake up" });
    const pids = manager.status().map((s) => s.pid!);
    expect(pids.every((pid) => isAlive(pid))).toBe(true);
    await manager.stop();
    expect(pids.some((pid) => isAlive(pid))).toBe(false);
    expect(manager.status().map((s) => s.state)).toEqual(["stopped", "stopped"]);
    expect(manager.listTools({ availableOnly: true })).toEqual([]);
    expect(changes.filter((c) => c.reason === "stopped").map((c) => c.server).sort()).toEqual(["one", "two"]);
    expect(trace.ofType("downstream-disconnected").map((e) => e.reason)).toEqual(["shutdown", "shutdown"]);
    expect((await rejectionOf(manager.callTool("one__echo", { text: "x" }))).code).toBe("SERVER_CONNECTION_FAILED");
    await manager.stop();
  });
});
