import { MAX_QUESTION_LENGTH } from "@afw/contracts";
import { createIntentClassifier, loadIntentPatterns } from "@afw/router";
import { GatewayConfigSchema } from "@afw/server";
import { answerJsonLines, writeJsonLine } from "../json-lines.js";
import type { CommandIo } from "./io.js";

/** Options of `afw classify`. */
export interface ClassifyOptions {
  /** One question; when absent, JSON lines are read from stdin. */
  question?: string | undefined;
  /** Optional intent-pattern file (YAML/JSON) to use instead of the defaults. */
  config?: string | undefined;
}

function checkQuestion(question: unknown): string | undefined {
  if (typeof question !== "string") return "question must be a string";
  if (!question.trim()) return "question must not be empty";
  if (question.length > MAX_QUESTION_LENGTH) return `question must be at most ${MAX_QUESTION_LENGTH} characters`;
  return undefined;
}

/** `afw classify [QUESTION]`: prints `{"intent","confidence","method","alternatives"}` (and `cascade`, which stage answered)
 * for one question, or answers JSON lines `{"id","question"}` on stdin with `{"id","intent","confidence"}`. Classifies as the
 * gateway does by default (`routing.classifierEmbedder: auto`: the cascade where onnxruntime-node is installed). */
export async function classifyCommand(options: ClassifyOptions, io: CommandIo): Promise<number> {
  const patterns = options.config ? { patterns: await loadIntentPatterns(options.config) } : {};
  const routing = GatewayConfigSchema.parse({}).routing;
  const classifier = createIntentClassifier({ ...patterns, ...(routing.classifierEmbedder === "cascade" ? { cascade: routing.cascade } : {}) });
  try {
    // loads both models up front, so that the first question the static model is unsure of is not answered without the second
    await classifier.warmUp();
    if (options.question !== undefined) {
      const problem = checkQuestion(options.question);
      if (problem) return io.fail(problem);
      const result = await classifier.classify(options.question);
      const cascade = result.cascade ? { cascade: result.cascade } : {};
      await writeJsonLine(io.stdout, { intent: result.intent, confidence: round(result.confidence), method: result.method, ...cascade, alternatives: result.alternatives });
      return 0;
    }
    await answerJsonLines(io.stdin, io.stdout, async (value) => {
      const problem = checkQuestion(value["question"]);
      if (problem) throw new Error(problem);
      const result = await classifier.classify(value["question"] as string);
      return { intent: result.intent, confidence: round(result.confidence) };
    });
    return 0;
  } finally {
    // stops the cascade's embedding worker
    await classifier.close?.();
  }
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
