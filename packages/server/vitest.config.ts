import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Tests that use the hashing classifier embedder train the intent model at first use (several
    // seconds of CPU per test file, more on a busy 2-core machine); the bounds leave room for it.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
