import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { processListensOn } from "./listening.js";
import { freePort } from "./redis.js";

describe("processListensOn", () => {
  it("is true for a port this process listens on and false once it stops", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    expect(processListensOn(process.pid, port)).toBe(true);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(processListensOn(process.pid, port)).toBe(false);
  });

  it("is false for a port another process listens on", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ["-e", `require("node:net").createServer().listen(${port}, "127.0.0.1", () => console.log("up"))`], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout!.once("data", () => resolve());
        child.once("exit", (code) => reject(new Error(`child exited with ${code}`)));
      });
      expect(processListensOn(child.pid!, port)).toBe(true);
      expect(processListensOn(process.pid, port)).toBe(false);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
