import type { SourceDocument, TokenUsage } from "@afw/contracts";
import { z } from "zod";

/** Zod schema of one stream event of either platform (`{"event": "...", "data": ...}`: a Flowise SSE frame's JSON, a Langflow stream object). */
export const StreamEventSchema = z.looseObject({ event: z.string().min(1), data: z.unknown().optional() });

/** Narrows to a plain object. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A non-empty trimmed-check string, or undefined. */
export function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value.trim().length > 0 ? value : undefined;
}

/** Distinct non-empty strings `read` finds in the data of a flow graph's first 500 nodes, for intent inference. */
export function nodeHints(nodes: unknown, read: (data: Record<string, unknown> | undefined) => unknown[]): string[] {
  const hints = new Set<string>();
  for (const node of Array.isArray(nodes) ? nodes.slice(0, 500) : []) {
    for (const value of read(asRecord(asRecord(node)?.["data"]))) {
      const hint = nonEmptyString(value);
      if (hint) hints.add(hint);
    }
  }
  return [...hints];
}

const USAGE_KEYS = ["usage", "usageMetadata", "usage_metadata", "tokenUsage", "token_usage", "llmOutput"];
const PROMPT_KEYS = ["promptTokens", "prompt_tokens", "inputTokens", "input_tokens"];
const COMPLETION_KEYS = ["completionTokens", "completion_tokens", "outputTokens", "output_tokens"];
const TOTAL_KEYS = ["totalTokens", "total_tokens"];

function count(record: Record<string, unknown>, keys: readonly string[]): number | undefined {
  for (const key of keys) {
    const value = record[key];
    if (typeof value === "number" && Number.isInteger(value) && value >= 0) return value;
  }
  return undefined;
}

function usageFromRecord(record: Record<string, unknown>): TokenUsage | undefined {
  const promptTokens = count(record, PROMPT_KEYS);
  const completionTokens = count(record, COMPLETION_KEYS);
  let totalTokens = count(record, TOTAL_KEYS);
  if (promptTokens === undefined && completionTokens === undefined && totalTokens === undefined) return undefined;
  if (totalTokens === undefined && promptTokens !== undefined && completionTokens !== undefined) totalTokens = promptTokens + completionTokens;
  return {
    ...(promptTokens !== undefined ? { promptTokens } : {}),
    ...(completionTokens !== undefined ? { completionTokens } : {}),
    ...(totalTokens !== undefined ? { totalTokens } : {}),
  };
}

/**
 * Finds token usage in a reply: looks for `usage`, `usageMetadata`, `usage_metadata`, `tokenUsage`, `token_usage`
 * objects (OpenAI, LangChain and platform spellings) up to a few levels deep and in the last items of arrays.
 * @example
 * ```ts
 * findUsage({ usageMetadata: { input_tokens: 3, output_tokens: 4 } }) // { promptTokens: 3, completionTokens: 4, totalTokens: 7 }
 * ```
 */
export function findUsage(value: unknown, depth = 0): TokenUsage | undefined {
  if (depth > 6) return undefined;
  if (Array.isArray(value)) {
    for (let index = value.length - 1; index >= Math.max(0, value.length - 20); index -= 1) {
      const found = findUsage(value[index], depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  const record = asRecord(value);
  if (!record) return undefined;
  for (const key of USAGE_KEYS) {
    const nested = asRecord(record[key]);
    if (nested) {
      const usage = usageFromRecord(nested) ?? findUsage(nested, depth + 1);
      if (usage) return usage;
    }
  }
  for (const [key, nested] of Object.entries(record)) {
    if (USAGE_KEYS.includes(key) || typeof nested !== "object" || nested === null) continue;
    const found = findUsage(nested, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * Converts LangChain-style documents (`{pageContent, metadata}`) into {@link SourceDocument}s.
 * Items that are not objects are skipped.
 */
export function toSourceDocuments(value: unknown): SourceDocument[] {
  if (!Array.isArray(value)) return [];
  const sources: SourceDocument[] = [];
  for (const item of value) {
    const record = asRecord(item);
    if (!record) continue;
    const metadata = asRecord(record["metadata"]);
    const content = nonEmptyString(record["pageContent"]) ?? nonEmptyString(record["content"]) ?? nonEmptyString(record["text"]);
    const sourceField = nonEmptyString(metadata?.["source"]);
    const url = nonEmptyString(metadata?.["url"]) ?? (sourceField && /^https?:\/\//i.test(sourceField) ? sourceField : undefined);
    const title = nonEmptyString(metadata?.["title"]) ?? nonEmptyString(record["title"]) ?? (sourceField && !url ? sourceField : undefined);
    sources.push({
      ...(content !== undefined ? { content } : {}),
      ...(title !== undefined ? { title } : {}),
      ...(url !== undefined ? { url } : {}),
      ...(metadata ? { metadata } : {}),
    });
  }
  return sources;
}
