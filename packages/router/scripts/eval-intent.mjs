// Accuracy report of the intent classifier on a labelled dev set (default: ../shared/data/intent-dev.json
// beside the repository). Run: pnpm --filter @afw/router eval [path]
// Own held-out sets (never trained on): eval/intent-holdout.json, -b.json, -c.json (see README).
// Language groups use the item's optional "lang" code, else a stop-word guess.
// Prints: fast path alone, model path alone (no fast path), combined classifier; per intent, per
// difficulty, per language group; confusion matrix and calibration table of the combined
// classifier; and the cross-validated accuracy stored with the model (estimated on the exemplars).
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { INTENTS } from "@afw/contracts";
import { createHashingEmbedder, createStaticEmbedder, createUseEmbedder } from "@afw/embeddings";
import { DEFAULT_INTENT_PATTERNS, buildCalibrationTable, compileIntentPatterns, createIntentClassifier, loadBundledIntentModel } from "../dist/training.js";
import { diskCacheEmbedder } from "./disk-cache-embedder.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, "..", "..", "..");
const candidates = [process.argv[2], process.env.AFW_INTENT_DEV, join(repoRoot, "..", "shared", "data", "intent-dev.json"), join(repoRoot, "shared", "data", "intent-dev.json")].filter(Boolean);
const devPath = candidates.find((p) => existsSync(p));
if (!devPath) {
  console.error(`dev set not found; tried: ${candidates.join(", ")}`);
  process.exit(1);
}
const dev = JSON.parse(readFileSync(devPath, "utf8"));

const STOPWORDS = {
  es: ["el", "la", "los", "las", "que", "de", "del", "por", "para", "con", "una", "como", "qué", "cómo", "mi", "es", "está", "nuestra", "nuestro", "y", "me"],
  pt: ["o", "a", "os", "as", "que", "de", "do", "da", "para", "com", "uma", "um", "como", "meu", "minha", "é", "não", "nossa", "nosso", "em", "e", "você"],
  fr: ["le", "la", "les", "que", "de", "des", "du", "pour", "avec", "une", "un", "comment", "mon", "ma", "est", "et", "je", "notre", "dans", "ce", "cette"],
  de: ["der", "die", "das", "und", "ist", "ich", "wie", "mein", "meine", "nicht", "mit", "für", "ein", "eine", "unsere", "im", "zu", "den", "dem"],
  it: ["il", "lo", "la", "gli", "le", "che", "di", "del", "della", "per", "con", "una", "come", "mio", "mia", "è", "non", "nostro", "nostra", "questo", "questa", "perché", "cosa"],
  nl: ["de", "het", "een", "en", "is", "ik", "hoe", "mijn", "niet", "met", "voor", "van", "ons", "onze", "wat", "waarom", "deze", "dit", "je", "jij", "er"],
  pl: ["w", "na", "nie", "jak", "czy", "mi", "mnie", "jest", "się", "sie", "z", "co", "dlaczego", "ten", "ta", "te", "moja", "mój", "nasz", "nasza", "ile", "gdzie"],
  sv: ["och", "att", "det", "är", "en", "ett", "jag", "vad", "hur", "min", "mitt", "vår", "vårt", "inte", "med", "för", "på", "om", "du", "varför", "den", "de", "hej"],
  en: ["the", "a", "an", "is", "are", "my", "our", "what", "how", "why", "to", "of", "and", "for", "in", "it", "this", "with", "do", "i", "you"],
};
function language(text) {
  const words = text.toLowerCase().match(/[\p{L}]+/gu) ?? [];
  let best = "en";
  let bestScore = 0;
  for (const [lang, list] of Object.entries(STOPWORDS)) {
    const set = new Set(list);
    const score = words.filter((w) => set.has(w)).length + (lang === "en" ? 0.5 : 0);
    if (score > bestScore) {
      best = lang;
      bestScore = score;
    }
  }
  return best === "en" ? "english" : "other languages";
}

// AFW_EMBEDDER: static (default), use, hashing or cascade: which shipped model is evaluated. cascade: the static model, and
// the USE lite model on the embedding worker thread below AFW_CASCADE_THRESHOLD (default: the classifier's default);
// AFW_CASCADE_COMBINE=replace|average. The cascade's wait for the worker is not bounded here (60 s), so a loaded machine
// does not change its answers; its CPU per question (worker thread included) is printed.
const embedderName = process.env.AFW_EMBEDDER ?? "static";
const embedder = embedderName === "use" ? diskCacheEmbedder(createUseEmbedder()) : embedderName === "hashing" ? createHashingEmbedder() : createStaticEmbedder();
const cascade =
  embedderName === "cascade"
    ? {
        timeoutMs: 60_000,
        ...(process.env.AFW_CASCADE_THRESHOLD ? { threshold: Number(process.env.AFW_CASCADE_THRESHOLD) } : {}),
        ...(process.env.AFW_CASCADE_COMBINE ? { combine: process.env.AFW_CASCADE_COMBINE } : {}),
      }
    : undefined;
const combined = createIntentClassifier({ embedder, ...(cascade ? { cascade } : {}) });
// Without the fast path (patterns that never decide alone): the model on every question.
const noFastPath = { ...DEFAULT_INTENT_PATTERNS, fastPath: { minScore: Number.MAX_VALUE, minMargin: 0 } };
const modelOnly = createIntentClassifier({ embedder, patterns: noFastPath, ...(cascade ? { cascade } : {}) });
const matcher = compileIntentPatterns(DEFAULT_INTENT_PATTERNS);
await combined.warmUp();
await modelOnly.warmUp();

const rows = [];
let combinedCpuMicros = 0;
const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
for (const item of dev) {
  const p = matcher.score(item.question);
  const cpuBefore = cpuMicros();
  const c = await combined.classify(item.question);
  combinedCpuMicros += cpuMicros() - cpuBefore;
  const m = await modelOnly.classify(item.question);
  rows.push({ ...item, code: item.lang ?? (language(item.question) === "english" ? "en" : "other"), lang: item.lang ? (item.lang === "en" ? "english" : "other languages") : language(item.question), fast: p.decisive ? p.top : undefined, patternTop: p.top, combined: c, model: m });
}
embedder.save?.();
await combined.close?.();
await modelOnly.close?.();

const pct = (n, d) => (d ? `${((100 * n) / d).toFixed(1)}%` : "-");
function groupAccuracy(key, pick) {
  const groups = new Map();
  for (const r of rows) {
    const g = key(r);
    const e = groups.get(g) ?? { n: 0, ok: 0 };
    e.n++;
    if (pick(r) === r.intent) e.ok++;
    groups.set(g, e);
  }
  return groups;
}
const report = { devPath, items: rows.length, paths: {} };
const paths = {
  "fast path (patterns decide alone)": (r) => r.fast,
  "patterns, forced (top pattern or default)": (r) => r.patternTop ?? "conversation",
  "model (no fast path)": (r) => r.model.intent,
  "combined classifier": (r) => r.combined.intent,
};
console.log(`dev set: ${devPath} (${rows.length} items)\n`);
for (const [name, pick] of Object.entries(paths)) {
  const decided = rows.filter((r) => pick(r) !== undefined);
  const ok = decided.filter((r) => pick(r) === r.intent).length;
  console.log(`== ${name}: ${pct(ok, rows.length)} of all` + (decided.length !== rows.length ? `, decided ${decided.length}/${rows.length}, precision ${pct(ok, decided.length)}` : ""));
  const entry = { accuracy: ok / rows.length, decided: decided.length, correct: ok, perIntent: {}, perDifficulty: {}, perLanguage: {}, perLanguageCode: {} };
  for (const [label, key, field] of [
    ["intent", (r) => r.intent, "perIntent"],
    ["difficulty", (r) => r.difficulty, "perDifficulty"],
    ["language", (r) => r.lang, "perLanguage"],
    ["language code", (r) => r.code, "perLanguageCode"],
  ]) {
    const groups = groupAccuracy(key, pick);
    const parts = [...groups.entries()].sort().map(([g, e]) => {
      entry[field][g] = { n: e.n, correct: e.ok };
      return `${g} ${pct(e.ok, e.n)} (${e.ok}/${e.n})`;
    });
    console.log(`   per ${label}: ${parts.join(", ")}`);
  }
  report.paths[name] = entry;
}

const short = { "creative-orientation": "creat", "technical-analysis": "tech", "structural-thinking": "struct", conversation: "conv", "rag-retrieval": "rag", "data-processing": "data" };
console.log("\n== confusion matrix, combined classifier (rows: truth, columns: predicted)");
console.log("".padEnd(8) + INTENTS.map((i) => short[i].padStart(7)).join(""));
for (const truth of INTENTS) {
  console.log(short[truth].padEnd(8) + INTENTS.map((p) => String(rows.filter((r) => r.intent === truth && r.combined.intent === p).length).padStart(7)).join(""));
}
const table = buildCalibrationTable(rows.map((r) => r.combined.confidence), rows.map((r) => r.combined.intent === r.intent));
console.log("\n== calibration, combined classifier (accuracy per confidence bucket)");
console.log("bucket        count  accuracy  mean confidence");
for (const b of table) console.log(`[${b.from.toFixed(2)}, ${b.to.toFixed(2)})`.padEnd(14) + String(b.count).padStart(5) + pct(b.count ? b.accuracy * b.count : 0, b.count).padStart(10) + (Number.isNaN(b.meanConfidence) ? "-" : b.meanConfidence.toFixed(3)).padStart(17));
const tiers = buildCalibrationTable(rows.map((r) => r.combined.confidence), rows.map((r) => r.combined.intent === r.intent), [0, 0.5, 0.7, 0.9, 1]);
console.log("AIRIS tiers (< 0.5 default, 0.5-0.7 clarify, 0.7-0.9 confirm, >= 0.9 route): " + tiers.map((b) => `[${b.from}, ${b.to}) ${b.count ? `${Math.round(b.accuracy * b.count)}/${b.count} = ${pct(b.accuracy * b.count, b.count)}` : "-"}`).join("; "));
const levels = new Map();
for (const r of rows) {
  const e = levels.get(r.combined.level) ?? { n: 0, ok: 0 };
  e.n++;
  if (r.combined.intent === r.intent) e.ok++;
  levels.set(r.combined.level, e);
}
console.log(`per confidence level: ${["high", "medium", "low", "none"].filter((l) => levels.has(l)).map((l) => `${l} ${pct(levels.get(l).ok, levels.get(l).n)} (${levels.get(l).ok}/${levels.get(l).n})`).join(", ")}`);
const methods = new Map();
for (const r of rows) methods.set(r.combined.method, (methods.get(r.combined.method) ?? 0) + 1);
console.log(`methods used: ${[...methods.entries()].map(([m, n]) => `${m} ${n}`).join(", ")}`);
if (cascade) {
  const steps = new Map();
  for (const r of rows) if (r.combined.cascade) steps.set(r.combined.cascade, (steps.get(r.combined.cascade) ?? 0) + 1);
  console.log(`cascade (threshold ${process.env.AFW_CASCADE_THRESHOLD ?? "default"}): ${[...steps.entries()].map(([m, n]) => `${m} ${n}`).join(", ")}; sent to the USE model: ${pct(steps.get("escalated") ?? 0, rows.length)} of all`);
  report.cascade = Object.fromEntries(steps);
}
console.log(`CPU per question, combined classifier (process, worker thread included): ${(combinedCpuMicros / rows.length).toFixed(0)} µs`);
report.cpuMicrosPerQuestion = combinedCpuMicros / rows.length;

const errors = rows.filter((r) => r.combined.intent !== r.intent);
if (errors.length) {
  console.log("\n== errors of the combined classifier");
  for (const r of errors) console.log(`  ${r.id} (${r.difficulty}) ${r.intent} -> ${r.combined.intent} @ ${r.combined.confidence.toFixed(2)} [${r.combined.method}${r.combined.cascade ? `, ${r.combined.cascade}` : ""}]`);
}
const model = await loadBundledIntentModel(embedder.id);
if (model.evaluation) {
  const ev = model.evaluation;
  console.log(`\n== ${ev.folds}-fold cross-validation on the ${model.exemplars.length} exemplars (model path): ${pct(ev.accuracy * 1000, 1000)}, log loss ${ev.logLoss.toFixed(3)}`);
  console.log(`   per intent: ${Object.entries(ev.perIntent).map(([i, a]) => `${short[i]} ${(a * 100).toFixed(1)}%`).join(", ")}`);
  console.log("   calibration: " + ev.calibration.filter((b) => b.count).map((b) => `[${b.from},${b.to}) n=${b.count} acc=${(b.accuracy * 100).toFixed(0)}%`).join("; "));
  console.log(`   fast path on exemplars: ${ev.fastPath.correct}/${ev.fastPath.decided} correct`);
  report.crossValidation = ev;
}
report.confusion = Object.fromEntries(INTENTS.map((t) => [t, Object.fromEntries(INTENTS.map((p) => [p, rows.filter((r) => r.intent === t && r.combined.intent === p).length]))]));
report.calibration = table;
if (process.env.AFW_EVAL_JSON) {
  mkdirSync(dirname(process.env.AFW_EVAL_JSON), { recursive: true });
  writeFileSync(process.env.AFW_EVAL_JSON, JSON.stringify(report, null, 2));
}
