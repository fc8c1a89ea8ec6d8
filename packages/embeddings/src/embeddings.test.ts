import { describe, expect, it } from "vitest";
import type { Embedder } from "@afw/contracts";
import { createCachingEmbedder, createHashingEmbedder, createUseEmbedder } from "./index.js";
import { dot } from "./testing/dot.js";

describe("createHashingEmbedder", () => {
  const embedder = createHashingEmbedder({ dimensions: 128 });

  it("returns unit vectors of the configured length, deterministically", async () => {
    const [a, b] = await embedder.embed(["Restart the failing pod", "Restart the failing pod"]);
    expect(a).toHaveLength(128);
    expect(dot(a!, a!)).toBeCloseTo(1, 5);
    expect(Array.from(a!)).toEqual(Array.from(b!));
  });

  it("puts texts sharing words closer than unrelated texts", async () => {
    const [q, near, far] = await embedder.embed(["restart kubernetes pod", "restart a pod in kubernetes", "bake a chocolate cake"]);
    expect(dot(q!, near!)).toBeGreaterThan(dot(q!, far!) + 0.2);
  });

  it("maps empty text to the zero vector", async () => {
    const [v] = await embedder.embed([""]);
    expect(dot(v!, v!)).toBe(0);
  });

  it("rejects a too small dimension", () => {
    expect(() => createHashingEmbedder({ dimensions: 2 })).toThrow(RangeError);
  });
});

describe("createCachingEmbedder", () => {
  function countingEmbedder(): Embedder & { calls: string[][] } {
    const inner = createHashingEmbedder({ dimensions: 16 });
    const calls: string[][] = [];
    return {
      id: inner.id,
      dimensions: inner.dimensions,
      calls,
      embed(texts) {
        calls.push([...texts]);
        return inner.embed(texts);
      },
    };
  }

  it("embeds each distinct text once, across and within calls", async () => {
    const inner = countingEmbedder();
    const cached = createCachingEmbedder(inner);
    const first = await cached.embed(["a", "b", "a"]);
    const second = await cached.embed(["b", "c"]);
    expect(inner.calls).toEqual([["a", "b"], ["c"]]);
    expect(first[0]).toBe(first[2]);
    expect(second[0]).toBe(first[1]);
    expect(cached.stats()).toMatchObject({ hits: 2, misses: 3, size: 3 });
  });

  it("evicts the least recently used entry beyond 20,000 entries", async () => {
    const inner = countingEmbedder();
    const cached = createCachingEmbedder(inner);
    const filler = Array.from({ length: 19_998 }, (_, i) => `filler ${i}`);
    await cached.embed(["a"]);
    await cached.embed(["b"]);
    await cached.embed(filler);
    await cached.embed(["a"]); // a is now most recent
    await cached.embed(["c"]); // evicts b
    await cached.embed(["b"]);
    expect(inner.calls).toEqual([["a"], ["b"], filler, ["c"], ["b"]]);
  });

  it("does not cache failures", async () => {
    let fail = true;
    const inner: Embedder = {
      id: "flaky",
      dimensions: 2,
      async embed(texts) {
        if (fail) throw new Error("boom");
        return texts.map(() => new Float32Array([1, 0]));
      },
    };
    const cached = createCachingEmbedder(inner);
    await expect(cached.embed(["x"])).rejects.toThrow("boom");
    fail = false;
    await expect(cached.embed(["x"])).resolves.toHaveLength(1);
  });
});

describe("createUseEmbedder (real model)", () => {
  it("loads offline and ranks paraphrases above unrelated sentences", async () => {
    const embedder = createUseEmbedder();
    const [q, para, other] = await embedder.embed([
      "my program crashes with a null pointer exception",
      "the app throws a NullPointerException and dies",
      "what a lovely sunny day for a picnic",
    ]);
    expect(q).toHaveLength(512);
    expect(dot(q!, q!)).toBeCloseTo(1, 4);
    expect(dot(q!, para!)).toBeGreaterThan(dot(q!, other!) + 0.15);
  });
});
