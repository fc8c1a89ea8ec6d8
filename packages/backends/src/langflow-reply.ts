import { z } from "zod";
import { asRecord, nonEmptyString } from "./reply-utils.js";

/** Zod schema of one `ResultData` in a Langflow run reply (lenient). */
export const LangflowResultDataSchema = z.looseObject({
  results: z.unknown().optional(),
  artifacts: z.unknown().optional(),
  outputs: z.unknown().optional(),
  messages: z.array(z.unknown()).nullish(),
  component_id: z.string().nullish(),
  component_display_name: z.string().nullish(),
});

/**
 * Zod schema of a Langflow run reply (`POST /api/v1/run/{id}`):
 * `{session_id, outputs: [{inputs, outputs: [ResultData | null]}]}`.
 */
export const LangflowRunResponseSchema = z.looseObject({
  session_id: z.string().nullish(),
  outputs: z.array(
    z.looseObject({
      inputs: z.unknown().optional(),
      outputs: z.array(LangflowResultDataSchema.nullable()),
    }),
  ),
});

/** A validated Langflow run reply. */
export type LangflowRunResponse = z.infer<typeof LangflowRunResponseSchema>;

/** Zod schema of one flow of `GET /api/v1/flows/`. */
export const LangflowFlowSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().nullish(),
  description: z.string().nullish(),
  endpoint_name: z.string().nullish(),
  tags: z.array(z.string()).nullish(),
  folder_id: z.string().nullish(),
  is_component: z.boolean().nullish(),
  data: z.unknown().optional(),
  updated_at: z.unknown().optional(),
  webhook: z.boolean().nullish(),
});

/** One Langflow flow as listed. */
export type LangflowFlow = z.infer<typeof LangflowFlowSchema>;

/** Zod schema of the flow listing: an array (`get_all=true`) or a page object. */
export const LangflowFlowListSchema = z.union([
  z.array(LangflowFlowSchema),
  z.looseObject({
    items: z.array(LangflowFlowSchema),
    total: z.number().int().nonnegative(),
    page: z.number().int().nonnegative(),
    size: z.number().int().nonnegative(),
    pages: z.number().int().nonnegative(),
  }),
]);

/** Zod schema of `GET /health_check` (`{status, chat, db}`) and `GET /health` (`{status}`). */
export const LangflowHealthSchema = z.looseObject({
  status: z.string(),
  chat: z.string().nullish(),
  db: z.string().nullish(),
});

/** The answer found in a Langflow reply, with the message id that came with it. */
export interface LangflowAnswer {
  text: string;
  messageId?: string | undefined;
}

function idOf(value: unknown): string | undefined {
  return typeof value === "string" && value ? value : typeof value === "number" ? String(value) : undefined;
}

function answerFromResult(result: z.infer<typeof LangflowResultDataSchema>): LangflowAnswer | undefined {
  const results = asRecord(result.results);
  // 1. results.message.text (Message object), or results.message.data.text
  const message = results?.["message"];
  const messageRecord = asRecord(message);
  if (messageRecord) {
    const data = asRecord(messageRecord["data"]);
    const text = typeof messageRecord["text"] === "string" ? messageRecord["text"] : typeof data?.["text"] === "string" ? (data["text"] as string) : undefined;
    if (text !== undefined && (text.length > 0 || !hasOtherText(result))) {
      return { text, messageId: idOf(messageRecord["id"]) ?? idOf(data?.["id"]) };
    }
  } else if (typeof message === "string") {
    return { text: message };
  }
  // 2. outputs.<name>.message, e.g. outputs.message.message
  const outputs = asRecord(result.outputs);
  if (outputs) {
    for (const value of Object.values(outputs)) {
      const output = asRecord(value);
      const text = nonEmptyString(output?.["message"]) ?? nonEmptyString(asRecord(output?.["message"])?.["text"]);
      if (text !== undefined) return { text };
    }
  }
  // 3. messages[].message (last one)
  for (let index = (result.messages?.length ?? 0) - 1; index >= 0; index -= 1) {
    const item = asRecord(result.messages?.[index]);
    const text = nonEmptyString(item?.["message"]) ?? nonEmptyString(item?.["text"]);
    if (text !== undefined) return { text, messageId: idOf(item?.["id"]) };
  }
  // 4. artifacts.message / artifacts.text
  const artifacts = asRecord(result.artifacts);
  const artifactText = nonEmptyString(artifacts?.["message"]) ?? nonEmptyString(artifacts?.["text"]) ?? nonEmptyString(artifacts?.["repr"]);
  if (artifactText !== undefined) return { text: artifactText };
  // 5. any results.<name>.text (text outputs, Data objects)
  if (results) {
    for (const value of Object.values(results)) {
      const record = asRecord(value);
      const text = nonEmptyString(value) ?? nonEmptyString(record?.["text"]) ?? nonEmptyString(asRecord(record?.["data"])?.["text"]);
      if (text !== undefined) return { text };
    }
  }
  return undefined;
}

function hasOtherText(result: z.infer<typeof LangflowResultDataSchema>): boolean {
  return (result.messages?.length ?? 0) > 0 || asRecord(result.outputs) !== undefined;
}

/**
 * Extracts the answer from a Langflow run reply, whatever its shape: `outputs[i].outputs[j].results.message.text`,
 * `.results.message.data.text`, `.outputs.message.message`, `.messages[].message`, `.artifacts.message`, or any text
 * result.
 * @example
 * ```ts
 * extractLangflowAnswer({ outputs: [{ outputs: [{ results: { message: { text: "Hi" } } }] }] })?.text // "Hi"
 * ```
 */
export function extractLangflowAnswer(reply: LangflowRunResponse): LangflowAnswer | undefined {
  const results = reply.outputs.flatMap((run) => run.outputs.filter((item): item is NonNullable<typeof item> => item !== null));
  const ordered = [
    ...results.filter((result) => /chat ?output/i.test(result.component_id ?? result.component_display_name ?? "")),
    ...results.filter((result) => !/chat ?output/i.test(result.component_id ?? result.component_display_name ?? "")),
  ];
  for (const result of ordered) {
    const answer = answerFromResult(result);
    if (answer) return answer;
  }
  return undefined;
}
