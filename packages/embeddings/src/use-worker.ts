/**
 * Worker-thread side of `createUseEmbedder({ thread: "worker" })`: `{ id, texts?, runtime }` in,
 * `{ id, vectors }` or `{ id, error }` out (vectors transferred; without `texts` it only loads the model). `runtime`
 * picks the model (`auto`, `tfjs` or `onnx`, each loaded on its first request). `{ close: true }` stops the thread at a
 * safe point: work in flight is aborted at its next text, what is running (an ONNX Runtime session run, a model load)
 * finishes, then the port closes and the thread ends by itself. Terminating it from outside during a session run
 * aborted the whole process (`Napi::Error` thrown by ONNX Runtime's completion callback into a torn-down thread).
 *
 * @internal Built as `dist/use-worker.js`; not exported from the package.
 */
import { parentPort } from "node:worker_threads";
import { createUseEmbedder, type UseRuntime } from "./use-embedder.js";

type Request = { id: number; texts?: string[]; runtime: UseRuntime } | { close: true };

const embedders = { auto: createUseEmbedder({ runtime: "auto" }), tfjs: createUseEmbedder({ runtime: "tfjs" }), onnx: createUseEmbedder({ runtime: "onnx" }) };
const inFlight = new Map<number, { controller: AbortController; done: Promise<void> }>();

parentPort?.on("message", (request: Request) => {
  if ("close" in request) {
    void closeWhenIdle();
    return;
  }
  const { id, texts, runtime } = request;
  const embedder = embedders[runtime];
  const controller = new AbortController();
  const done = (texts ? embedder.embed(texts, controller.signal) : embedder.warmUp().then(() => []))
    .then(
      (vectors) => parentPort!.postMessage({ id, vectors }, vectors.map((v) => v.buffer as ArrayBuffer)),
      (error: unknown) => parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) }),
    )
    .finally(() => inFlight.delete(id));
  inFlight.set(id, { controller, done });
});

// The main thread sends nothing after `close` (it starts a new worker), so no request arrives while this one closes.
async function closeWhenIdle(): Promise<void> {
  for (const { controller } of inFlight.values()) controller.abort();
  await Promise.allSettled([...inFlight.values()].map((work) => work.done));
  parentPort!.close();
}
