import { describe, expect, it } from "vitest";
import { startRedisServer } from "./redis.js";

describe("startRedisServer", () => {
  it("disposes of a server that was killed (stop after a SIGKILL does not wait for an exit that already happened)", { timeout: 30_000 }, async () => {
    const server = await startRedisServer();
    await server.stop({ kill: true });
    // Before the fix this never settled: the killed child has a signalCode but no exitCode.
    const settled = await Promise.race([server.dispose().then(() => "disposed"), new Promise((resolve) => setTimeout(resolve, 10_000, "hung").unref())]);
    expect(settled).toBe("disposed");
  });
});
