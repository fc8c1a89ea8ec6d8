import { describe, expect, it } from "vitest";
import { createHashingEmbedder } from "@afw/embeddings";
import { patternAnalysis } from "./pattern-analysis.js";
import { keywordTokens, distinctiveKeywords } from "./keywords.js";
import { createTrafficGenerator, type SyntheticQuery } from "./test.js";

const PASSWORD = [
  "How do I reset my portal password?",
  "reset portal password please",
  "I forgot my portal password, how to reset it",
  "Portal password reset link does not arrive",
  "Where can I reset the password of the portal",
  "password reset for the portal account",
];
const INVOICES = [
  "Export invoices as PDF for the quarter",
  "export all invoices to PDF",
  "Invoices PDF export fails for March",
  "How to export invoices into one PDF",
  "PDF export of invoices is empty",
];
const BUILDS = [
  "Why does the TypeScript build fail with TS2307 in the monorepo?",
  "TypeScript build fails with TS2307 cannot find module",
  "TS2307 error in TypeScript build of the monorepo",
  "Fix TypeScript build failure TS2307 cannot find module",
];

function traffic() {
  const generator = createTrafficGenerator({
    flows: [
      { flowId: "flowise:chat", intents: ["conversation"] },
      { flowId: "flowise:etl", intents: ["data-processing"], performance: 0.9, behaviour: ({ index }) => ({ ok: index % 2 === 1, latencyMs: 300 }) },
      { flowId: "flowise:sheets", intents: ["data-processing"] },
      { flowId: "flowise:code", intents: ["technical-analysis"] },
    ],
    start: Date.UTC(2025, 3, 1),
  });
  const queries: SyntheticQuery[] = [
    ...PASSWORD.map((question, i) => ({ intent: "conversation" as const, confidence: 0.3 + i * 0.01, question, alternatives: [{ intent: "technical-analysis" as const, confidence: 0.25 }] })),
    ...INVOICES.map((question) => ({ intent: "data-processing" as const, confidence: 0.7, question })),
    ...BUILDS.map((question) => ({ intent: "technical-analysis" as const, confidence: 0.95, question })),
    { intent: "technical-analysis", confidence: 0.95, question: "Tell me about the weather on Mars" },
  ];
  for (const query of queries) generator.query(query);
  return generator;
}

describe("patternAnalysis", () => {
  it("clusters common questions and proposes intent patterns and flows", async () => {
    const generator = traffic();
    const report = await patternAnalysis({
      events: generator.events,
      range: "24h",
      now: generator.now(),
      embedder: createHashingEmbedder({ dimensions: 512 }),
      questionOf: (traceId) => generator.questions().find((q) => q.traceId === traceId)?.question,
      similarityThreshold: 0.3,
      minClusterSize: 3,
    });
    expect(report.queries).toBe(16);
    expect(report.questionsAnalysed).toBe(16);
    expect(report.questionsWithoutText).toBe(0);

    const textOf = new Map(generator.questions().map((q) => [q.traceId, q.question]));
    const members = report.clusters.map((c) => c.traceIds.map((id) => textOf.get(id)).sort());
    expect(members).toEqual([[...PASSWORD].sort(), [...INVOICES].sort(), [...BUILDS].sort()]);
    expect(report.clusters.map((c) => c.size)).toEqual([6, 5, 4]);
    expect(PASSWORD).toContain(report.clusters[0]!.representative);
    expect(report.clusters[0]!.examples).toHaveLength(5);

    const [password, invoices, builds] = report.clusters;
    expect(password).toMatchObject({ dominantIntent: "conversation", dominantShare: 1, lowConfidenceShare: 1, failureRate: 0 });
    expect(password!.keywords.slice(0, 3).sort()).toEqual(["password", "portal", "reset"]);
    expect(invoices).toMatchObject({ dominantIntent: "data-processing", fallbackRate: 0.6, meanConfidence: 0.7 });
    expect(invoices!.keywords).toEqual(expect.arrayContaining(["invoices", "pdf", "export"]));
    expect(builds).toMatchObject({ dominantIntent: "technical-analysis", meanConfidence: 0.95, fallbackRate: 0 });

    expect(report.proposals).toEqual([
      expect.objectContaining({ kind: "intent-pattern", intent: "conversation", clusterId: password!.id, support: 6 }),
      expect.objectContaining({ kind: "new-flow", intent: "data-processing", clusterId: invoices!.id, support: 5 }),
    ]);
    expect(report.proposals[0]!.keywords).toEqual(password!.keywords);

    expect(report.fallbackIntents).toEqual([
      {
        intent: "data-processing",
        queries: 5,
        fallbackQueries: 3,
        fallbackRate: 0.6,
        failedQueries: 0,
        failureRate: 0,
        topPaths: [{ fromFlowId: "flowise:etl", toFlowId: "flowise:sheets", count: 3 }],
      },
    ]);
    expect(report.lowConfidence.map((q) => q.question)).toEqual(PASSWORD);
    expect(report.lowConfidence[0]).toMatchObject({ intent: "conversation", confidence: 0.3, alternatives: [{ intent: "technical-analysis", confidence: 0.25 }] });
  });

  it("reports questions without text and works without any", async () => {
    const generator = traffic();
    const report = await patternAnalysis({ events: generator.events, range: "24h", now: generator.now(), embedder: createHashingEmbedder() });
    expect(report.questionsAnalysed).toBe(0);
    expect(report.questionsWithoutText).toBe(16);
    expect(report.clusters).toEqual([]);
    expect(report.lowConfidence).toHaveLength(6);
    expect(report.lowConfidence[0]!.question).toBeNull();
    expect(report.fallbackIntents.map((f) => f.intent)).toEqual(["data-processing"]);
  });
});

describe("keywords", () => {
  it("drops stopwords, short words and numbers", () => {
    expect(keywordTokens("How do I restart the Kubernetes pod 42 on v2?")).toEqual(["restart", "kubernetes", "pod"]);
  });

  it("prefers words that characterise the group", () => {
    const corpus = ["reset the password", "password reset link", "export invoices", "export reports", "the weather"];
    expect(distinctiveKeywords(corpus.slice(0, 2), corpus, { limit: 2 })).toEqual(["password", "reset"]);
  });
});

describe("patternAnalysis with the Universal Sentence Encoder", () => {
  it("groups paraphrases that share few words", async () => {
    const { createUseEmbedder } = await import("@afw/embeddings");
    const generator = createTrafficGenerator({ flows: [{ flowId: "flowise:chat", intents: ["conversation"] }], start: Date.UTC(2025, 3, 1) });
    const login = ["I forgot my password and cannot log in", "How can I recover access to my account?", "My login credentials stopped working, help me sign in"];
    const food = ["What is a good recipe for lasagna?", "How do I cook a tasty Italian pasta bake?", "Suggest an easy dinner with pasta and cheese"];
    for (const question of [...login, ...food]) generator.query({ intent: "conversation", confidence: 0.4, question });
    const report = await patternAnalysis({
      events: generator.events,
      range: "24h",
      now: generator.now(),
      embedder: createUseEmbedder(),
      questionOf: (traceId) => generator.questions().find((q) => q.traceId === traceId)?.question,
      similarityThreshold: 0.45,
      minClusterSize: 2,
    });
    const textOf = new Map(generator.questions().map((q) => [q.traceId, q.question]));
    const members = report.clusters.map((c) => c.traceIds.map((id) => textOf.get(id)!).sort());
    expect(members).toHaveLength(2);
    expect(members).toContainEqual([...login].sort());
    expect(members).toContainEqual([...food].sort());
  }, 30_000);
});
