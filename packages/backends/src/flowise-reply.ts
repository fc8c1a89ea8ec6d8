import { createParser } from "eventsource-parser";
import { z } from "zod";
import { asRecord, nonEmptyString } from "./reply-utils.js";
import { parseJsonBounded } from "./json-limits.js";

const optionalString = z.string().nullish();

/** A LangChain document as Flowise returns it in `sourceDocuments`. */
export const FlowiseSourceDocumentSchema = z.looseObject({
  pageContent: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});

/**
 * Zod schema of a Flowise prediction reply (`POST /api/v1/prediction/{id}`): lenient on fields we
 * do not use, strict on the ones we do.
 */
export const FlowisePredictionSchema = z.looseObject({
  text: optionalString,
  json: z.unknown().optional(),
  chatMessageId: optionalString,
  sessionId: optionalString,
  memoryType: optionalString,
  followUpPrompts: z.union([z.string(), z.array(z.string())]).nullish(),
  sourceDocuments: z.array(FlowiseSourceDocumentSchema).nullish(),
  agentReasoning: z.array(z.unknown()).nullish(),
  agentFlowExecutedData: z.array(z.unknown()).nullish(),
});

/** A validated Flowise prediction reply. */
export type FlowisePrediction = z.infer<typeof FlowisePredictionSchema>;

/** Zod schema of one chatflow in `GET /api/v1/chatflows`. */
export const FlowiseChatflowSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().nullish(),
  flowData: z.string().nullish(),
  deployed: z.boolean().nullish(),
  isPublic: z.boolean().nullish(),
  apikeyid: z.string().nullish(),
  apiConfig: z.string().nullish(),
  category: z.string().nullish(),
  type: z.string().nullish(),
  description: z.string().nullish(),
  updatedDate: z.unknown().optional(),
});

/** One Flowise chatflow as listed. */
export type FlowiseChatflow = z.infer<typeof FlowiseChatflowSchema>;

/** Zod schema of the chatflow listing: an array, or `{data, total}` when paginated. */
export const FlowiseChatflowListSchema = z.union([
  z.array(FlowiseChatflowSchema),
  z.looseObject({ data: z.array(FlowiseChatflowSchema), total: z.number().int().nonnegative() }),
]);

/** Zod schema of `GET /api/v1/chatflows-streaming/{id}`. */
export const FlowiseStreamingCheckSchema = z.looseObject({ isStreaming: z.boolean() });

const TEXT_KEYS = ["text", "answer", "output", "content", "response", "result", "message"];

function textFromJson(json: unknown): string | undefined {
  if (typeof json === "string") return json;
  const record = asRecord(json);
  if (record) {
    for (const key of TEXT_KEYS) {
      const value = nonEmptyString(record[key]);
      if (value !== undefined) return value;
    }
  }
  if (json === undefined || json === null) return undefined;
  return JSON.stringify(json);
}

function textFromAgentFlow(executed: readonly unknown[]): string | undefined {
  for (let index = executed.length - 1; index >= 0; index -= 1) {
    const node = asRecord(executed[index]);
    const data = asRecord(node?.["data"]);
    const output = asRecord(data?.["output"]);
    const content = nonEmptyString(output?.["content"]) ?? nonEmptyString(output?.["text"]);
    if (content !== undefined) return content;
  }
  return undefined;
}

function textFromReasoning(reasoning: readonly unknown[]): string | undefined {
  for (let index = reasoning.length - 1; index >= 0; index -= 1) {
    const step = asRecord(reasoning[index]);
    if (!step) continue;
    const messages = Array.isArray(step["messages"]) ? (step["messages"] as unknown[]) : [];
    for (let m = messages.length - 1; m >= 0; m -= 1) {
      const message = nonEmptyString(messages[m]);
      if (message !== undefined) return message;
    }
    const instructions = nonEmptyString(step["instructions"]);
    if (instructions !== undefined) return instructions;
  }
  return undefined;
}

/**
 * Extracts the answer text of a Flowise reply, whatever its shape: `text` (chatflows), `json` (structured-output chains:
 * a string field such as `text`/`answer`/`output`, else the JSON itself), the last node output of
 * `agentFlowExecutedData` (agentflows v2), the last message of `agentReasoning` (multi-agent flows).
 * @example
 * ```ts
 * extractFlowiseText({ text: "Paris" }) // "Paris"
 * extractFlowiseText({ json: { answer: "42" } }) // "42"
 * ```
 */
export function extractFlowiseText(reply: FlowisePrediction): string | undefined {
  const text = nonEmptyString(reply.text);
  if (text !== undefined) return text;
  const fromJson = reply.json !== undefined ? textFromJson(reply.json) : undefined;
  if (fromJson !== undefined) return fromJson;
  const fromAgentFlow = reply.agentFlowExecutedData ? textFromAgentFlow(reply.agentFlowExecutedData) : undefined;
  if (fromAgentFlow !== undefined) return fromAgentFlow;
  const fromReasoning = reply.agentReasoning ? textFromReasoning(reply.agentReasoning) : undefined;
  if (fromReasoning !== undefined) return fromReasoning;
  return typeof reply.text === "string" ? reply.text : undefined;
}

/** Flowise sends `followUpPrompts` as a JSON string of an array; accepts an array too. */
export function parseFollowUpPrompts(value: string | string[] | null | undefined): string[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value !== "string" || !value.trim()) return undefined;
  try {
    const parsed: unknown = parseJsonBounded(value);
    return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === "string") : undefined;
  } catch {
    return undefined;
  }
}

// A whole `message:` / `message` line (Flowise writes one before each frame's `data:`).
const FLOWISE_MESSAGE_LINE = /(?<=\n)message:?\n/g;

/**
 * Reads a Flowise SSE body: feed it the byte chunks as they arrive (cut anywhere, also inside a multi-byte character or
 * a line end); each call returns the `data` of the frames completed so far.
 */
export function createFlowiseFrameReader(): { push(chunk: Uint8Array): string[]; finish(): string[] } {
  const decoder = new TextDecoder();
  let frames: string[] = [];
  const parser = createParser({ onEvent: (event) => frames.push(event.data) });
  const take = (text: string): string[] => {
    parser.feed(text.replace(FLOWISE_MESSAGE_LINE, ""));
    const completed = frames;
    frames = [];
    return completed;
  };
  return { push: (chunk) => take(decoder.decode(chunk, { stream: true })), finish: () => take(decoder.decode()) };
}
