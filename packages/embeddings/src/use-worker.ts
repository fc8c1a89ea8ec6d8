/**
 * Worker-thread side of `createUseEmbedder({ thread: "worker" })`: runs the Universal Sentence
 * Encoder on its own thread so embedding never blocks the event loop of the process that asks.
 * Messages: `{ id, texts, options }` in, `{ id, vectors }` or `{ id, error }` out (without `texts`: `{ id, runtime }`) (vectors are
 * transferred, not copied).
 *
 * @internal Built as `dist/use-worker.js`; not exported from the package.
 */
import { parentPort } from "node:worker_threads";
import { createUseEmbedder, type UseEmbedder, type UseEmbedderOptions } from "./use-embedder.js";

interface EmbedRequest {
  id: number;
  /** Texts to embed; absent: report the runtime instead. */
  texts?: string[];
  options: Pick<UseEmbedderOptions, "batchSize" | "engine" | "modelDirectory">;
}

const embedders = new Map<string, UseEmbedder>();

parentPort?.on("message", (request: EmbedRequest) => {
  const key = JSON.stringify(request.options);
  let embedder = embedders.get(key);
  if (!embedder) {
    embedder = createUseEmbedder({ ...request.options, thread: "main" });
    embedders.set(key, embedder);
  }
  if (!request.texts) {
    embedder.runtime().then(
      (runtime) => parentPort!.postMessage({ id: request.id, runtime }),
      (error: unknown) => parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
    );
    return;
  }
  embedder.embed(request.texts).then(
    (vectors) => parentPort!.postMessage({ id: request.id, vectors }, vectors.map((v) => v.buffer as ArrayBuffer)),
    (error: unknown) => parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
