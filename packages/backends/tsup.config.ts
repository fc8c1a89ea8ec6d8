import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    flowise: "src/flowise.ts",
    langflow: "src/langflow.ts",
    test: "src/test.ts",
    "test-servers": "src/test-servers.ts",
  },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  external: ["vitest"],
});
