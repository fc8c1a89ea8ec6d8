import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Tests and beforeAll hooks spawn MCP server processes (a Node start each): on a 2-core machine
    // shared with other jobs a start can take seconds, so the bounds leave room for it.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Most of the time is spent waiting for child processes and timers, not on our CPU: run the
    // process-spawning files side by side even on a 2-core machine.
    maxWorkers: 3,
  },
});
