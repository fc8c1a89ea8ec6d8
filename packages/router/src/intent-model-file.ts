import { readFile } from "node:fs/promises";
import { AfwError } from "@afw/contracts";
import type { IntentModel } from "./intent-model.js";
import type { SoftmaxWeights } from "./softmax-regression.js";

// The model file: (de)serialisation of a trained model and the models shipped in `data/`.

const toBase64 = (array: Float32Array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString("base64");
const fromBase64 = (text: string) => {
  const buffer = Buffer.from(text, "base64");
  const copy = new Uint8Array(buffer.byteLength);
  copy.set(buffer);
  return new Float32Array(copy.buffer);
};

function serializeWeights(weights: SoftmaxWeights) {
  const sparseIndices: number[] = [];
  const sparseValues: number[] = [];
  weights.sparse.forEach((v, i) => {
    if (v !== 0) {
      sparseIndices.push(i);
      sparseValues.push(v);
    }
  });
  return {
    classes: weights.classes,
    denseDimensions: weights.denseDimensions,
    sparseDimensions: weights.sparseDimensions,
    bias: Array.from(weights.bias),
    dense: toBase64(weights.dense),
    sparseIndices: Buffer.from(Int32Array.from(sparseIndices).buffer).toString("base64"),
    sparseValues: toBase64(Float32Array.from(sparseValues)),
  };
}

function deserializeWeights(w: Record<string, unknown>): SoftmaxWeights {
  const classes = Number(w.classes);
  const denseDimensions = Number(w.denseDimensions);
  const sparseDimensions = Number(w.sparseDimensions);
  const sparse = new Float32Array(classes * sparseDimensions);
  const indicesBuffer = Buffer.from(String(w.sparseIndices), "base64");
  const indicesCopy = new Uint8Array(indicesBuffer.byteLength);
  indicesCopy.set(indicesBuffer);
  const indices = new Int32Array(indicesCopy.buffer);
  const values = fromBase64(String(w.sparseValues));
  indices.forEach((index, k) => {
    sparse[index] = values[k]!;
  });
  const weights: SoftmaxWeights = {
    classes,
    denseDimensions,
    sparseDimensions,
    bias: Float32Array.from(w.bias as number[]),
    dense: fromBase64(String(w.dense)),
    sparse,
  };
  if (weights.dense.length !== classes * denseDimensions) throw new AfwError("CONFIG_INVALID", "intent model dense weights have the wrong size");
  return weights;
}

/** Serialises a model to JSON, weights as base64 little-endian Float32 (sparse weights keep only non-zero entries). */
export function serializeIntentModel(model: IntentModel): string {
  const { weights, ...rest } = model;
  return `${JSON.stringify({ ...rest, weights: serializeWeights(weights) }, null, 1)}\n`;
}

/**
 * Parses a model serialised by {@link serializeIntentModel}.
 * @throws AfwError `CONFIG_INVALID` when the text is not such a model.
 */
export function deserializeIntentModel(text: string): IntentModel {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new AfwError("CONFIG_INVALID", "intent model is not valid JSON", { cause: error });
  }
  if (raw.format !== "afw-intent-model" || raw.version !== 1) throw new AfwError("CONFIG_INVALID", "not an afw intent model (format/version)");
  // Older files also hold an embedding-free first stage, no longer used.
  const { firstStage: _unused, ...model } = raw;
  return { ...(model as unknown as IntentModel), weights: deserializeWeights(raw.weights as Record<string, unknown>) };
}

/** Model files shipped with the package (`data/`), by the id of the embedder they were trained with. */
const BUNDLED_INTENT_MODEL_FILES: Readonly<Record<string, string>> = Object.freeze({
  "static-use-lite-256": "intent-model.json",
  "use-lite-512": "intent-model-use-lite-512.json",
  "hashing-256-3": "intent-model-hashing-256-3.json",
});

/**
 * Location of the model file shipped with the package for an embedder id (`data/intent-model.json` for the static embedder of
 * `@afw/embeddings`), or `undefined` when none is shipped for it.
 */
export function bundledIntentModelUrl(embedderId = "static-use-lite-256"): URL | undefined {
  const file = BUNDLED_INTENT_MODEL_FILES[embedderId];
  return file ? new URL(`../data/${file}`, import.meta.url) : undefined;
}

/** Location of the exemplar file shipped with the package (`data/intent-exemplars.yaml`). */
export const BUNDLED_INTENT_EXEMPLARS_URL: URL = new URL("../data/intent-exemplars.yaml", import.meta.url);

const bundled = new Map<string, Promise<IntentModel>>();

/**
 * Loads the model shipped with the package for `embedderId` (default: the static embedder); `undefined` when none
 * is shipped for that embedder.
 * @throws AfwError `CONFIG_INVALID` when the file is missing or corrupt.
 */
export async function loadBundledIntentModel(embedderId = "static-use-lite-256"): Promise<IntentModel | undefined> {
  const url = bundledIntentModelUrl(embedderId);
  if (!url) return undefined;
  let promise = bundled.get(embedderId);
  if (!promise) {
    promise = readFile(url, "utf8")
      .then(deserializeIntentModel)
      .catch((error: unknown) => {
        bundled.delete(embedderId);
        throw AfwError.isInstance(error) ? error : new AfwError("CONFIG_INVALID", "cannot read the bundled intent model", { cause: error });
      });
    bundled.set(embedderId, promise);
  }
  return promise;
}
