import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 20_000,
    // Setup that starts Redis, Chroma, a browser or a server waits on a loaded machine too.
    hookTimeout: 60_000,
  },
});
