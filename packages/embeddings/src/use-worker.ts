/**
 * Worker-thread side of `createUseEmbedder({ thread: "worker" })`: `{ id, texts? }` in,
 * `{ id, vectors }` or `{ id, error }` out (vectors transferred; without `texts` it only loads the model).
 *
 * @internal Built as `dist/use-worker.js`; not exported from the package.
 */
import { parentPort } from "node:worker_threads";
import { createUseEmbedder } from "./use-embedder.js";

const embedder = createUseEmbedder();

parentPort?.on("message", ({ id, texts }: { id: number; texts?: string[] }) => {
  (texts ? embedder.embed(texts) : embedder.warmUp().then(() => [])).then(
    (vectors) => parentPort!.postMessage({ id, vectors }, vectors.map((v) => v.buffer as ArrayBuffer)),
    (error: unknown) => parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) }),
  );
});
