import { beforeAll, describe, expect, it } from "vitest";
import { createUseEmbedder } from "./index.js";
import { dot } from "./testing/dot.js";
import { SAMPLE_SENTENCES } from "./testing/sentences.js";

const sentences = SAMPLE_SENTENCES;

describe("createUseEmbedder (real model)", { timeout: 120_000 }, () => {
  const embedder = createUseEmbedder();
  // Loading the model is seconds of CPU, far more on a loaded machine: once, under a generous bound.
  beforeAll(() => embedder.warmUp(), 240_000);

  it("gives unit vectors, the same one by one and in batches, different for different sentences", async () => {
    const batched = await embedder.embed(sentences);
    const single = await Promise.all(sentences.map(async (s) => (await embedder.embed([s]))[0]!));
    expect(batched).toHaveLength(sentences.length);
    sentences.forEach((_, i) => {
      expect(batched[i]).toHaveLength(512);
      expect(dot(batched[i]!, batched[i]!)).toBeCloseTo(1, 4);
      expect(dot(single[i]!, batched[i]!)).toBeGreaterThanOrEqual(0.999);
    });
    expect(dot(batched[0]!, batched[1]!)).toBeLessThan(0.9);
  });

  it("stops between batches when aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(createUseEmbedder().embed(["x"], controller.signal)).rejects.toThrow();
  });
});
