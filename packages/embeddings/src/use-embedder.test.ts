import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AfwError } from "@afw/contracts";
import { createUseEmbedder } from "./index.js";
import { dot } from "./normalize.js";

const sentences = [
  "my program crashes with a null pointer exception",
  "Write me a short poem about autumn leaves 🍂",
  "¿Dónde está la biblioteca más cercana?",
  "Wie kann ich die Tabelle nach Monat gruppieren?",
  "",
  "ok",
  "Summarise the attached quarterly report and list the three biggest risks it mentions, with page numbers. ".repeat(6),
];

describe("createUseEmbedder engines (real model)", () => {
  it("runs the direct engine on the WebAssembly backend by default", async () => {
    const info = await createUseEmbedder().runtime();
    expect(info.engine).toBe("direct");
    expect(info.tfBackend).toBe("wasm");
    expect(info.fallbackReason).toBeUndefined();
  });

  it("gives the graph model's vectors (cosine >= 0.999), one by one and in batches", async () => {
    const direct = createUseEmbedder({ engine: "direct" });
    const graph = createUseEmbedder({ engine: "graph-model" });
    const [batched, reference] = await Promise.all([direct.embed(sentences), graph.embed(sentences)]);
    const single = await Promise.all(sentences.map(async (s) => (await direct.embed([s]))[0]!));
    sentences.forEach((_, i) => {
      expect(dot(batched[i]!, reference[i]!)).toBeGreaterThanOrEqual(0.999);
      expect(dot(single[i]!, reference[i]!)).toBeGreaterThanOrEqual(0.999);
      expect(dot(batched[i]!, batched[i]!)).toBeCloseTo(1, 4);
    });
    // Different sentences stay different.
    expect(dot(batched[0]!, batched[1]!)).toBeLessThan(0.9);
  });

  it("falls back to the graph model when the direct runner cannot load, and says why", async () => {
    const embedder = createUseEmbedder({ modelDirectory: mkdtempSync(join(tmpdir(), "afw-no-model-")) });
    const info = await embedder.runtime();
    expect(info.engine).toBe("graph-model");
    expect(info.fallbackReason).toMatch(/model\.json/);
    const [v] = await embedder.embed(["still works"]);
    expect(dot(v!, v!)).toBeCloseTo(1, 4);
  });

  it("rejects with AfwError INTERNAL when the direct engine is forced and cannot load", async () => {
    const embedder = createUseEmbedder({ engine: "direct", modelDirectory: join(tmpdir(), "afw-missing-model-dir") });
    const error = await embedder.embed(["x"]).catch((e: unknown) => e);
    expect(AfwError.isInstance(error)).toBe(true);
    expect((error as AfwError).code).toBe("INTERNAL");
  });
});
