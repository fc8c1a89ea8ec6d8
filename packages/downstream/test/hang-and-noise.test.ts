// Hanging servers (killed after a failed ping) and noisy ones (stdout garbage, stderr floods, oversized lines).
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { createManagerTracker, firstText, isAlive, recordingTrace, rejectionOf, stdioFixture, waitForStatus } from "./helpers.js";

const { create, statusOf, stopAll } = createManagerTracker();
afterAll(stopAll);

describe("a hanging server", () => {
  it("is killed and restarted when a timed-out call is followed by a failed ping", async () => {
    const trace = recordingTrace();
    const manager = create(
      {
        servers: [stdioFixture("frozen", { pingTimeoutMs: 200 })],
        restartBackoff: { initialDelayMs: 50, maxDelayMs: 1_000 },
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
      servers: [stdioFixture("sleepy", { pingIntervalMs: 100, pingTimeoutMs: 300 })],
      restartBackoff: { initialDelayMs: 50, maxDelayMs: 1_000 },
    });
    await manager.start();
    const error = await rejectionOf(manager.callTool("sleepy__freeze", { ms: 20_000 }, { timeoutMs: 30_000 }));
    expect(error.code).toBe("SERVER_CONNECTION_FAILED");
    const restarted = await waitForStatus(manager, "sleepy", (s) => s.state === "connected" && s.restarts >= 1);
    expect(restarted.lastError).toContain("health ping failed");
  });
});

describe("a noisy server", () => {
  afterEach(() => vi.restoreAllMocks());

  it("floods stdout garbage and stderr without reaching our output or growing our memory, and is restarted on an oversized line", async () => {
    const lines = 2_000;
    const lineBytes = 200;
    let expectedStderrBytes = 0;
    for (let i = 0; i < lines; i++) expectedStderrBytes += `noise ${i} `.length + lineBytes + 1;
    const written: string[] = [];
    const capture = (chunk: unknown) => {
      written.push(String(chunk));
      return true;
    };
    const manager = create(
      {
        servers: [stdioFixture("noisy", { stderrTailBytes: 1024, maxMessageBytes: 1024 * 1024 })],
        restartBackoff: { initialDelayMs: 50, maxDelayMs: 1_000 },
      },
    );
    await manager.start();
    vi.spyOn(process.stdout, "write").mockImplementation(capture as never);
    vi.spyOn(process.stderr, "write").mockImplementation(capture as never);
    const result = await manager.callTool("noisy__flood", { lines, lineBytes });
    await vi.waitFor(() => expect(statusOf(manager, "noisy").stderrBytes).toBeGreaterThanOrEqual(expectedStderrBytes), { timeout: 15_000, interval: 20 });
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

    // A stdout line over maxMessageBytes is not buffered: the server is disconnected and restarted,
    // and the call fails, although the server framed its answer correctly after the oversized line.
    const firstPid = status.pid!;
    const oversized = await rejectionOf(manager.callTool("noisy__flood", { lines: 1, lineBytes: 3_000_000 }));
    expect(oversized.code).toBe("SERVER_CONNECTION_FAILED");
    const restarted = await waitForStatus(manager, "noisy", (s) => s.state === "connected" && s.restarts === 1);
    expect(restarted.lastError).toContain("ReadBuffer exceeded maximum size of 1048576 bytes");
    expect(isAlive(firstPid)).toBe(false);
    expect(firstText(await manager.callTool("noisy__echo", { text: "ok" }))).toBe("noisy: ok");
  });
});
