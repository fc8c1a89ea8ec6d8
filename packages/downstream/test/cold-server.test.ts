// Cold servers: discovery, connection on first use, idle disconnect.
import { afterAll, describe, expect, it } from "vitest";
import { createManagerTracker, firstText, isAlive, recordingTrace, rejectionOf, stdioFixture, waitForStatus } from "./helpers.js";
import type { ToolsChangedEvent } from "../src/index.js";

const { create, statusOf, stopAll } = createManagerTracker();
afterAll(stopAll);

describe("a cold server", () => {
  it("is discovered at start, connected on first use and disconnected after idle", async () => {
    const trace = recordingTrace();
    const manager = create({ servers: [stdioFixture("lazy", { mode: "cold", idleTimeoutMs: 500 })] }, { trace });
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
    expect(firstText(await manager.callTool("lazy__sleep", { ms: 700 }))).toBe("slept 700");
    expect(trace.ofType("downstream-disconnected")).toHaveLength(1);
    expect(statusOf(manager, "lazy").pid).toBe(pid);

    await waitForStatus(manager, "lazy", (s) => s.state === "idle");
    expect(isAlive(pid)).toBe(false);
    expect(trace.ofType("downstream-disconnected").map((e) => e.reason)).toEqual(["idle", "idle"]);
    expect(statusOf(manager, "lazy").restarts).toBe(0);

    // and again on the next use; concurrent first calls share one connection
    const [echo, sum] = await Promise.all([manager.callTool("lazy__echo", { text: "again" }), manager.callTool("lazy__add", { a: 1, b: 2 })]);
    expect(firstText(echo)).toBe("lazy: again");
    expect(sum.structuredContent).toEqual({ sum: 3 });
    expect(trace.ofType("downstream-connected")).toHaveLength(3);
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
