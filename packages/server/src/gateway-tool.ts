import type { AfwError, Redactor, TraceContext } from "@afw/contracts";
import type { HostResolver } from "@afw/backends";
import { z } from "zod";
import type { BackendFactory } from "./backend-factory.js";
import type { BackendRegistry } from "./backend-registry.js";
import type { GatewayConfig } from "./config-schema.js";
import type { GatewayStores } from "./gateway-types.js";
import type { RouterPort, WorkflowCatalogPort } from "./ports.js";
import type { ToolIndex } from "@afw/tool-zoo";
import type { QueryPipeline } from "./query-pipeline.js";
import type { RouteElicitation } from "./route-elicitation.js";

/** What a tool handler gets besides its validated arguments: the call's trace context, a signal aborted when the client cancels or the
 * connection closes, the caller's tenant (from its bearer token), `progress` when the client asked for progress notifications, and how
 * `universal_query` can ask the client when unsure (undefined outside MCP). */
export interface ToolContext {
  readonly trace: TraceContext;
  readonly signal: AbortSignal;
  readonly tenant: string | undefined;
  readonly progress: ((message: string) => void) | undefined;
  readonly elicitation?: RouteElicitation | undefined;
}

/** One MCP tool of the gateway. */
export interface GatewayTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** Zod shape announced in `tools/list`. */
  readonly shape: z.ZodRawShape;
  /** Full validator (strict object plus cross-field rules). */
  readonly schema: z.ZodType;
  readonly annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  /** Runs the tool; returns a JSON-serialisable value or throws (`AfwError`, {@link ToolFailure}). */
  run(args: never, context: ToolContext): Promise<unknown>;
  /** Builds the error body of this tool (default: {@link ToolErrorBody}). */
  errorBody?(error: AfwError, context: { trace: TraceContext; elapsedMs: number }): Record<string, unknown>;
}

/** The JSON body of every failed tool call (besides `universal_query`'s richer error). */
export const ToolErrorBodySchema = z.object({
  error: z.string().describe("Human-readable message (no secrets)."),
  code: z.string().describe("Stable error code from contracts' ERROR_CODES."),
  details: z.record(z.string(), z.unknown()).optional(),
  trace_id: z.string().optional(),
});

/** The JSON body of a failed tool call: `{ error, code, details?, trace_id? }`. */
export type ToolErrorBody = z.infer<typeof ToolErrorBodySchema>;

/** Thrown by a tool to return a prepared error body (e.g. a `UniversalQueryError`). */
export class ToolFailure extends Error {
  constructor(readonly body: Record<string, unknown> & { code: string; error: string }) {
    super(body.error);
    this.name = "ToolFailure";
  }
}

/** What the tools need from the gateway. */
export interface ToolDependencies {
  config: GatewayConfig;
  registry: BackendRegistry;
  router: RouterPort;
  pipeline: QueryPipeline;
  stores: GatewayStores;
  toolSearch: ToolIndex;
  workflowCatalog: WorkflowCatalogPort;
  backendFactory: BackendFactory;
  redactor: Redactor;
  /** Resolver for `backend_connect`'s address check and for the connections of the backends it adds (each connection's address is checked again). @default `dns.lookup` */
  resolveHost?: HostResolver;
}

/** Defines a gateway tool: its announced shape, its strict validator and its handler. */
export function tool<S extends z.ZodRawShape>(definition: {
  name: string;
  title: string;
  description: string;
  shape: S;
  refine?: (schema: z.ZodObject<S>) => z.ZodType<z.infer<z.ZodObject<S>>>;
  annotations: GatewayTool["annotations"];
  run: (args: z.infer<z.ZodObject<S>>, context: ToolContext) => Promise<unknown>;
  errorBody?: GatewayTool["errorBody"];
}): GatewayTool {
  const object = z.object(definition.shape).strict();
  return {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    shape: definition.shape,
    schema: definition.refine ? definition.refine(object) : object,
    annotations: definition.annotations,
    run: definition.run as GatewayTool["run"],
    ...(definition.errorBody ? { errorBody: definition.errorBody } : {}),
  };
}
