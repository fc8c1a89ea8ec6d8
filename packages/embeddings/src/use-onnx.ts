/**
 * The Universal Sentence Encoder lite on ONNX Runtime (`onnxruntime-node`, an optional peer dependency): the runner behind
 * `createUseEmbedder({ runtime: "onnx" })`, on the main thread or in the embedding worker.
 *
 * @internal Not exported from the package.
 */
import { AfwError } from "@afw/contracts";
import type * as Ort from "onnxruntime-node";
import { normalizeInPlace } from "./normalize.js";
import { tokenizeUseLite } from "./static-embedder.js";
import type * as OnnxModel from "./use-onnx-model.js";

/** Loads the `onnxruntime-node` module (injectable for tests). */
export type ImportOnnxRuntime = () => Promise<unknown>;

/** What to do when ONNX Runtime is missing: part of every load error's message. */
export const ONNX_RUNTIME_INSTALL_HINT = 'runtime "onnx" needs the optional peer dependency onnxruntime-node: install it (npm install onnxruntime-node@^1.30.0)';

/** Texts per call of the session (after sorting by length, so a batch pads little). */
const BATCH_SIZE = 32;

/** The USE lite on ONNX Runtime, loaded: the same vectors as the tfjs model, unit length. */
export interface UseOnnxRunner {
  /** Unit vectors of `texts`, in order; a blank text is embedded as `" "` (as the tfjs path does). */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

const importOnnxRuntime: ImportOnnxRuntime = () => import("onnxruntime-node");

/**
 * Imports ONNX Runtime, builds the model in memory from the installed TF.js weights and opens a session on one thread
 * (`intraOpNumThreads` and `interOpNumThreads` 1: an embedding is ~1-10 ms; more threads cost more CPU than they save).
 *
 * @param importRuntime How to load `onnxruntime-node` (a test points it at a module that does not exist).
 * @throws AfwError `INTERNAL` whose message says to install onnxruntime-node, when the import, the model build or the session fails.
 */
export async function createUseOnnxRunner(importRuntime: ImportOnnxRuntime = importOnnxRuntime): Promise<UseOnnxRunner> {
  let ort: typeof Ort;
  try {
    const module = (await importRuntime()) as typeof Ort & { default?: typeof Ort };
    ort = module.default ?? module;
  } catch (error) {
    throw new AfwError("INTERNAL", `could not load onnxruntime-node: ${ONNX_RUNTIME_INSTALL_HINT}`, { cause: error });
  }
  let session: Ort.InferenceSession;
  let model: typeof OnnxModel;
  try {
    // loaded here, not with the package: only this runtime needs the model builder and its protobuf library
    model = await import("./use-onnx-model.js");
    session = await ort.InferenceSession.create(model.buildUseLiteOnnxModel(), {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: "sequential",
      graphOptimizationLevel: "all",
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AfwError("INTERNAL", `could not build the USE lite ONNX model (${reason}); ${ONNX_RUNTIME_INSTALL_HINT}`, { cause: error });
  }
  return { embed: (texts, signal) => embedSorted(ort, session, model, texts, signal) };
}

/** Tokenizes, sorts the texts by token count, runs batches of {@link BATCH_SIZE}, returns the vectors in the texts' order. */
async function embedSorted(ort: typeof Ort, session: Ort.InferenceSession, model: typeof OnnxModel, texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
  const encoded = texts.map((text) => tokenizeUseLite(text.trim() ? text : " ").slice(0, model.USE_LITE_MAX_TOKENS));
  const order = encoded.map((_, i) => i).sort((a, b) => encoded[a]!.length - encoded[b]!.length);
  const out = new Array<Float32Array>(texts.length);
  for (let start = 0; start < order.length; start += BATCH_SIZE) {
    signal?.throwIfAborted();
    const batch = order.slice(start, start + BATCH_SIZE);
    const width = Math.max(1, ...batch.map((i) => encoded[i]!.length));
    const ids = new Int32Array(batch.length * width).fill(model.USE_LITE_PADDING_ID);
    batch.forEach((index, row) => ids.set(encoded[index]!, row * width));
    const result = await session.run({ ids: new ort.Tensor("int32", ids, [batch.length, width]) });
    const data = result.embeddings!.data as Float32Array;
    batch.forEach((index, row) => (out[index] = normalizeInPlace(data.slice(row * 512, (row + 1) * 512))));
  }
  return out;
}
