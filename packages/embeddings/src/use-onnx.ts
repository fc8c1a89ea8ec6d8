/**
 * The Universal Sentence Encoder lite on ONNX Runtime (`onnxruntime-node`, an optional peer dependency): the runner behind
 * `createUseEmbedder({ runtime: "onnx" })`, on the main thread or in the embedding worker.
 *
 * @internal Not exported from the package.
 */
import { AfwError } from "@afw/contracts";
import type * as Ort from "onnxruntime-node";
import { normalizeInPlace } from "./normalize.js";
import { useLiteModelIds } from "./static-embedder.js";
import type * as OnnxModel from "./use-onnx-model.js";

/** Loads the `onnxruntime-node` module (injectable for tests). */
export type ImportOnnxRuntime = () => Promise<unknown>;

/** What to do when ONNX Runtime is missing: part of every load error's message. */
export const ONNX_RUNTIME_INSTALL_HINT = 'runtime "onnx" needs the optional peer dependency onnxruntime-node: install it (npm install onnxruntime-node@^1.30.0)';

/** The USE lite on ONNX Runtime, loaded: unit vectors within cosine ~0.998 of the tfjs model's (8-bit weights; exactly its vectors with `precision: "float32"`). */
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
 * @param options `precision` of the model's dense layers: `int8` (the default) or `float32` (the TF.js model's exact
 *   arithmetic; for comparisons).
 * @throws AfwError `INTERNAL` whose message says to install onnxruntime-node, when the import, the model build or the session fails.
 */
export async function createUseOnnxRunner(importRuntime: ImportOnnxRuntime = importOnnxRuntime, options: { precision?: OnnxModel.UseLitePrecision } = {}): Promise<UseOnnxRunner> {
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
    session = await ort.InferenceSession.create(model.buildUseLiteOnnxModel(undefined, options), {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: "sequential",
      graphOptimizationLevel: "all",
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AfwError("INTERNAL", `could not build the USE lite ONNX model (${reason}); ${ONNX_RUNTIME_INSTALL_HINT}`, { cause: error });
  }
  return { embed: (texts, signal) => embedEach(ort, session, model, texts, signal) };
}

/**
 * Tokenizes and runs each text alone, returns the vectors in the texts' order. One text per run: the int8 model quantizes
 * the activations of a whole run with one scale, so in a batch a text's vector would depend on its companions (cosine
 * ~0.998 to the vector alone); alone it is the same in every call, and no padding is computed (one by one costs less
 * CPU per text than sorted batches of 32: 688 against 769 µs on 64 short texts).
 */
async function embedEach(ort: typeof Ort, session: Ort.InferenceSession, model: typeof OnnxModel, texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (const text of texts) {
    signal?.throwIfAborted();
    const tokens = useLiteModelIds(text.trim() ? text : " ");
    // no token at all: one padding id, so the model pools nothing (as a padded row of a batch did)
    const ids = tokens.length > 0 ? Int32Array.from(tokens) : Int32Array.of(model.USE_LITE_PADDING_ID);
    const result = await session.run({ ids: new ort.Tensor("int32", ids, [1, ids.length]) });
    out.push(normalizeInPlace((result.embeddings!.data as Float32Array).slice(0, 512)));
  }
  return out;
}
