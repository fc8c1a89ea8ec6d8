import type { AfwError, Redactor, TraceContext } from "@afw/contracts";
import type { HostResolver } from "@afw/backends";
import { z } from "zod";
import type { BackendFactory } from "./backend-factory.js";
import type { BackendRegistry } from "./backend-registry.js";
import type { GatewayConfig } from "./config-schema.js";
import type { GatewayStores, WorkflowCatalogPort } from "./gateway-types.js";
import type { RouterPort } from "./router-port.js";
import type { ToolIndex } from "@afw/tool-zoo";
import type { QueryPipeline } from "./query-pipeline.js";
import type { RouteElicitation } from "./route-elicitation.js";
import { GATEWAY_TOOLS, type GatewayToolDefinition } from "./tool-schemas.js";

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
  readonly annotations: GatewayToolDefinition["annotations"];
  /** Runs the tool; returns a JSON-serialisable value or throws (`AfwError`, {@link ToolFailure}). */
  run(args: never, context: ToolContext): Promise<unknown>;
  /** Builds the error body of this tool (default: `{ error, code, details?, trace_id? }`). */
  errorBody?(error: AfwError, context: { trace: TraceContext; elapsedMs: number }): Record<string, unknown>;
}

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

/** Defines a gateway tool: its announcement in {@link GATEWAY_TOOLS}, its strict validator and its handler. */
export function tool<N extends keyof typeof GATEWAY_TOOLS>(
  name: N,
  run: (args: z.infer<z.ZodObject<(typeof GATEWAY_TOOLS)[N]["shape"]>>, context: ToolContext) => Promise<unknown>,
  errorBody?: GatewayTool["errorBody"],
): GatewayTool {
  const { title, description, annotations, shape, refine }: GatewayToolDefinition = GATEWAY_TOOLS[name];
  const object = z.object(shape).strict();
  const schema = refine ? object.refine(refine.check, { message: refine.message }) : object;
  return { name, title, description, shape, schema, annotations, run: run as GatewayTool["run"], ...(errorBody ? { errorBody } : {}) };
}
