import { describe, expect, it } from "vitest";
import { softmaxInPlace, softmaxLogits, trainSoftmaxRegression, type FeatureRow } from "./softmax-regression.js";

describe("softmax regression", () => {
  const rows: FeatureRow[] = [];
  const labels: number[] = [];
  for (let i = 0; i < 60; i++) {
    const c = i % 3;
    const dense = Float32Array.from([c === 0 ? 1 : 0, c === 1 ? 1 : 0, c === 2 ? 1 : 0, (i % 7) / 7]);
    rows.push({ dense });
    labels.push(c);
  }
  const shape = { classes: 3, denseDimensions: 4, sparseDimensions: 1 };

  it("learns a separable problem and is deterministic for a seed", () => {
    const a = trainSoftmaxRegression(rows, labels, shape, { epochs: 10, seed: 3 });
    const b = trainSoftmaxRegression(rows, labels, shape, { epochs: 10, seed: 3 });
    expect(Array.from(a.dense)).toEqual(Array.from(b.dense));
    rows.forEach((row, i) => {
      const p = softmaxInPlace(softmaxLogits(a, row));
      expect(p.indexOf(Math.max(...p))).toBe(labels[i]);
    });
  });

  it("with seeds > 1 averages the weights of consecutive seeds", () => {
    const one = trainSoftmaxRegression(rows, labels, shape, { epochs: 5, seed: 1 });
    const two = trainSoftmaxRegression(rows, labels, shape, { epochs: 5, seed: 2 });
    const averaged = trainSoftmaxRegression(rows, labels, shape, { epochs: 5, seed: 1, seeds: 2 });
    averaged.dense.forEach((w, i) => expect(w).toBeCloseTo((one.dense[i]! + two.dense[i]!) / 2, 5));
    averaged.bias.forEach((w, i) => expect(w).toBeCloseTo((one.bias[i]! + two.bias[i]!) / 2, 5));
  });

  it("balanceClasses lowers the bias of a frequent class by its log share and leaves an absent class alone", () => {
    // Class 0 has more rows than class 1; class 2 has none.
    const skewed = rows.filter((_, i) => labels[i] !== 2).filter((_, i) => i % 4 !== 3 || labels[i] === 0);
    const skewedLabels = skewed.map((row) => (row.dense[0] === 1 ? 0 : 1));
    const n0 = skewedLabels.filter((l) => l === 0).length;
    const n1 = skewedLabels.length - n0;
    expect(n0).toBeGreaterThan(n1);
    const plain = trainSoftmaxRegression(skewed, skewedLabels, shape, { epochs: 5, seed: 1 });
    const balanced = trainSoftmaxRegression(skewed, skewedLabels, shape, { epochs: 5, seed: 1, balanceClasses: true });
    const half = Math.log(n0 / n1) / 2;
    expect(balanced.bias[0]).toBeCloseTo(plain.bias[0]! - half, 5);
    expect(balanced.bias[1]).toBeCloseTo(plain.bias[1]! + half, 5);
    expect(balanced.bias[2]).toBe(plain.bias[2]);
    expect(Array.from(balanced.dense)).toEqual(Array.from(plain.dense));
  });
});
