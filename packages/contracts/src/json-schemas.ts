import { z } from "zod";
import { TraceEventSchema } from "./trace-events.js";
import { UniversalQueryErrorSchema, UniversalQueryInputSchema, UniversalQueryResultSchema } from "./query.js";
import { RoutingDecisionSchema } from "./routing.js";
import { BackendHealthSchema, FlowExecutionRequestSchema, FlowExecutionResultSchema, FlowStreamChunkSchema, UniversalFlowSchema } from "./backend.js";
import { IntentClassificationSchema } from "./intent.js";
import {
  SearchToolsInputSchema,
  SearchWorkflowCatalogInputSchema,
  GetPlaybookDetailsInputSchema,
  ToolDescriptorSchema,
  ToolSearchResultSchema,
  WorkflowDescriptorSchema,
  WorkflowSearchHitSchema,
} from "./catalog.js";
import { CacheEntrySchema, SessionTurnSchema } from "./stores.js";

/** The schemas published as JSON Schema files under `schemas/`, by file name (without `.json`). */
export const PUBLISHED_SCHEMAS = {
  "trace-event": TraceEventSchema,
  "universal-query-input": UniversalQueryInputSchema,
  "universal-query-result": UniversalQueryResultSchema,
  "universal-query-error": UniversalQueryErrorSchema,
  "routing-decision": RoutingDecisionSchema,
  "intent-classification": IntentClassificationSchema,
  "backend-health": BackendHealthSchema,
  "universal-flow": UniversalFlowSchema,
  "flow-execution-request": FlowExecutionRequestSchema,
  "flow-execution-result": FlowExecutionResultSchema,
  "flow-stream-chunk": FlowStreamChunkSchema,
  "tool-descriptor": ToolDescriptorSchema,
  "workflow-descriptor": WorkflowDescriptorSchema,
  "search-tools-input": SearchToolsInputSchema,
  "tool-search-result": ToolSearchResultSchema,
  "search-workflow-catalog-input": SearchWorkflowCatalogInputSchema,
  "workflow-search-hit": WorkflowSearchHitSchema,
  "get-playbook-details-input": GetPlaybookDetailsInputSchema,
  "cache-entry": CacheEntrySchema,
  "session-turn": SessionTurnSchema,
} as const satisfies Record<string, z.ZodType>;

/** Name of a published JSON Schema. */
export type PublishedSchemaName = keyof typeof PUBLISHED_SCHEMAS;

/**
 * Generates the JSON Schema (draft 2020-12) of every published schema, keyed by name. The `schemas/` folder of this
 * package holds the committed output; a test fails when they drift.
 * @example
 * ```ts
 * const all = generateJsonSchemas();
 * all["trace-event"].oneOf?.length; // number of event types
 * ```
 */
export function generateJsonSchemas(): Record<PublishedSchemaName, Record<string, unknown>> {
  const out = {} as Record<PublishedSchemaName, Record<string, unknown>>;
  for (const [name, schema] of Object.entries(PUBLISHED_SCHEMAS) as [PublishedSchemaName, z.ZodType][]) {
    const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    out[name] = { $id: `https://agentic-flywheel.dev/schemas/${name}.json`, title: name, ...json };
  }
  return out;
}
