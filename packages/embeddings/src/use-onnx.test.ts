import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AfwError } from "@afw/contracts";
import { createStaticEmbedder, createUseEmbedder, useOnnxRuntimeInstalled } from "./index.js";
import { dot } from "./testing/dot.js";
import { createUseOnnxRunner } from "./use-onnx.js";
import { quantizeColumns } from "./use-onnx-model.js";
import { loadAutoModel } from "./use-embedder.js";

const code = "```ts\nexport async function retry<T>(run: () => Promise<T>, attempts = 3): Promise<T> {\n  for (let i = 1; ; i++) {\n    try {\n      return await run();\n    } catch (error) {\n      if (i >= attempts) throw error;\n    }\n  }\n}\n```\n";

/** Texts of every kind the runtimes must agree on: short, blank, long with code, over 128 tokens, not English. */
const TEXTS: readonly string[] = [
  "why does my build fail?",
  "hi",
  "",
  " \n\t ",
  "?",
  "Restart the Kubernetes pod that keeps crashing",
  "Write a haiku about the sea in winter",
  "SELECT id, name FROM users WHERE created_at > now() - interval '1 day';",
  `Please review this helper and suggest tests:\n${code}It is called on every request, so keep it fast.`,
  `${"Our service times out under load and the logs show nothing obvious. ".repeat(12)}${code}`,
  "antidisestablishmentarianism ".repeat(40),
  "¿Dónde está la biblioteca más cercana?",
  "Résumé des naïfs propriétaires de café à São Paulo",
  "日本語の文章を英語に翻訳してください",
  "Переведи этот текст на английский язык",
  "🚀🔥 ship it!!! 🎉",
  "1234567890 3.14159 -42 1e9",
  "tab\tseparated\tvalues\nand new lines",
  "Summarise the attached quarterly report and list the three biggest risks it mentions. ".repeat(5),
  "x".repeat(300),
];

describe("createUseEmbedder({ runtime: 'onnx' }) (real model on ONNX Runtime)", { timeout: 60_000 }, () => {
  const onnx = createUseEmbedder({ runtime: "onnx" });
  const tfjs = createUseEmbedder({ runtime: "tfjs" });
  const auto = createUseEmbedder();
  const worker = createUseEmbedder({ runtime: "onnx", thread: "worker" });
  // Loading the tfjs model is seconds of CPU, far more on a loaded machine: once, under a generous bound.
  beforeAll(() => Promise.all([onnx.warmUp(), tfjs.warmUp()]), 240_000);
  afterAll(() => worker.close());

  it("with float32 weights gives the tfjs runtime's vectors (cosine ≥ 0.9999); with int8 weights (the default) cosine ≥ 0.995, unit length, on texts of every kind", async () => {
    const tokenize = createStaticEmbedder().tokenize;
    expect(TEXTS.some((t) => tokenize(t).length > 128)).toBe(true);
    const float32 = await createUseOnnxRunner(undefined, { precision: "float32" });
    const [fromOnnx, fromFloat32, fromTfjs] = await Promise.all([onnx.embed(TEXTS), float32.embed(TEXTS), tfjs.embed(TEXTS)]);
    expect(onnx.id).toBe(tfjs.id);
    expect(fromOnnx).toHaveLength(TEXTS.length);
    TEXTS.forEach((_, i) => {
      expect(fromOnnx[i]).toHaveLength(512);
      expect(dot(fromOnnx[i]!, fromOnnx[i]!)).toBeCloseTo(1, 5);
      expect(dot(fromFloat32[i]!, fromTfjs[i]!)).toBeGreaterThanOrEqual(0.9999);
      expect(dot(fromOnnx[i]!, fromTfjs[i]!)).toBeGreaterThanOrEqual(0.995);
    });
    // the int8 weights are really in use: not the float vectors to the last bits
    expect(Math.min(...TEXTS.map((_, i) => dot(fromOnnx[i]!, fromFloat32[i]!)))).toBeLessThan(0.99999);
    expect(dot(fromOnnx[0]!, fromOnnx[6]!)).toBeLessThan(0.9);
  });

  it("gives a text the same vector in a call of 32 texts as alone (each text runs alone)", async () => {
    const batch = [...TEXTS, ...TEXTS.slice(0, 12).map((t) => `${t} (again)`)];
    expect(batch).toHaveLength(32);
    const together = await onnx.embed(batch);
    const alone = await Promise.all(batch.map(async (t) => (await onnx.embed([t]))[0]!));
    expect(together).toEqual(alone);
    expect(await onnx.embed([])).toEqual([]);
  });

  it("runs on the worker thread too, with the main thread's vectors to the bit (tfjs' differ in the last bits)", async () => {
    const texts = TEXTS.slice(0, 10);
    const [fromWorker, fromMain, fromTfjs] = await Promise.all([worker.embed(texts), onnx.embed(texts), tfjs.embed(texts)]);
    expect(fromWorker).toEqual(fromMain);
    expect(fromTfjs).not.toEqual(fromMain);
  });

  it("runtime 'auto' (the default) runs ONNX Runtime when onnxruntime-node is installed, and tfjs when the import fails", async () => {
    const texts = TEXTS.slice(0, 6);
    const [fromAuto, fromOnnx, fromTfjs] = await Promise.all([auto.embed(texts), onnx.embed(texts), tfjs.embed(texts)]);
    expect(fromAuto).toEqual(fromOnnx);
    const missing = "./no-such-onnxruntime-module.js";
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on("warning", onWarning);
    try {
      const fallback = await loadAutoModel(() => import(missing));
      expect(await fallback.embed(texts)).toEqual(fromTfjs);
    } finally {
      process.off("warning", onWarning);
    }
    // a missing optional dependency is the normal case: no warning for it
    expect(warnings.filter((w) => w.includes("ONNX Runtime unavailable"))).toEqual([]);
  });

  it("tfjs reads a 200,000-character text in linear time: the same vector as its first 4,000 characters (the graph reads 128 ids)", { timeout: 20_000 }, async () => {
    // The library's own tokenizer is quadratic (about a minute for this text); the package's gives the same ids linearly.
    const long = "Our service times out under load and the logs show nothing obvious. ".repeat(3_000).slice(0, 200_000);
    const [whole, prefix] = await tfjs.embed([long, long.slice(0, 4_000)]);
    expect(dot(whole!, prefix!)).toBeGreaterThanOrEqual(0.99999);
  });

  it("stops when aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(onnx.embed(["x"], controller.signal)).rejects.toThrow();
  });
});

describe("runtime 'onnx' without onnxruntime-node", () => {
  it("rejects with AfwError INTERNAL saying to install onnxruntime-node (no fallback)", async () => {
    const missing = "./no-such-onnxruntime-module.js";
    const error = await createUseOnnxRunner(() => import(missing)).catch((e: unknown) => e);
    expect(AfwError.isInstance(error) && error.code).toBe("INTERNAL");
    expect((error as Error).message).toMatch(/install .*onnxruntime-node/);
  });

  it("refuses an unknown runtime at once", () => {
    expect(() => createUseEmbedder({ runtime: "onxx" as "onnx" })).toThrow(RangeError);
  });
});

describe("useOnnxRuntimeInstalled", () => {
  it("says whether onnxruntime-node can be imported from this package, without loading it", async () => {
    const importable = await import("onnxruntime-node").then(
      () => true,
      () => false,
    );
    expect(useOnnxRuntimeInstalled()).toBe(importable);
    expect(useOnnxRuntimeInstalled()).toBe(importable); // memoized
  });
});

describe("quantizeColumns (int8 weights of the ONNX model's dense layers)", () => {
  it("keeps each weight within half a step of its column's scale, maps each column's largest magnitude to ±127", () => {
    // 3 x 2, row-major: column 0 spans ±2, column 1 is all zero, so it gets scale 1 and zeros
    const data = Float32Array.of(2, 0, -1, 0, 0.5, 0);
    const { values, scales } = quantizeColumns(data, 3, 2);
    expect(Array.from(scales)).toEqual([Math.fround(2 / 127), 1]);
    expect(Array.from(values)).toEqual([127, 0, -64, 0, 32, 0]);
    data.forEach((w, i) => expect(Math.abs(values[i]! * scales[i % 2]! - w)).toBeLessThanOrEqual(scales[i % 2]! / 2 + 1e-7));
    expect(() => quantizeColumns(data, 2, 2)).toThrow(/not \[2, 2\]/);
  });
});
