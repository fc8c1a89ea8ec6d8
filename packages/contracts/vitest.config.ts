import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // Setup that starts Redis, Chroma, a browser or a server waits on a loaded machine too.
    hookTimeout: 60_000,
    typecheck: { enabled: true, include: ["src/**/*.test-d.ts"] },
  },
});
