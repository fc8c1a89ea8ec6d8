import { z } from "zod";
import { BackendIdSchema, IntentSchema } from "@afw/contracts";
import type { ConnectPolicy, HostLookup } from "./address-policy.js";

/**
 * Where a generation parameter goes on the platform: `param` is the Flowise `overrideConfig` key or the Langflow tweak
 * parameter; `node` is the Flowise node id or the Langflow component id.
 * @example
 * ```ts
 * const flowiseTemperature: ParameterTarget = { node: "chatOpenAI_0", param: "temperature" };
 * const langflowMaxTokens: ParameterTarget = { node: "OpenAIModel-x9K2a", param: "max_tokens" };
 * ```
 */
export const ParameterTargetSchema = z.strictObject({
  node: z.string().min(1).optional().describe("Flowise node id or Langflow component id."),
  param: z.string().min(1).describe("Flowise overrideConfig key or Langflow tweak parameter."),
});

/** See {@link ParameterTargetSchema}. */
export type ParameterTarget = z.infer<typeof ParameterTargetSchema>;

/** Zod schema of a parameter mapping: where `temperature`, `maxTokens` and `history` go. */
export const ParameterMappingSchema = z.strictObject({
  temperature: ParameterTargetSchema.optional(),
  maxTokens: ParameterTargetSchema.optional(),
  history: ParameterTargetSchema.optional().describe(
    "Where to put a plain-text transcript of `history` for platforms without native history (Langflow).",
  ),
});

/** Which platform parameter receives `temperature`, `maxTokens` and (optionally) the history transcript. */
export type ParameterMapping = z.infer<typeof ParameterMappingSchema>;

/** Zod schema of a configured flow entry. */
export const ConfiguredFlowSchema = z.strictObject({
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  intents: z.array(IntentSchema).optional(),
  keywords: z.array(z.string()).optional(),
  tags: z.array(z.string()).optional(),
  capabilities: z.array(z.string()).optional(),
  generalPurpose: z.boolean().optional(),
  cacheable: z.boolean().optional(),
  cacheClass: z.string().optional(),
  streaming: z.boolean().optional(),
  enabled: z.boolean().default(true).describe("False hides the flow from discovery."),
  parameterMapping: ParameterMappingSchema.optional(),
});

/**
 * A flow entry in the configured registry, keyed by the platform's own flow id. Every field set here wins over what
 * discovery inferred.
 */
export type ConfiguredFlow = z.infer<typeof ConfiguredFlowSchema>;

/** Input form of a configured flow entry (see {@link ConfiguredFlowSchema}). */
export type ConfiguredFlowInput = z.input<typeof ConfiguredFlowSchema>;

/** Zod schema of the timeouts of one backend, in milliseconds. */
export const BackendTimeoutsSchema = z.strictObject({
  requestTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(30_000)
    .describe("Execute/stream: time until the reply headers and between stream chunks; a health probe gets at most 5 s of it."),
  streamFirstByteTimeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("Flowise streams: longest wait for the first byte of a stream (a deleted chatflow's stream never answers); defaults to min(10000, the attempt's budget)."),
});

const connectPolicyFunction = z.custom<ConnectPolicy>((value) => typeof value === "function", "connectPolicy must be a function");
const lookupFunction = z.custom<HostLookup>((value) => typeof value === "function", "lookup must be a function");

const IntentScoreSchema = z.number().min(0).max(1);

/** Settings shared by every HTTP backend adapter. Unknown keys are refused (typos in config fail loudly). */
export const BaseBackendSettingsSchema = z.strictObject({
  id: BackendIdSchema,
  baseURL: z
    .string()
    .url()
    .refine((value) => /^https?:\/\//i.test(value), "baseURL must be an http(s) URL"),
  apiKey: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).default({}),
  connectPolicy: connectPolicyFunction
    .optional()
    .describe("Checked against the address of every new connection, after DNS resolution (SSRF / DNS-rebinding guard); a refusal is a non-retryable FORBIDDEN."),
  lookup: lookupFunction.optional().describe("Host-name resolver of new connections (`dns.lookup` by default)."),
  timeouts: BackendTimeoutsSchema.default(BackendTimeoutsSchema.parse({})),
  flows: z.record(z.string(), ConfiguredFlowSchema).default({}),
  discovery: z.enum(["auto", "configured-only"]).default("auto").describe("`configured-only` never lists the platform's flows."),
  defaultParameterMapping: ParameterMappingSchema.optional(),
  capabilities: z.partialRecord(IntentSchema, IntentScoreSchema).optional(),
});

/** Input form of the shared settings (defaults not yet applied). */
export type BaseBackendSettingsInput = z.input<typeof BaseBackendSettingsSchema>;

/** Parsed shared settings. */
export type BaseBackendSettings = z.infer<typeof BaseBackendSettingsSchema>;

