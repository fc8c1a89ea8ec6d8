import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 20_000,
    // beforeAll hooks spawn several MCP server processes; give them room on a loaded machine.
    hookTimeout: 30_000,
    // Most of the time is spent waiting for child processes and timers, not on our CPU: run the
    // process-spawning files side by side even on a 2-core machine.
    maxWorkers: 3,
  },
});
