import { defineConfig } from "vitest/config";

// The suites start real gateways, backends and Redis servers and measure them: one file at a
// time, so the figures of one suite are not skewed by another running beside it.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
