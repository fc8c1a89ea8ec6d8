import { z } from "zod";

/** Zod schema of {@link ToolDescriptor}. */
export const ToolDescriptorSchema = z.object({
  server: z.string().min(1).describe("The MCP server that provides the tool."),
  name: z.string().min(1).describe("The tool's name on its server."),
  title: z.string().optional(),
  description: z.string().default(""),
  inputSchema: z.record(z.string(), z.unknown()).default({ type: "object" }).describe("JSON Schema of the arguments."),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.record(z.string(), z.unknown()).optional().describe("MCP tool annotations (readOnlyHint, …)."),
  tags: z.array(z.string()).default([]),
});

/** An MCP tool as the tool zoo indexes it. Its id is `server/name` (see {@link toolId}). */
export type ToolDescriptor = z.infer<typeof ToolDescriptorSchema>;

/** Input form of {@link ToolDescriptor}. */
export type ToolDescriptorInput = z.input<typeof ToolDescriptorSchema>;

/**
 * The id of a tool: `server/name`.
 * @example
 * ```ts
 * toolId({ server: "github", name: "merge_pull_request" }) // "github/merge_pull_request"
 * ```
 */
export function toolId(tool: { server: string; name: string }): string {
  return `${tool.server}/${tool.name}`;
}

/** Severities a workflow can be labelled with. */
export const SeveritySchema = z.enum(["critical", "high", "medium", "low", "info"]);
/** Environments a workflow can be labelled with. */
export const EnvironmentSchema = z.enum(["production", "staging", "development", "test", "any"]);
/** Priorities a workflow can be labelled with. */
export const PrioritySchema = z.enum(["P0", "P1", "P2", "P3", "P4"]);
/** Risk tolerances a workflow can be labelled with. */
export const RiskToleranceSchema = z.enum(["low", "medium", "high"]);
/** Business categories a workflow can be labelled with. */
export const BusinessCategorySchema = z.enum([
  "revenue-critical",
  "customer-facing",
  "internal",
  "data-platform",
  "security",
  "compliance",
  "general",
]);
/**
 * A signal type, e.g. `OOMKilled`, `CrashLoopBackOff`, `NodeDiskPressure`. Open-ended (each
 * catalog brings its own), but restricted to identifier characters.
 */
export const SignalTypeSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z][A-Za-z0-9_.-]*$/, "signal type must be an identifier such as OOMKilled");

/** Zod schema of {@link WorkflowLabels}. */
export const WorkflowLabelsSchema = z.object({
  "signal-type": z.array(SignalTypeSchema).default([]),
  severity: z.array(SeveritySchema).default([]),
  environment: z.array(EnvironmentSchema).default([]),
  priority: z.array(PrioritySchema).default([]),
  "risk-tolerance": z.array(RiskToleranceSchema).default([]),
  "business-category": z.array(BusinessCategorySchema).default([]),
});

/** A workflow's labels: each label lists every value the workflow applies to (empty = any). */
export type WorkflowLabels = z.infer<typeof WorkflowLabelsSchema>;

/** The label names usable as `label.*` filters. */
export const WORKFLOW_LABEL_NAMES = [
  "signal-type",
  "severity",
  "environment",
  "priority",
  "risk-tolerance",
  "business-category",
] as const;

/** Zod schema of one step of a remediation workflow. */
export const WorkflowStepSchema = z.object({
  name: z.string().min(1),
  action: z.string().min(1).describe("What to do, e.g. a command or an API call."),
  description: z.string().optional(),
  timeout: z.string().optional(),
});

/** Zod schema of {@link WorkflowDescriptor}. */
export const WorkflowDescriptorSchema = z.object({
  workflow_id: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,127}$/, "workflow_id must be lower-case kebab/dot case"),
  version: z.string().regex(/^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/, "version must be semver, e.g. 1.2.0"),
  title: z.string().min(1),
  description: z.string().min(1),
  labels: WorkflowLabelsSchema.default({
    "signal-type": [],
    severity: [],
    environment: [],
    priority: [],
    "risk-tolerance": [],
    "business-category": [],
  }),
  signal_types: z.array(SignalTypeSchema).min(1),
  keywords: z.array(z.string()).default([]),
  steps: z.array(WorkflowStepSchema).min(1),
  prerequisites: z.array(z.string()).default([]),
  rollback_steps: z.array(WorkflowStepSchema).default([]),
  estimated_duration: z.string().describe("Human duration, e.g. `10m`."),
  risk_level: z.enum(["low", "medium", "high", "critical"]),
  success_rate: z.number().min(0).max(1),
});

/** A remediation workflow / playbook in the workflow catalog. */
export type WorkflowDescriptor = z.infer<typeof WorkflowDescriptorSchema>;

/** Input form of {@link WorkflowDescriptor}. */
export type WorkflowDescriptorInput = z.input<typeof WorkflowDescriptorSchema>;

/** The zod shape of `search_workflow_catalog`'s input (for MCP tool registration). */
export const SearchWorkflowCatalogInputShape = {
  query: z.string().min(1).max(2000).describe("Natural language or structured, e.g. `OOMKilled critical`."),
  "label.signal-type": SignalTypeSchema.optional(),
  "label.severity": SeveritySchema.optional(),
  "label.environment": EnvironmentSchema.optional(),
  "label.priority": PrioritySchema.optional(),
  "label.risk-tolerance": RiskToleranceSchema.optional(),
  "label.business-category": BusinessCategorySchema.optional(),
  exclude_keywords: z.array(z.string().min(1).max(100)).max(50).default([]).describe("Drop workflows mentioning any of these."),
  top_k: z.number().int().min(1).max(50).default(10),
} as const;

/**
 * Zod schema of the input of `search_workflow_catalog`: a query, exact `label.*` filters, exclusions, `top_k`.
 * @example
 * ```ts
 * SearchWorkflowCatalogInputSchema.parse({ query: "pod killed for memory", "label.severity": "critical" });
 * ```
 */
export const SearchWorkflowCatalogInputSchema = z.object(SearchWorkflowCatalogInputShape).strict();

/** Zod schema of {@link WorkflowSearchHit}. */
export const WorkflowSearchHitSchema = z.object({
  workflow_id: z.string(),
  version: z.string(),
  title: z.string(),
  description: z.string(),
  signal_types: z.array(z.string()),
  confidence: z.number().min(0).max(1),
  estimated_duration: z.string(),
  success_rate: z.number().min(0).max(1),
  labels: WorkflowLabelsSchema,
});

/** One result of a workflow-catalog search. */
export type WorkflowSearchHit = z.infer<typeof WorkflowSearchHitSchema>;

/** The zod shape of `get_playbook_details`'s input. */
export const GetPlaybookDetailsInputShape = {
  workflow_id: z.string().min(1).max(128),
  version: z.string().min(1).max(64).optional().describe("Defaults to the newest version."),
} as const;

/** Zod schema of {@link GetPlaybookDetailsInput}. */
export const GetPlaybookDetailsInputSchema = z.object(GetPlaybookDetailsInputShape).strict();

/** Input of `get_playbook_details`. */
export type GetPlaybookDetailsInput = z.infer<typeof GetPlaybookDetailsInputSchema>;

/** Search modes of the tool zoo. */
export const SearchModeSchema = z.enum(["keyword", "semantic", "hybrid"]);

/** `keyword` (BM25), `semantic` (vectors) or `hybrid` (both, fused). */
export type SearchMode = z.infer<typeof SearchModeSchema>;

/** The zod shape of `search_tools`'s input. */
export const SearchToolsInputShape = {
  query: z.string().min(1).max(2000).describe("What the agent wants to do, in plain language."),
  top_k: z.number().int().min(1).max(50).default(10),
  mode: SearchModeSchema.default("hybrid"),
  servers: z.array(z.string().min(1)).max(100).optional().describe("Only tools of these servers."),
  tags: z.array(z.string().min(1)).max(100).optional().describe("Only tools with one of these tags."),
} as const;

/** Zod schema of the input of `search_tools`. */
export const SearchToolsInputSchema = z.object(SearchToolsInputShape).strict();

/** Zod schema of {@link ToolSearchHit}. */
export const ToolSearchHitSchema = z.object({
  id: z.string().describe("`server/name`."),
  server: z.string(),
  name: z.string(),
  description: z.string(),
  score: z.number(),
  affordance: z.string().describe("`Use when: … | Inputs: a*, b | Output: …`"),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  step: z.number().int().min(0).optional().describe("For a multi-step task: the index (in `steps`) of the step this tool serves."),
  step_text: z.string().optional().describe("For a multi-step task: the text of the step this tool serves."),
});

/** One result of a tool search. */
export type ToolSearchHit = z.infer<typeof ToolSearchHitSchema>;

/** Zod schema of {@link ToolSearchResult}. */
export const ToolSearchResultSchema = z.object({
  results: z.array(ToolSearchHitSchema),
  confidence: z.number().min(0).max(1),
  mode: SearchModeSchema,
  fallback: z.boolean().describe("True when confidence was too low and the safe set was returned."),
  semantic_state: z
    .enum(["building", "unavailable"])
    .optional()
    .describe(
      "Present when semantic ranking was asked for but not used (`mode` is then `keyword`): `building` while the tool vectors are still being computed, `unavailable` without an embedder or when it failed.",
    ),
  steps: z
    .array(z.string())
    .optional()
    .describe("Present when the task was searched as several steps: the steps, in order; each result's `step` indexes this list."),
});

/** Result of a tool search. */
export type ToolSearchResult = z.infer<typeof ToolSearchResultSchema>;
