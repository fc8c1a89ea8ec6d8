import { z } from "zod";
import { IntentSchema, type Intent } from "./intent.js";

/**
 * Zod schema of {@link BackendKind}: `flowise`, `langflow`, or any other lower-case identifier
 * for a custom adapter.
 */
export const BackendKindSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,39}$/, "backend kind must be a lower-case identifier such as 'flowise'");

/** The kind of an AI-workflow platform: `flowise`, `langflow`, or a custom adapter's name. */
export type BackendKind = "flowise" | "langflow" | (string & {});

/** Identifier of a configured backend instance, e.g. `flowise-prod`. */
export const BackendIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "backend id must be 1-64 characters of letters, digits, '.', '_' or '-'");

/** Zod schema of {@link HealthStatus}. */
export const HealthStatusSchema = z.enum(["healthy", "slow", "down"]);

/** `healthy`, `slow` (answered, but over the slow threshold) or `down` (did not answer correctly). */
export type HealthStatus = z.infer<typeof HealthStatusSchema>;

/** Zod schema of {@link BackendHealth}. */
export const BackendHealthSchema = z.object({
  backendId: z.string(),
  kind: BackendKindSchema,
  status: HealthStatusSchema,
  latencyMs: z.number().nonnegative().describe("Round-trip time of the health probe."),
  checkedAt: z.iso.datetime(),
  version: z.string().optional().describe("Platform version, when the backend reports it."),
  message: z.string().optional().describe("Why the backend is slow or down (never contains secrets)."),
  errorCode: z.string().optional(),
});

/** Result of one health probe of a backend. */
export type BackendHealth = z.infer<typeof BackendHealthSchema>;

/** Zod schema of {@link UniversalFlow}. */
export const UniversalFlowSchema = z.object({
  id: z.string().min(1).describe("Gateway-wide flow id: `<backendId>:<backendFlowId>`."),
  backendId: z.string().min(1),
  backendKind: BackendKindSchema,
  backendFlowId: z.string().min(1).describe("The platform's own id (Flowise chatflow id, Langflow flow id or endpoint name)."),
  name: z.string(),
  description: z.string().optional(),
  intents: z.array(IntentSchema).describe("Intents this flow serves, best first."),
  keywords: z.array(z.string()).default([]),
  tags: z.array(z.string()).default([]),
  capabilities: z.array(z.string()).default([]).describe("E.g. `streaming`, `rag`, `agent`, `tools`, `memory`, `uploads`."),
  generalPurpose: z.boolean().default(false).describe("Suitable as a catch-all for low-confidence questions."),
  flowType: z.string().optional().describe("Platform flow type, e.g. Flowise `CHATFLOW`/`AGENTFLOW`."),
  inputTypes: z.array(z.string()).default(["text"]),
  outputTypes: z.array(z.string()).default(["text"]),
  streaming: z.boolean().optional().describe("Whether the flow streams tokens, when known."),
  cacheable: z.boolean().default(true).describe("False for flows whose answers must never be cached."),
  cacheClass: z.string().optional().describe("TTL class for the cache, e.g. `technical`, `creative`, `volatile`."),
  source: z.enum(["discovered", "configured", "merged"]).default("discovered"),
  metadata: z.record(z.string(), z.unknown()).default({}),
});

/** A flow (chatflow, agentflow, Langflow flow) on some backend, in the gateway's terms. */
export type UniversalFlow = z.infer<typeof UniversalFlowSchema>;

/** Input form of {@link UniversalFlow} (defaults not yet applied). */
export type UniversalFlowInput = z.input<typeof UniversalFlowSchema>;

/** Zod schema of {@link ChatMessage}. */
export const ChatMessageSchema = z.object({
  role: z.enum(["user", "assistant", "system"]),
  content: z.string(),
  rememberedBy: z
    .string()
    .optional()
    .describe(
      "Gateway-wide id of the flow whose platform memory already holds this message under the request's `sessionId` (it answered that turn with the session id). Adapters send such messages through the platform's memory, never again as `history`.",
    ),
});

/** One message of conversation history passed to a backend. */
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** Zod schema of a file or URL attached to a question. */
export const FlowUploadSchema = z.object({
  type: z.enum(["file", "url", "audio"]).default("file"),
  name: z.string().min(1),
  mime: z.string().min(1),
  data: z.string().describe("Base64 data (file/audio) or a URL (url)."),
});

/** Zod schema of the generation parameters of one execution. */
export const FlowParametersSchema = z.object({
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().min(1).optional(),
  /** Extra platform-specific overrides (Flowise `overrideConfig`, Langflow `tweaks`). */
  overrides: z.record(z.string(), z.unknown()).optional(),
});

/** Zod schema of {@link FlowExecutionRequest}. */
export const FlowExecutionRequestSchema = z.object({
  flowId: z.string().min(1).describe("The platform's own flow id (`UniversalFlow.backendFlowId`)."),
  question: z.string().min(1),
  sessionId: z.string().optional(),
  history: z.array(ChatMessageSchema).optional(),
  parameters: FlowParametersSchema.optional(),
  uploads: z.array(FlowUploadSchema).optional(),
  timeoutMs: z.number().int().positive().optional(),
  requestId: z.string().optional(),
});

/** What the router asks a backend to run. */
export type FlowExecutionRequest = z.infer<typeof FlowExecutionRequestSchema>;

/** Zod schema of {@link SourceDocument}. */
export const SourceDocumentSchema = z.object({
  content: z.string().optional(),
  title: z.string().optional(),
  url: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** A document a backend cited for its answer. */
export type SourceDocument = z.infer<typeof SourceDocumentSchema>;

/** Zod schema of {@link TokenUsage}. */
export const TokenUsageSchema = z.object({
  promptTokens: z.number().int().nonnegative().optional(),
  completionTokens: z.number().int().nonnegative().optional(),
  totalTokens: z.number().int().nonnegative().optional(),
});

/** Token counts, when the backend reports them. */
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

/** Zod schema of {@link FlowDeliveryReport}. */
export const FlowDeliveryReportSchema = z.object({
  parameters: z
    .object({
      applied: z.array(z.string()).describe("Parameters (`temperature`, `maxTokens`) the platform's configuration lets the flow apply."),
      ignored: z.array(z.object({ parameter: z.string(), reason: z.string() })).describe("Parameters the flow will not apply, each with why."),
      unverified: z.array(z.string()).default([]).describe("Parameters sent without knowing whether the flow applies them (its configuration was not read)."),
    })
    .optional(),
  context: z
    .object({
      historyMessages: z.number().int().nonnegative().describe("Earlier messages sent as `history`."),
      platformMemory: z.boolean().describe("True when the flow's own memory holds the session under `sessionId` and will remember this turn."),
    })
    .optional(),
});

/**
 * What an adapter actually delivered to the platform: which generation parameters the flow
 * applies or ignores (and why), and how the conversation's context reached it.
 */
export type FlowDeliveryReport = z.infer<typeof FlowDeliveryReportSchema>;

/** Zod schema of {@link FlowExecutionResult}. */
export const FlowExecutionResultSchema = z.object({
  text: z.string(),
  backendId: z.string(),
  flowId: z.string().describe("The platform's own flow id that ran."),
  sessionId: z.string().optional(),
  messageId: z.string().optional(),
  sources: z.array(SourceDocumentSchema).default([]),
  usage: TokenUsageSchema.optional(),
  followUpPrompts: z.array(z.string()).optional(),
  latencyMs: z.number().nonnegative().optional(),
  delivery: FlowDeliveryReportSchema.optional().describe("What reached the platform (parameters applied or ignored, context), when the adapter knows."),
  raw: z.unknown().describe("The backend's reply as received (validated, untrusted)."),
});

/** A backend's answer, normalised. */
export type FlowExecutionResult = z.infer<typeof FlowExecutionResultSchema>;

/** Zod schema of {@link FlowStreamChunk}. */
export const FlowStreamChunkSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("start") }),
  z.object({ type: z.literal("token"), text: z.string() }),
  z.object({ type: z.literal("sources"), sources: z.array(SourceDocumentSchema) }),
  z.object({ type: z.literal("event"), name: z.string(), data: z.unknown() }),
  z.object({ type: z.literal("end"), result: FlowExecutionResultSchema }),
]);

/**
 * One chunk of a streamed execution. A stream yields `start`?, then `token`s (and other events), and always finishes
 * with exactly one `end` whose `result.text` is the full answer.
 */
export type FlowStreamChunk = z.infer<typeof FlowStreamChunkSchema>;

/**
 * The backend specification, version 1. The router depends only on this interface; every adapter (Flowise, Langflow,
 * custom) implements it.
 * @example
 * ```ts
 * const backend: FlowBackendV1 = createFlowiseBackend({ id: "flowise", baseURL: "http://localhost:3000" });
 * const flows = await backend.discoverFlows();
 * const result = await backend.execute({ flowId: flows[0].backendFlowId, question: "hi" });
 * ```
 */
export interface FlowBackendV1 {
  /** Always `"v1"`: lets the router refuse adapters written against another spec. */
  readonly specificationVersion: "v1";
  /** Unique id of this backend instance, e.g. `flowise-prod`. */
  readonly id: string;
  /** Platform kind, e.g. `flowise`. */
  readonly kind: BackendKind;
  /** Optional per-intent capability scores (0..1) overriding the router's defaults for this kind. */
  readonly capabilities?: Partial<Record<Intent, number>>;
  /** Probes the backend. Never rejects for a down backend: returns `status: "down"` instead. */
  checkHealth(signal?: AbortSignal): Promise<BackendHealth>;
  /** Lists the backend's runnable flows, merged with the configured registry. */
  discoverFlows(signal?: AbortSignal): Promise<UniversalFlow[]>;
  /** Runs a flow and returns its full answer. */
  execute(request: FlowExecutionRequest, signal?: AbortSignal): Promise<FlowExecutionResult>;
  /** Runs a flow and streams its answer. Falls back to one `end` chunk for non-streaming flows. */
  stream?(request: FlowExecutionRequest, signal?: AbortSignal): AsyncIterable<FlowStreamChunk>;
  /** Releases resources (agents, timers). Optional. */
  close?(): Promise<void>;
}

/**
 * Builds the gateway-wide id of a flow: `<backendId>:<backendFlowId>`.
 * @example
 * ```ts
 * flowKey("flowise", "abc") // "flowise:abc"
 * ```
 */
export function flowKey(backendId: string, backendFlowId: string): string {
  return `${backendId}:${backendFlowId}`;
}
