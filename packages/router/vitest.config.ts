import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 20_000,
    // Some suites train a classifier at first use in their setup: seconds on a quiet machine, far
    // more beside other CPU-heavy jobs (a 10 s hook timeout failed at load average 20).
    hookTimeout: 120_000,
  },
});
