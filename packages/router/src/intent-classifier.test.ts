import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { INTENTS, type Embedder } from "@afw/contracts";
import { createHashingEmbedder } from "@afw/embeddings";
import { DEFAULT_INTENT_PATTERNS } from "./default-intent-patterns.js";
import { confidenceLevel, createIntentClassifier, type IntentClassifier } from "./intent-classifier.js";
import { hashIntentLexicon } from "./intent-lexicon.js";
import { compileIntentPatterns } from "./intent-patterns.js";
import {
  BUNDLED_INTENT_EXEMPLARS_URL,
  hashIntentExemplars,
  hashIntentPatterns,
  loadBundledIntentModel,
  parseIntentExemplars,
} from "./intent-model.js";
import { collectingTrace } from "../test/fake-backend.js";

/** Hashing embedder that remembers what it was asked to embed. */
function spyEmbedder(): Embedder & { seen: string[] } {
  const inner = createHashingEmbedder({ dimensions: 128 });
  const seen: string[] = [];
  return { id: inner.id, dimensions: inner.dimensions, seen, embed: (texts, signal) => (seen.push(...texts), inner.embed(texts, signal)) };
}

describe("bundled intent model", () => {
  it("was trained on the current exemplars, patterns and cue lexicon (run `pnpm --filter @afw/router train` after editing them)", async () => {
    const exemplars = parseIntentExemplars(await readFile(BUNDLED_INTENT_EXEMPLARS_URL, "utf8"));
    const model = await loadBundledIntentModel();
    expect(model.exemplarsHash).toBe(hashIntentExemplars(exemplars));
    expect(model.patternsHash).toBe(hashIntentPatterns(compileIntentPatterns(DEFAULT_INTENT_PATTERNS)));
    expect(model.lexiconHash).toBe(hashIntentLexicon());
    expect(model.embedderId).toBe("use-lite-512");
    expect(model.exemplars.length).toBe(exemplars.length);
  });
  it("has at least 60 exemplars per intent and a cross-validated evaluation", async () => {
    const model = await loadBundledIntentModel();
    for (const intent of INTENTS) expect(model.exemplars.filter((e) => e.intent === intent).length).toBeGreaterThanOrEqual(60);
    expect(model.evaluation?.folds).toBeGreaterThanOrEqual(5);
    expect(model.temperature).toBeGreaterThan(0);
  });
});

describe("intent classifier (hashing embedder, model retrained at first use)", () => {
  let classifier: IntentClassifier;
  let embedder: ReturnType<typeof spyEmbedder>;
  beforeAll(async () => {
    embedder = spyEmbedder();
    classifier = createIntentClassifier({ embedder, trainingEpochs: 8 });
    await classifier.warmUp();
  });

  it("explicit intent always wins", async () => {
    const c = await classifier.classify("Traceback (most recent call last): KeyError 'id'", { intent: "creative-orientation" });
    expect(c).toMatchObject({ intent: "creative-orientation", confidence: 1, method: "explicit", level: "high" });
  });

  it("empty input gets the default intent with no confidence", async () => {
    for (const q of ["", "   \n\t "]) {
      const c = await classifier.classify(q);
      expect(c).toMatchObject({ intent: "conversation", confidence: 0, method: "default", level: "none" });
    }
    const custom = createIntentClassifier({ embedder, defaultIntent: "rag-retrieval", trainingEpochs: 8 });
    expect((await custom.classify("")).intent).toBe("rag-retrieval");
  });

  it("lets decisive patterns answer alone (fast path) without embedding", async () => {
    const before = embedder.seen.length;
    const c = await classifier.classify("NullPointerException at Checkout.java:12 - here's the stack trace, help me debug it");
    expect(c.method).toBe("pattern");
    expect(c.intent).toBe("technical-analysis");
    expect(c.confidence).toBeGreaterThan(0.9);
    expect(embedder.seen.length).toBe(before);
  });

  it("combines the model with patterns when keywords of several intents occur", async () => {
    const c = await classifier.classify("convert the csv export and explain the architecture of the pipeline");
    expect(c.method).toBe("hybrid");
    expect(c.matches.map((m) => m.intent)).toEqual(expect.arrayContaining(["data-processing", "structural-thinking"]));
    expect(c.alternatives.length).toBeGreaterThan(0);
    expect(c.alternatives[0]!.confidence).toBeLessThanOrEqual(c.confidence);
    const sum = Object.values(c.probabilities).reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(1, 5);
  });

  it("is less confident on gibberish than on a clear question", async () => {
    const gibberish = await classifier.classify("zxq vlorp 77 mmm");
    const clear = await classifier.classify("Hello! How are you doing today?");
    expect(clear.intent).toBe("conversation");
    expect(gibberish.confidence).toBeLessThan(clear.confidence);
  });

  it("classifies very long input in bounded time and sends at most 1000 characters to the model", async () => {
    const long = `${"We have many tables and columns to merge. ".repeat(800)} Please aggregate totals per month.`;
    const started = performance.now();
    const c = await classifier.classify(long);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(INTENTS).toContain(c.intent);
    const sent = embedder.seen.at(-1)!;
    expect(sent.length).toBeLessThanOrEqual(1_000);
    expect(sent.endsWith("Please aggregate totals per month.")).toBe(true);
  });

  it("emits intent-classified on the trace", async () => {
    const trace = collectingTrace();
    await classifier.classify("hola, ¿qué tal?", { trace });
    expect(trace.ofType("intent-classified")[0]).toMatchObject({ intent: "conversation" });
  });

  it("falls back to words and patterns when the embedder fails", async () => {
    // Same embedder id as above, so the model trained in beforeAll is reused from the process cache.
    const broken: Embedder = { id: embedder.id, dimensions: embedder.dimensions, embed: () => Promise.reject(new Error("model crashed")) };
    const c = await createIntentClassifier({ embedder: broken, fastPath: false, trainingEpochs: 8 }).classify("merge these two CSV files and remove duplicate rows");
    expect(c).toMatchObject({ intent: "data-processing", method: "pattern" });
    expect(c.confidence).toBeLessThan(0.9);
  });

  it("rejects with ABORTED when the signal aborts", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(createIntentClassifier({ embedder, fastPath: false, trainingEpochs: 8 }).classify("some question", { signal: controller.signal })).rejects.toMatchObject({ code: "ABORTED" });
  });

  it("trains on custom exemplars at first use", async () => {
    const custom = createIntentClassifier({
      embedder,
      fastPath: false,
      trainingEpochs: 20,
      exemplars: [
        { text: "zorblat the frobnicator", intent: "data-processing" },
        { text: "zorblat frobnicator again", intent: "data-processing" },
        { text: "quux wibble wobble", intent: "creative-orientation" },
        { text: "wibble wobble quux", intent: "creative-orientation" },
      ],
    });
    expect((await custom.classify("please zorblat this frobnicator")).intent).toBe("data-processing");
    expect((await custom.classify("a wibble and a wobble")).intent).toBe("creative-orientation");
  });

  it("maps confidences to levels with configurable thresholds", () => {
    expect(confidenceLevel(0.85)).toBe("high");
    expect(confidenceLevel(0.6)).toBe("medium");
    expect(confidenceLevel(0.35)).toBe("low");
    expect(confidenceLevel(0.1)).toBe("none");
    expect(createIntentClassifier({ embedder, thresholds: { high: 0.95 } }).level(0.9)).toBe("medium");
  });
});

describe("intent classifier with the Universal Sentence Encoder (bundled model)", () => {
  let classifier: IntentClassifier;
  beforeAll(async () => {
    classifier = createIntentClassifier();
    await classifier.warmUp();
  }, 60_000);

  // Questions written for this test (not from the dev or holdout sets), one per intent, with few or misleading keywords.
  const cases = [
    ["Help me picture what my pottery practice could become if I stopped copying other people.", "creative-orientation"],
    ["After the upgrade our Python worker dies with 'RecursionError: maximum recursion depth exceeded'.", "technical-analysis"],
    ["Should billing and invoicing be separate services or one module with two tables?", "structural-thinking"],
    ["What's a good way to spend a lazy Sunday in Rome?", "conversation"],
    ["What does our parental leave policy say about adoption?", "rag-retrieval"],
    ["Compute the average order value per country from the orders export and sort it descending.", "data-processing"],
    ["¿Qué dice el reglamento interno sobre las horas extra?", "rag-retrieval"],
    ["Hoe kunnen we de facturatie loskoppelen van de rest van het platform?", "structural-thinking"],
    ["Calcola la media degli ordini per cliente da questo foglio.", "data-processing"],
    ["Is it worth learning chess as an adult, or is it mostly for kids?", "conversation"],
  ] as const;
  it.each(cases)("%s -> %s", async (question, expected) => {
    const c = await classifier.classify(question);
    expect(c.intent).toBe(expected);
    expect(c.confidence).toBeGreaterThan(0.5);
  });
});
