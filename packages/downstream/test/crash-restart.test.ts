// Crashing servers: restart with backoff, fail-fast while unavailable, retries across a crash, giving up.
import { afterAll, describe, expect, it } from "vitest";
import { createManagerTracker, firstText, isAlive, recordingTrace, rejectionOf, stdioFixture, waitForStatus } from "./helpers.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolsChangedEvent } from "../src/index.js";

const { create, statusOf, stopAll } = createManagerTracker();
afterAll(stopAll);

describe("a crashing server", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "afw-downstream-"));
  afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

  it("is restarted with backoff while the other servers keep serving", async () => {
    const trace = recordingTrace();
    const manager = create(
      {
        servers: [stdioFixture("crashy"), stdioFixture("steady")],
        // long enough that the assertions below run while it is still backing off, even on a loaded machine
        restartBackoff: { initialDelayMs: 1_000, maxDelayMs: 5_000 },
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
    expect(Date.parse(crashed.nextRestartAt!) - Date.parse(crashed.lastErrorAt!)).toBe(1_000);
    expect(trace.ofType("downstream-disconnected").at(-1)).toMatchObject({ server: "crashy", reason: "crash" });

    // its tools are marked unavailable; a change event says so
    expect(manager.getTool("crashy__echo")?.available).toBe(false);
    expect(manager.listTools({ availableOnly: true }).some((t) => t.server === "crashy")).toBe(false);
    const failed = changes.find((c) => c.server === "crashy" && c.reason === "failed");
    expect(failed?.updated).toContain("crashy__echo");

    // a call that is not safe to repeat fails fast meanwhile, saying that and when the server restarts
    const fast = await rejectionOf(manager.callTool("crashy__add", { a: 1, b: 2 }));
    expect(fast.code).toBe("SERVER_CONNECTION_FAILED");
    expect(fast.details).toMatchObject({ server: "crashy", state: "backing-off", retryInMs: expect.any(Number) });
    expect(fast.message).toMatch(/restarting after a failure \(next attempt in \d+ ms\)/);
    // so does a read-only call whose budget ends before the restart is due
    const short = await rejectionOf(manager.callTool("crashy__echo", { text: "x" }, { timeoutMs: 50 }));
    expect(short.details).toMatchObject({ server: "crashy", state: "backing-off", retryInMs: expect.any(Number) });
    // the other server is unaffected
    expect(firstText(await manager.callTool("steady__echo", { text: "ok" }))).toBe("steady: ok");

    // a read-only call whose budget covers the restart waits for it instead of failing
    expect(firstText(await manager.callTool("crashy__echo", { text: "waited" }, { timeoutMs: 10_000 }))).toBe("crashy: waited");
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
    expect(Date.parse(again.nextRestartAt!) - Date.parse(again.lastErrorAt!)).toBe(2_000);
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
        restartBackoff: { initialDelayMs: 100, maxDelayMs: 1_000 },
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
        restartBackoff: { initialDelayMs: 20, maxDelayMs: 100 },
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
