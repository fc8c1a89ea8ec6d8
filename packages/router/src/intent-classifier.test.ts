import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AfwError, INTENTS, type Embedder, type Intent } from "@afw/contracts";
import { createHashingEmbedder } from "@afw/embeddings";
import { DEFAULT_INTENT_PATTERNS } from "./default-intent-patterns.js";
import { confidenceLevel, createIntentClassifier, type IntentClassifier } from "./intent-classifier.js";
import { hashIntentLexicon } from "./intent-lexicon.js";
import { compileIntentPatterns } from "./intent-patterns.js";
import { hashIntentExemplars, hashIntentPatterns, parseIntentExemplars, trainIntentModel } from "./intent-model.js";
import { BUNDLED_INTENT_EXEMPLARS_URL, loadBundledIntentModel } from "./intent-model-file.js";
import { collectingTrace } from "../test/fake-backend.js";
import { LONG_PROMPT_CASES } from "../test/long-prompts.js";
import { findOverlaps } from "../scripts/check-overlap-f.mjs";

/** Hashing embedder that remembers what it was asked to embed. */
function spyEmbedder(): Embedder & { seen: string[] } {
  const inner = createHashingEmbedder({ dimensions: 128 });
  const seen: string[] = [];
  return { id: inner.id, dimensions: inner.dimensions, seen, embed: (texts, signal) => (seen.push(...texts), inner.embed(texts, signal)) };
}

/** A labelled file fetched from a public repository, kept in the shared data folder, never in git (data/DATA-SOURCES.md). */
const sharedDataFile = (name: string): string | undefined => {
  const dir = process.env["AFW_SHARED_DATA"];
  const path = dir ? join(dir, name) : undefined;
  if (path && existsSync(path)) return path;
  console.warn(`[@afw/router] ${name} not found: set AFW_SHARED_DATA to the folder holding it (data/DATA-SOURCES.md); the checks that need it are skipped`);
  return undefined;
};
/** The default patterns with the fast path turned off, so every question reaches the model. */
const NO_FAST_PATH = { ...DEFAULT_INTENT_PATTERNS, fastPath: { minScore: Number.MAX_VALUE, minMargin: 0 } };
const realPromptsPath = sharedDataFile("intent-real-prompts.json");
/** The real held-out sets (data/DATA-SOURCES.md, HELDOUT-SETS-*.md) present in the shared data folder. */
const realHeldOutPaths = [
  "real-heldout-self-instruct-user-oriented.json",
  "real-heldout-ifeval.json",
  "real-heldout-gitbugs-seamonkey.json",
  "real-heldout-ifeval-2.json",
  "real-heldout-koala.json",
  "real-heldout-wizardlm.json",
  "real-heldout-alpaca-eval.json",
  "real-heldout-instructwild.json",
]
  .map(sharedDataFile)
  .filter((path): path is string => path !== undefined);

describe("bundled intent model", () => {
  it("was trained on the current exemplars, patterns and cue lexicon (run `pnpm --filter @afw/router train` after editing them)", async () => {
    const handWritten = parseIntentExemplars(await readFile(BUNDLED_INTENT_EXEMPLARS_URL, "utf8"));
    // One model per embedder the gateway's configuration offers (routing.classifierEmbedder), so no request pays for training.
    for (const embedderId of ["static-use-lite-256", "use-lite-512", "hashing-256-3"]) {
      const model = (await loadBundledIntentModel(embedderId))!;
      // The file lists the hand-written exemplars only; the labelled real prompts it was also
      // trained on are fetched data, kept out of git (their hash is checked below, with the data).
      expect(model.exemplars).toEqual(handWritten.map((e) => ({ text: e.text, intent: e.intent })));
      expect(model.patternsHash).toBe(hashIntentPatterns(compileIntentPatterns(DEFAULT_INTENT_PATTERNS)));
      expect(model.lexiconHash).toBe(hashIntentLexicon());
      expect(model.embedderId).toBe(embedderId);
    }
    expect(createHashingEmbedder().id).toBe("hashing-256-3");
  });
  it.skipIf(!realPromptsPath)("was trained on exactly the hand-written exemplars and the labelled real prompts", async () => {
    const real = JSON.parse(await readFile(realPromptsPath!, "utf8")) as { question: string; intent: Intent }[];
    const exemplars = [...parseIntentExemplars(await readFile(BUNDLED_INTENT_EXEMPLARS_URL, "utf8")), ...real.map((r) => ({ text: r.question.trim(), intent: r.intent }))];
    for (const embedderId of ["static-use-lite-256", "use-lite-512", "hashing-256-3"]) {
      const model = (await loadBundledIntentModel(embedderId))!;
      expect(model.exemplarsHash).toBe(hashIntentExemplars(exemplars));
    }
  });
  it.skipIf(!realPromptsPath || realHeldOutPaths.length === 0)("trains on no prompt of the real held-out sets (data/DATA-SOURCES.md)", async () => {
    const read = async (path: string | URL) => (JSON.parse(await readFile(path, "utf8")) as { question: string }[]).map((r) => r.question.trim().toLowerCase());
    // Set F, the hand-written held-out short questions (data/HELDOUT-SETS-2026-11-30.md), is in git; test/intent-holdout-f.test.ts also checks near repeats.
    const heldOut = new Set((await Promise.all([...realHeldOutPaths, new URL("../eval/intent-holdout-f.json", import.meta.url)].map((p) => read(p)))).flat());
    const trained = [...(await loadBundledIntentModel())!.exemplars.map((e) => e.text.trim().toLowerCase()), ...(await read(realPromptsPath!))];
    expect(heldOut.size).toBeGreaterThan(200);
    expect(trained.filter((text) => heldOut.has(text))).toEqual([]);
  });
  it.skipIf(realHeldOutPaths.length === 0)("has no hand-written exemplar that repeats or resembles (word Jaccard >= 0.5) a real held-out prompt", async () => {
    // Near repeats, not only exact ones: an exemplar written from general knowledge can land on a common request a held-out
    // set also holds ("code a tic-tac-toe game in Python"); reported by exemplar, never by the held-out text.
    const exemplars = parseIntentExemplars(await readFile(BUNDLED_INTENT_EXEMPLARS_URL, "utf8")).map((e, i) => ({ id: `exemplar ${i}: ${e.text}`, question: e.text }));
    const sources = await Promise.all(realHeldOutPaths.map(async (path) => ({ name: path, texts: (JSON.parse(await readFile(path, "utf8")) as { question: string }[]).map((r) => r.question) })));
    expect(findOverlaps(exemplars, sources)).toEqual([]);
  });
  it("has at least 60 exemplars per intent and a cross-validated evaluation", async () => {
    const model = (await loadBundledIntentModel())!;
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
    // Trains the model the classifiers without the fast path below share (one per patterns configuration and process).
    await createIntentClassifier({ embedder, patterns: NO_FAST_PATH, trainingEpochs: 8 }).warmUp();
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
    // The request at the end is decisive for the patterns; without the fast path the model sees the text.
    expect((await classifier.classify(long)).method).toBe("pattern");
    const c = await createIntentClassifier({ embedder, patterns: NO_FAST_PATH, trainingEpochs: 8 }).classify(long);
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
    // Same embedder id and patterns as above, so the model trained in beforeAll is reused from the process cache.
    const broken: Embedder = { id: embedder.id, dimensions: embedder.dimensions, embed: () => Promise.reject(new Error("model crashed")) };
    const c = await createIntentClassifier({ embedder: broken, patterns: NO_FAST_PATH, trainingEpochs: 8 }).classify("merge these two CSV files and remove duplicate rows");
    expect(c).toMatchObject({ intent: "data-processing", method: "lexical" });
    expect(c.confidence).toBeLessThan(0.9);
  });

  it("rejects with ABORTED when the signal aborts", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(createIntentClassifier({ embedder, patterns: NO_FAST_PATH, trainingEpochs: 8 }).classify("some question", { signal: controller.signal })).rejects.toMatchObject({ code: "ABORTED" });
  });

  it("trains on custom exemplars at first use", async () => {
    const custom = createIntentClassifier({
      embedder,
      patterns: NO_FAST_PATH,
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

  it("fits the temperature on the calibration items only", async () => {
    const clean = [
      ...["merge the csv files", "sum the column per month", "dedupe rows in the table", "pivot the sales table", "average of the column", "convert json to csv"].map((text) => ({ text, intent: "data-processing" as const })),
      ...["hello there friend", "how are you today", "tell me a joke", "good morning to you", "what's up buddy", "thanks a lot mate"].map((text) => ({ text, intent: "conversation" as const })),
    ];
    // Mislabelled on purpose: the out-of-fold model is confidently wrong on these.
    const wrong = [{ text: "sum the rows per month", intent: "conversation" as const }, { text: "hello how are you friend", intent: "data-processing" as const }];
    const exemplars = [...clean, ...wrong];
    const train = (calibrationIndices?: number[]) =>
      trainIntentModel({ exemplars, embedder, patterns: DEFAULT_INTENT_PATTERNS, folds: 3, training: { epochs: 10, seeds: 1 }, ...(calibrationIndices ? { calibrationIndices } : {}) });
    const [all, onWrong] = await Promise.all([train(), train([clean.length, clean.length + 1])]);
    expect(onWrong.temperature).toBeGreaterThan(all.temperature);
  });

  it("maps confidences to levels with configurable thresholds", () => {
    expect(confidenceLevel(0.85)).toBe("high");
    expect(confidenceLevel(0.6)).toBe("medium");
    expect(confidenceLevel(0.35)).toBe("low");
    expect(confidenceLevel(0.1)).toBe("none");
    expect(confidenceLevel(0.9, createIntentClassifier({ embedder, thresholds: { high: 0.95 } }).thresholds)).toBe("medium");
  });
});

/** Stands in for an embedder with the given id: counts the texts it is asked for, answers zero vectors (or never, or fails). */
function countingEmbedder(id: string, dimensions: number, behaviour: "zeros" | "never" | "overloaded" = "zeros"): Embedder & { texts: number } {
  const embedder = {
    id,
    dimensions,
    texts: 0,
    embed: (texts: readonly string[]) => {
      embedder.texts += texts.length;
      if (behaviour === "never") return new Promise<Float32Array[]>(() => {});
      if (behaviour === "overloaded") return Promise.reject(new AfwError("RATE_LIMITED", "queue full"));
      return Promise.resolve(texts.map(() => new Float32Array(dimensions)));
    },
  };
  return embedder;
}

describe("bundled models", () => {
  it("embeds every question the rules leave open, and answers less sure when an embedder passed in is overloaded or too slow", async () => {
    const question = "Merge these two CSV exports on customer id and count the duplicates";
    const embedder = countingEmbedder("use-lite-512", 512);
    const c = await createIntentClassifier({ embedder, patterns: NO_FAST_PATH }).classify(question);
    expect(c).toMatchObject({ intent: "data-processing", method: "hybrid" });
    expect(embedder.texts).toBe(1);
    for (const behaviour of ["overloaded", "never"] as const) {
      const classifier = createIntentClassifier({ embedder: countingEmbedder("use-lite-512", 512, behaviour), patterns: NO_FAST_PATH, embeddingTimeoutMs: 5 });
      const slow = await classifier.classify(question);
      expect(slow).toMatchObject({ intent: "data-processing", method: "lexical" });
      expect(slow.confidence).toBeLessThanOrEqual(0.6 + 0.4 / INTENTS.length + 1e-9);
    }
  });

  it("uses the bundled model of the hashing embedder: nothing is trained at first use", async () => {
    const inner = createHashingEmbedder();
    const embedder = countingEmbedder(inner.id, inner.dimensions);
    const classifier = createIntentClassifier({ embedder, patterns: NO_FAST_PATH });
    await classifier.warmUp();
    const c = await classifier.classify("Why does my Docker build fail with permission denied on the volume?");
    expect(c.intent).toBe("technical-analysis");
    // Training would embed every exemplar; only the warm-up sentence and at most the question were embedded.
    expect(embedder.texts).toBeLessThanOrEqual(2);
  });
});

describe("intent classifier with the default static embedder (bundled model)", () => {
  let classifier: IntentClassifier;
  beforeAll(async () => {
    classifier = createIntentClassifier();
    await classifier.warmUp();
  }, 60_000);
  afterAll(() => classifier.close?.());

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
    // Greetings: code in training data once taught the model that "hello" (a doctest string) means code.
    ["hello there", "conversation"],
    ["hello again", "conversation"],
  ] as const;
  it.each(cases)("%s -> %s", async (question, expected) => {
    const c = await classifier.classify(question);
    expect(c.intent).toBe(expected);
    expect(c.confidence).toBeGreaterThan(0.5);
  });

  describe("long prompts with pasted material", () => {
    // Written for this test from general knowledge (not from any evaluation set).
    const pythonModule = Array.from({ length: 60 }, (_, i) => `def step_${i}(rows):\n    return [r for r in rows if r.get("k${i}")]\n`).join("\n");
    const javaTrace = [
      "Exception in thread \"main\" java.lang.IllegalStateException: pool closed",
      ...Array.from({ length: 40 }, (_, i) => `    at com.shop.orders.Worker${i}.process(Worker${i}.java:${100 + i})`),
    ].join("\n");
    const csvRows = ["order_id,customer,amount,currency", ...Array.from({ length: 80 }, (_, i) => `${i},customer ${i % 7},${(i * 3.7).toFixed(2)},EUR`)].join("\n");
    const draft = Array.from(
      { length: 8 },
      (_, i) =>
        `Chapter note ${i + 1}. The ferry left the harbour late that evening and the passengers stood at the rail watching the town lights fade. ` +
        "Nobody spoke much; a child counted the gulls and an old man folded and unfolded the same newspaper.",
    ).join("\n\n");
    const cases = [
      ["pasted Python module", "technical-analysis", `I'm refactoring our import job and after the last change the tests hang forever.\n\n\`\`\`python\n${pythonModule}\`\`\`\n\nWhat did I break?`],
      ["Java stack trace", "technical-analysis", `Our order service dies at startup with this:\n\n${javaTrace}\n\nIt started after we bumped the connection pool library. Any idea?`],
      ["CSV + parser crash", "technical-analysis", `${csvRows}\n\nwhy does my parser crash on this`],
      ["CSV + totals", "data-processing", `${csvRows}\n\nTotal the amount per customer and sort the customers by that total, largest first.`],
      ["story draft", "creative-orientation", `Make this more vivid and give the old man a secret:\n\n${draft}\n\nKeep the quiet mood.`],
    ] as const;
    it.each(cases)("%s -> %s", async (_name, expected, prompt) => {
      expect(prompt.length).toBeGreaterThan(1_500);
      const c = await classifier.classify(prompt);
      expect(c.intent).toBe(expected);
    });

    // Each of the first, fourth and fifth was misrouted before prompts were read for their request.
    it.each(LONG_PROMPT_CASES)("%s <- %s", async (expected, _name, prompt) => {
      expect((await classifier.classify(prompt)).intent).toBe(expected);
    });

    it("classifies a 20,000-character prompt from its request", async () => {
      const huge = `Please review this module for a memory leak.\n\n\`\`\`python\n${pythonModule.repeat(6)}\`\`\``;
      expect(huge.length).toBeGreaterThan(20_000);
      const c = await classifier.classify(huge);
      expect(c.intent).toBe("technical-analysis");
      expect(c.matches.map((m) => m.rule)).toContain("pasted:code");
    });
  });
});
