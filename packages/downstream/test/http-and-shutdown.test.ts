// HTTP servers going down and losing sessions, the legacy SSE transport, and stop().
import { afterAll, describe, expect, it, vi } from "vitest";
import { createManagerTracker, firstText, isAlive, recordingTrace, rejectionOf, waitForStatus, stdioFixture } from "./helpers.js";
import type { ToolsChangedEvent } from "../src/index.js";
import { startHttpFixture, type HttpFixture } from "./http-fixture.js";

const { create, statusOf, stopAll } = createManagerTracker();
afterAll(stopAll);

describe("an HTTP server", () => {
  let fixture: HttpFixture | undefined;
  afterAll(async () => fixture?.close());

  it("that goes down is backed off and reconnected when it comes back", async () => {
    fixture = await startHttpFixture();
    const port = fixture.port;
    const manager = create({
      servers: [{ name: "remote", transport: "http", url: fixture.url, pingIntervalMs: 0 }],
      restartBackoff: { initialDelayMs: 50, maxDelayMs: 200 },
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
      restartBackoff: { initialDelayMs: 20, maxDelayMs: 200 },
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

  it("kills a server still connecting (never answering initialize) instead of leaving it running", async () => {
    // connectTimeoutMs far beyond the test's timeout: stop() must not wait for it
    const manager = create({ servers: [stdioFixture("mute", { connectTimeoutMs: 600_000 }, { FIXTURE_NEVER_INITIALIZE: "1" })] });
    const starting = manager.start();
    const pid = await vi.waitFor(
      () => {
        const spawned = statusOf(manager, "mute").pid;
        if (spawned === undefined) throw new Error("not spawned yet");
        return spawned;
      },
      { timeout: 15_000, interval: 20 },
    );
    expect(statusOf(manager, "mute").state).toBe("connecting");
    expect(isAlive(pid)).toBe(true);
    await manager.stop();
    await starting;
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
    expect(statusOf(manager, "mute").state).toBe("stopped");
  });
});
