import { describe, expect, it } from "vitest";
import { INTENTS } from "@afw/contracts";
import { createStaticEmbedder } from "@afw/embeddings";
import { DEFAULT_INTENT_PATTERNS } from "./default-intent-patterns.js";
import { createIntentClassifier } from "./intent-classifier.js";
import { compileIntentPatterns } from "./intent-patterns.js";
import { buildIntentFeatureRow, intentModelText } from "./intent-model.js";
import { loadBundledIntentModel } from "./intent-model-file.js";
import { readPrompt } from "./prompt-structure.js";
import { createSoftmaxScorer, softmaxInPlace, softmaxLogits } from "./softmax-regression.js";
import { foldText, foldedWords, splitWords } from "./text-normalization.js";

// The classifier's scoring path reuses work within one question (one fold, one lexicon match, a feature-major copy of the
// sparse weights); these tests hold it to the plain computation, so its predictions stay those of the model.
describe("intent scoring path", () => {
  it("gives the probabilities of the plain computation on every exemplar of the bundled model (training data)", async () => {
    const model = (await loadBundledIntentModel())!;
    const embedder = createStaticEmbedder();
    const matcher = compileIntentPatterns(DEFAULT_INTENT_PATTERNS);
    const classifier = createIntentClassifier({ embedder, model });
    let modelAnswers = 0;
    for (const { text } of model.exemplars) {
      const result = await classifier.classify(text);
      if (result.method === "pattern") continue;
      modelAnswers++;
      const { structure, pattern } = readPrompt(matcher, text);
      const [embedding] = await embedder.embed([intentModelText(structure.request, model.features)]);
      const row = buildIntentFeatureRow(structure.request, embedding, pattern.scores, model.features, model.dimensions);
      const expected = softmaxInPlace(softmaxLogits(model.weights, row), model.temperature);
      expect(INTENTS.map((intent) => result.probabilities[intent])).toEqual(Array.from(expected));
    }
    expect(modelAnswers).toBeGreaterThan(model.exemplars.length / 3);
  });

  it("scores a row with fixed weights exactly as softmaxLogits does", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
    const weights = { classes: 6, denseDimensions: 5, sparseDimensions: 64, dense: new Float32Array(30).map(random), sparse: new Float32Array(384).map(random), bias: new Float32Array(6).map(random) };
    const scorer = createSoftmaxScorer(weights);
    for (let n = 0; n < 20; n++) {
      const row = { dense: new Float32Array(5).map(random), sparse: { indices: Int32Array.from({ length: 9 }, (_, k) => (n * 13 + k * 7) % 64), values: new Float32Array(9).map(random) } };
      expect(Array.from(scorer(row))).toEqual(Array.from(softmaxLogits(weights, row)));
      expect(Array.from(scorer({ dense: row.dense }))).toEqual(Array.from(softmaxLogits(weights, { dense: row.dense })));
    }
  });

  it("folds and splits a question like foldText and splitWords, whatever was folded before", () => {
    for (const text of ["Café au lait, s'il vous plaît", "Łódź  łąka\tØre", "Café au lait, s'il vous plaît", ""]) {
      const folded = foldText(text);
      expect(foldedWords(text)).toEqual({ folded, words: splitWords(folded) });
    }
  });
});
