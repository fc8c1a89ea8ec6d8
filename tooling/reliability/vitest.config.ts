import { defineConfig } from "vitest/config";

// The suites start real gateways, backends and Redis servers and measure them: one file at a
// time, so the figures of one suite are not skewed by another running beside it.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    fileParallelism: false,
    // Bounds against hangs, not performance checks: starting three gateway processes and warming
    // them took over 60 s on a 2-core machine with a CPU hog beside the run.
    testTimeout: 300_000,
    hookTimeout: 240_000,
  },
});
