import { MAX_QUESTION_LENGTH } from "@afw/contracts";
import { createIntentClassifier, loadIntentPatterns } from "@afw/router";
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

/** `afw classify [QUESTION]`: prints `{"intent","confidence","method","alternatives"}` for one question, or answers
 * JSON lines `{"id","question"}` on stdin with `{"id","intent","confidence"}`. */
export async function classifyCommand(options: ClassifyOptions, io: CommandIo): Promise<number> {
  const classifier = createIntentClassifier(options.config ? { patterns: await loadIntentPatterns(options.config) } : {});
  if (options.question !== undefined) {
    const problem = checkQuestion(options.question);
    if (problem) return io.fail(problem);
    const result = await classifier.classify(options.question);
    await writeJsonLine(io.stdout, { intent: result.intent, confidence: round(result.confidence), method: result.method, alternatives: result.alternatives });
    return 0;
  }
  await answerJsonLines(io.stdin, io.stdout, async (value) => {
    const problem = checkQuestion(value["question"]);
    if (problem) throw new Error(problem);
    const result = await classifier.classify(value["question"] as string);
    return { intent: result.intent, confidence: round(result.confidence) };
  });
  return 0;
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
