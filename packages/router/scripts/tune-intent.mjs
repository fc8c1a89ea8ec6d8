// Development harness: trains a model in memory (5-fold CV) with the feature/training overrides in
// AFW_FEATURES / AFW_TRAINING and reports accuracy of the model path and the combined classifier
// on the development sets (dev + eval/intent-holdout{,-b,-c,-d}.json). Set E
// (eval/intent-holdout-e.json) is deliberately not included: it is the final check of the round.
// Run after `tsup`: node scripts/tune-intent.mjs
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createStaticEmbedder, createUseEmbedder } from "@afw/embeddings";
import {
  BUNDLED_INTENT_EXEMPLARS_URL,
  DEFAULT_INTENT_PATTERNS,
  compileIntentPatterns,
  createIntentClassifier,
  parseIntentExemplars,
  trainIntentModel,
} from "../dist/training.js";
import { diskCacheEmbedder } from "./disk-cache-embedder.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..");
const sets = {
  dev: join(root, "..", "..", "..", "shared", "data", "intent-dev.json"),
  A: join(root, "eval", "intent-holdout.json"),
  B: join(root, "eval", "intent-holdout-b.json"),
  C: join(root, "eval", "intent-holdout-c.json"),
  D: join(root, "eval", "intent-holdout-d.json"),
  ...(process.env.AFW_EXTRA_SET ? { X: process.env.AFW_EXTRA_SET } : {}),
};
const exemplars = parseIntentExemplars(readFileSync(process.env.AFW_EXEMPLARS ?? BUNDLED_INTENT_EXEMPLARS_URL, "utf8"));
// The shipped default embedder; AFW_EMBEDDER=use for the Universal Sentence Encoder.
const embedder = process.env.AFW_EMBEDDER === "use" ? diskCacheEmbedder(createUseEmbedder()) : createStaticEmbedder();
const model = await trainIntentModel({
  exemplars,
  embedder,
  patterns: DEFAULT_INTENT_PATTERNS,
  folds: Number(process.env.AFW_FOLDS ?? 5),
  features: process.env.AFW_FEATURES ? JSON.parse(process.env.AFW_FEATURES) : {},
  training: process.env.AFW_TRAINING ? JSON.parse(process.env.AFW_TRAINING) : {},
});
// Patterns that never decide alone: every question reaches the model.
const NO_FAST_PATH = { ...DEFAULT_INTENT_PATTERNS, fastPath: { minScore: Number.MAX_VALUE, minMargin: 0 } };
const combined = createIntentClassifier({ embedder, model });
const modelOnly = createIntentClassifier({ embedder, model, patterns: NO_FAST_PATH });
const matcher = compileIntentPatterns(DEFAULT_INTENT_PATTERNS);
const line = [`CV ${model.evaluation ? (model.evaluation.accuracy * 100).toFixed(1) : "-"} ll ${model.evaluation?.logLoss.toFixed(3) ?? "-"} T ${model.temperature}`];
let totalC = 0;
let totalN = 0;
for (const [name, path] of Object.entries(sets)) {
  if (!existsSync(path)) continue;
  const items = JSON.parse(readFileSync(path, "utf8"));
  let c = 0;
  let m = 0;
  let fastN = 0;
  let fastOk = 0;
  const wrong = [];
  for (const item of items) {
    const p = matcher.score(item.question);
    if (p.decisive) {
      fastN++;
      if (p.top === item.intent) fastOk++;
    }
    const rc = await combined.classify(item.question);
    const rm = await modelOnly.classify(item.question);
    if (rc.intent === item.intent) c++;
    else wrong.push(`${item.id}->${rc.intent}`);
    if (rm.intent === item.intent) m++;
  }
  totalC += c;
  totalN += items.length;
  line.push(`${name} ${c}/${items.length} (model ${m}, fast ${fastOk}/${fastN})`);
  if (process.env.AFW_SHOW_ERRORS) console.log(`  ${name} errors: ${wrong.join(" ")}`);
}
const STOP = {
  es: ["el", "la", "los", "las", "que", "de", "del", "por", "para", "con", "una", "como", "mi", "es", "nuestra", "nuestro", "y", "me"],
  pt: ["o", "os", "as", "do", "da", "para", "com", "uma", "um", "como", "meu", "minha", "nao", "nossa", "nosso", "em", "voce"],
  fr: ["le", "la", "les", "de", "des", "du", "pour", "avec", "une", "un", "comment", "mon", "ma", "est", "et", "je", "notre", "dans", "ce", "cette"],
  de: ["der", "die", "das", "und", "ist", "ich", "wie", "mein", "meine", "nicht", "mit", "fur", "ein", "eine", "unsere", "im", "zu", "den", "dem"],
  it: ["il", "lo", "gli", "che", "di", "della", "per", "come", "mio", "mia", "non", "nostro", "nostra", "questo", "questa", "perche", "cosa"],
  nl: ["de", "het", "een", "en", "ik", "hoe", "mijn", "niet", "met", "voor", "van", "ons", "onze", "wat", "waarom", "deze", "dit", "je", "jij", "er"],
  en: ["the", "a", "an", "is", "are", "my", "our", "what", "how", "why", "to", "of", "and", "for", "in", "it", "this", "with", "do", "i", "you"],
};
const lang = (t) => {
  const w = t.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").match(/\p{L}+/gu) ?? [];
  let best = "en";
  let score = 0.5;
  for (const [l, list] of Object.entries(STOP)) {
    const set = new Set(list);
    const s = w.filter((x) => set.has(x)).length + (l === "en" ? 0.5 : 0);
    if (s > score) [best, score] = [l, s];
  }
  return best;
};
if (process.env.AFW_LOLO) {
  // Leave-one-language-out: train without a language's exemplars, test on them (transfer to unseen languages).
  const parts = [];
  let ok = 0;
  let n = 0;
  for (const l of ["es", "fr", "de", "pt", "it", "nl"]) {
    const test = exemplars.filter((e) => lang(e.text) === l);
    const train = exemplars.filter((e) => lang(e.text) !== l);
    const m = await trainIntentModel({ exemplars: train, embedder, patterns: DEFAULT_INTENT_PATTERNS, folds: 0, features: process.env.AFW_FEATURES ? JSON.parse(process.env.AFW_FEATURES) : {}, training: process.env.AFW_TRAINING ? JSON.parse(process.env.AFW_TRAINING) : {} });
    const cl = createIntentClassifier({ embedder, model: m, patterns: NO_FAST_PATH });
    let k = 0;
    for (const e of test) {
      const got = (await cl.classify(e.text)).intent;
      if (got === e.intent) k++;
      else if (process.env.AFW_SHOW_ERRORS) console.log(`  LOLO ${l}: ${e.intent} -> ${got}: ${e.text}`);
    }
    parts.push(`${l} ${k}/${test.length}`);
    ok += k;
    n += test.length;
  }
  line.push(`LOLO ${ok}/${n} (${parts.join(" ")})`);
}
embedder.save?.();
line.push(`sum ${totalC}/${totalN}`);
console.log(line.join(" | "));
