import { createHash } from "node:crypto";

const WHITESPACE = /\s+/gu;
const TRAILING_PUNCTUATION = /[\s\p{P}]+$/u;

/**
 * Normalises a question for cache keys: Unicode NFKC, lower case, runs of whitespace collapsed to one space,
 * leading/trailing whitespace and trailing punctuation removed.
 * @example
 * ```ts
 * normalizeQuestion("  How do I  RESTART a pod?? ") // "how do i restart a pod"
 * ```
 */
export function normalizeQuestion(question: string): string {
  return question.normalize("NFKC").toLowerCase().replace(WHITESPACE, " ").trim().replace(TRAILING_PUNCTUATION, "");
}

/**
 * SHA-256 (hex) of a question already passed through {@link normalizeQuestion}: the question part of a cache key.
 * @example
 * ```ts
 * hashNormalizedQuestion(normalizeQuestion("Why?")) === hashNormalizedQuestion(normalizeQuestion("why")) // true
 * ```
 */
export function hashNormalizedQuestion(normalized: string): string {
  return createHash("sha256").update(normalized, "utf8").digest("hex");
}
