/**
 * Worker-thread side of `createUseEmbedder({ thread: "worker" })`: `{ id, texts?, runtime }` in,
 * `{ id, vectors }` or `{ id, error }` out (vectors transferred; without `texts` it only loads the model). `runtime`
 * picks the model (`auto`, `tfjs` or `onnx`, each loaded on its first request).
 *
 * @internal Built as `dist/use-worker.js`; not exported from the package.
 */
import { parentPort } from "node:worker_threads";
import { createUseEmbedder, type UseRuntime } from "./use-embedder.js";

const embedders = { auto: createUseEmbedder({ runtime: "auto" }), tfjs: createUseEmbedder({ runtime: "tfjs" }), onnx: createUseEmbedder({ runtime: "onnx" }) };

parentPort?.on("message", ({ id, texts, runtime }: { id: number; texts?: string[]; runtime: UseRuntime }) => {
  const embedder = embedders[runtime];
  (texts ? embedder.embed(texts) : embedder.warmUp().then(() => [])).then(
    (vectors) => parentPort!.postMessage({ id, vectors }, vectors.map((v) => v.buffer as ArrayBuffer)),
    (error: unknown) => parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) }),
  );
});
