import type { SparseVector } from "./lexical-features.js";

/** One training or scoring example: a dense part and an optional sparse part. */
export interface FeatureRow {
  dense: Float32Array;
  sparse?: SparseVector | undefined;
}

/** Weights of a multinomial logistic (softmax) regression. */
export interface SoftmaxWeights {
  classes: number;
  denseDimensions: number;
  sparseDimensions: number;
  /** `classes x denseDimensions`, row-major. */
  dense: Float32Array;
  /** `classes x sparseDimensions`, row-major. */
  sparse: Float32Array;
  bias: Float32Array;
}

/** Training settings of {@link trainSoftmaxRegression}. */
export interface SoftmaxTrainingOptions {
  /** Passes over the data. @default 30 */
  epochs?: number;
  /** Adam step size. @default 0.01 */
  learningRate?: number;
  /** L2 penalty. @default 1e-4 */
  l2?: number;
  /** Seed of the shuffling order (training is deterministic for a seed). @default 1 */
  seed?: number;
  /**
   * Train this many models with consecutive seeds and average their weights (a linear model, so this equals averaging their
   * logits): less variance from the shuffling order, same scoring cost.
   * @default 1
   */
  seeds?: number;
  /**
   * Logit adjustment for unequal class sizes: after training, each class's bias loses the log of its share of the
   * training rows (centred), so the model scores as if every class were equally frequent.
   * @default false
   */
  balanceClasses?: boolean;
}

/** Computes the logits of `row` into `out` (length `classes`) and returns `out`. */
export function softmaxLogits(weights: SoftmaxWeights, row: FeatureRow, out = new Float64Array(weights.classes)): Float64Array {
  const { classes, denseDimensions: d, sparseDimensions: h } = weights;
  const dense = row.dense;
  for (let c = 0; c < classes; c++) {
    let sum = weights.bias[c]!;
    const offset = c * d;
    for (let j = 0; j < d; j++) sum += weights.dense[offset + j]! * dense[j]!;
    if (row.sparse) {
      const sparseOffset = c * h;
      const { indices, values } = row.sparse;
      for (let k = 0; k < indices.length; k++) sum += weights.sparse[sparseOffset + indices[k]!]! * values[k]!;
    }
    out[c] = sum;
  }
  return out;
}

/**
 * A scorer of fixed weights that computes the same logits as {@link softmaxLogits} (the same additions in the same order) from a
 * copy of the sparse weights laid out feature-major, so each sparse feature reads one run of `classes` weights instead of one
 * weight in each class's row: fewer cache misses on the large hashed table. The weights must not change afterwards.
 */
export function createSoftmaxScorer(weights: SoftmaxWeights): (row: FeatureRow, out?: Float64Array) => Float64Array {
  const { classes, denseDimensions: d, sparseDimensions: h } = weights;
  const byFeature = new Float32Array(classes * h);
  for (let c = 0; c < classes; c++) for (let j = 0; j < h; j++) byFeature[j * classes + c] = weights.sparse[c * h + j]!;
  return (row, out = new Float64Array(classes)) => {
    const dense = row.dense;
    for (let c = 0; c < classes; c++) {
      let sum = weights.bias[c]!;
      const offset = c * d;
      for (let j = 0; j < d; j++) sum += weights.dense[offset + j]! * dense[j]!;
      out[c] = sum;
    }
    if (row.sparse) {
      const { indices, values } = row.sparse;
      for (let k = 0; k < indices.length; k++) {
        const base = indices[k]! * classes;
        const value = values[k]!;
        for (let c = 0; c < classes; c++) out[c] = out[c]! + byFeature[base + c]! * value;
      }
    }
    return out;
  };
}

/** Turns logits into probabilities in place, dividing by `temperature` first. */
export function softmaxInPlace(logits: Float64Array, temperature = 1): Float64Array {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) max = Math.max(max, logits[i]! / temperature);
  let sum = 0;
  for (let i = 0; i < logits.length; i++) {
    const e = Math.exp(logits[i]! / temperature - max);
    logits[i] = e;
    sum += e;
  }
  for (let i = 0; i < logits.length; i++) logits[i] = logits[i]! / sum;
  return logits;
}

/**
 * Trains a multinomial logistic regression with Adam on shuffled single examples (deterministic for a seed; with `seeds` > 1 the
 * weights of several seeds are averaged).
 */
export function trainSoftmaxRegression(
  rows: readonly FeatureRow[],
  labels: readonly number[],
  shape: { classes: number; denseDimensions: number; sparseDimensions: number },
  options: SoftmaxTrainingOptions = {},
): SoftmaxWeights {
  const seeds = Math.max(1, Math.floor(options.seeds ?? 1));
  if (seeds === 1) return trainOnce(rows, labels, shape, options);
  const first = options.seed ?? 1;
  const sum = trainOnce(rows, labels, shape, { ...options, seed: first });
  for (let k = 1; k < seeds; k++) {
    const next = trainOnce(rows, labels, shape, { ...options, seed: first + k });
    for (const key of ["dense", "sparse", "bias"] as const) {
      const target = sum[key];
      const source = next[key];
      for (let i = 0; i < target.length; i++) target[i] = target[i]! + source[i]!;
    }
  }
  for (const key of ["dense", "sparse", "bias"] as const) {
    const target = sum[key];
    for (let i = 0; i < target.length; i++) target[i] = target[i]! / seeds;
  }
  return sum;
}

function trainOnce(
  rows: readonly FeatureRow[],
  labels: readonly number[],
  shape: { classes: number; denseDimensions: number; sparseDimensions: number },
  options: SoftmaxTrainingOptions,
): SoftmaxWeights {
  const { classes, denseDimensions: d, sparseDimensions: h } = shape;
  const epochs = options.epochs ?? 30;
  const learningRate = options.learningRate ?? 0.01;
  const l2 = options.l2 ?? 1e-4;
  const weights: SoftmaxWeights = {
    classes,
    denseDimensions: d,
    sparseDimensions: h,
    dense: new Float32Array(classes * d),
    sparse: new Float32Array(classes * h),
    bias: new Float32Array(classes),
  };
  const m1 = new Float32Array(classes * d);
  const v1 = new Float32Array(classes * d);
  const m2 = new Float32Array(classes * h);
  const v2 = new Float32Array(classes * h);
  const beta1 = 0.9;
  const beta2 = 0.999;
  const epsilon = 1e-8;
  let seed = (options.seed ?? 1) >>> 0 || 1;
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  const order = rows.map((_, i) => i);
  const logits = new Float64Array(classes);
  let step = 0;
  for (let epoch = 0; epoch < epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const index of order) {
      const row = rows[index]!;
      const label = labels[index]!;
      step++;
      softmaxInPlace(softmaxLogits(weights, row, logits));
      const correction = Math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step);
      const rate = learningRate * correction;
      for (let c = 0; c < classes; c++) {
        const gradient = logits[c]! - (label === c ? 1 : 0);
        weights.bias[c] = weights.bias[c]! - learningRate * gradient;
        const offset = c * d;
        for (let j = 0; j < d; j++) {
          const k = offset + j;
          const g = gradient * row.dense[j]! + l2 * weights.dense[k]!;
          m1[k] = beta1 * m1[k]! + (1 - beta1) * g;
          v1[k] = beta2 * v1[k]! + (1 - beta2) * g * g;
          weights.dense[k] = weights.dense[k]! - (rate * m1[k]!) / (Math.sqrt(v1[k]!) + epsilon);
        }
        if (row.sparse) {
          const sparseOffset = c * h;
          const { indices, values } = row.sparse;
          for (let n = 0; n < indices.length; n++) {
            const k = sparseOffset + indices[n]!;
            const g = gradient * values[n]! + l2 * weights.sparse[k]!;
            m2[k] = beta1 * m2[k]! + (1 - beta1) * g;
            v2[k] = beta2 * v2[k]! + (1 - beta2) * g * g;
            weights.sparse[k] = weights.sparse[k]! - (rate * m2[k]!) / (Math.sqrt(v2[k]!) + epsilon);
          }
        }
      }
    }
  }
  if (options.balanceClasses) balanceBias(weights, labels);
  return weights;
}

/** Logit adjustment: each class with rows loses the centred log of its share (an absent class must not gain from it). */
function balanceBias(weights: SoftmaxWeights, labels: readonly number[]): void {
  const counts = new Float64Array(weights.classes);
  for (const label of labels) counts[label]! += 1;
  const present = Array.from(counts.keys()).filter((c) => counts[c]! > 0);
  const logShare = (c: number) => Math.log(counts[c]! / labels.length);
  const mean = present.reduce((sum, c) => sum + logShare(c), 0) / present.length;
  for (const c of present) weights.bias[c] = weights.bias[c]! - (logShare(c) - mean);
}
