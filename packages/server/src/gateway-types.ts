import type { CircuitStateStore, FlowBackendV1, HealthStore, McpSessionRegistry, PerformanceStore, Redactor, ResponseCache, SessionStore, TraceSink } from "@afw/contracts";
import type { RedisRateLimiter } from "@afw/cache";
import type { AuditLog, LearnedRoutingPrior } from "@afw/analytics";
import type { ToolIndex, WorkflowCatalog } from "@afw/tool-zoo";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { DestinationStream, Logger } from "pino";
import type { BackendFactory } from "./backend-factory.js";
import type { BackendRegistry } from "./backend-registry.js";
import type { GatewayConfig, GatewayConfigInput } from "./config-schema.js";
import type { AnalyticsTools, GatewayLearning } from "./gateway-analytics.js";
import type { GatewayTool } from "./gateway-tool.js";
import type { DownstreamTools } from "./downstream-tools.js";
import type { GatewayMetrics } from "./metrics.js";
import type { RouterPort } from "./router-port.js";
import type { QueryPipeline } from "./query-pipeline.js";
import type { TraceRingBuffer } from "./trace-sinks.js";

/** The workflow catalog the gateway's `search_workflow_catalog` and `get_playbook_details` tools use (`@afw/tool-zoo`'s, or a test's). */
export type WorkflowCatalogPort = Pick<WorkflowCatalog, "searchWorkflowCatalog" | "getPlaybookDetails">;

/** The shared-state stores the gateway uses (contracts interfaces). */
export interface GatewayStores {
  cache: ResponseCache;
  sessions: SessionStore;
  performance: PerformanceStore;
  health: HealthStore;
  circuits: CircuitStateStore;
  /** MCP Streamable HTTP sessions (stateful HTTP mode), shared by every instance when it is Redis. */
  mcpSessions: McpSessionRegistry;
  /** HTTP rate-limit buckets shared by every instance (set when the default stores are Redis). */
  rateLimits?: RedisRateLimiter | undefined;
}

/** The pieces of a gateway besides its configuration (backends and stores not given are built from it). */
export interface GatewayParts {
  /** The configuration (validated again; env overrides are {@link loadGatewayConfig}'s job). */
  config?: GatewayConfig | GatewayConfigInput;
  /** Backend instances to serve (besides those built from `config.backends`). */
  backends?: FlowBackendV1[];
  /** Builds backends from `config.backends` and for `backend_connect`. @default `@afw/backends` adapters for `flowise` and `langflow` */
  backendFactory?: BackendFactory;
  /** Registry of MCP Streamable HTTP sessions (stateful HTTP mode). @default Redis when `redis` is configured, else in memory */
  mcpSessions?: McpSessionRegistry;
  /** Workflow catalog. @default a `@afw/tool-zoo` catalog of `workflows.catalogs` */
  workflowCatalog?: WorkflowCatalogPort;
  /** The learned routing prior (e.g. with its own clock), not closed by the gateway. @default one from `analytics.learning` */
  learnedPrior?: LearnedRoutingPrior;
  /** Extra trace sinks (besides logs, ring buffer, OTLP, metrics and the audit log). */
  traceSinks?: TraceSink[];
  /** Destination of the logger (e.g. a test stream). @default stderr */
  logDestination?: DestinationStream;
  /** Secrets to redact besides those in the configuration (e.g. keys of injected backends). */
  secrets?: string[];
  /** @default Date.now */
  now?: () => number;
}

/** The `/readyz` report. */
export interface ReadinessReport {
  ready: boolean;
  checks: { name: string; ok: boolean; status?: string; message?: string }[];
  /** When nothing can be routed to: what to configure and how. */
  hint?: string;
}

/** What {@link GatewayServer.reload} applied, and what needs a restart. */
export interface GatewayReloadReport {
  /** `routing.intentPatterns` changed: the classifier was rebuilt. */
  intentPatterns: boolean;
  /** `analytics.experiments` changed: the A/B assignment was replaced. */
  experiments: boolean;
  /** Backends whose flow registry (`backends[].flows`) changed and that were rebuilt. */
  backends: string[];
  /** Gateway-wide ids of the flows whose registry entry changed (their cached answers were invalidated). */
  invalidatedFlows: string[];
  /** Changed settings a reload does not apply (they need a restart). */
  restartRequired: string[];
}

/** A running gateway: its parts, a factory of MCP servers over them, and lifecycle. */
export interface GatewayServer {
  /** The validated configuration. */
  readonly config: GatewayConfig;
  /** Live backends and flows. @internal */
  readonly registry: BackendRegistry;
  /** The router: decisions, executions and backend health probes. @internal */
  readonly router: RouterPort;
  /** The `universal_query` path. @internal */
  readonly pipeline: QueryPipeline;
  /** Shared-state stores. @internal */
  readonly stores: GatewayStores;
  /** Recent trace events (the last 5000). */
  readonly traces: TraceRingBuffer;
  /** The audit log every trace event is recorded in (redacted), read by the analytics tools. */
  readonly auditLog: AuditLog;
  /** The analytics service behind `analytics_dashboard`, `analyze_flow`, `pattern_analysis`, `export_metrics`, `sync_flow_registry` and `record_feedback`. */
  readonly analytics: AnalyticsTools["service"];
  /** The learning loop: the learned routing prior and the A/B experiments the router applies. @internal */
  readonly learning: GatewayLearning;
  /** The sink every trace event goes to (fan-out of all configured sinks). */
  readonly sink: TraceSink;
  /** Prometheus metrics. */
  readonly metrics: GatewayMetrics;
  /** Structured logger (stderr, redacted). */
  readonly logger: Logger;
  /** Redactor of every configured secret. */
  readonly redactor: Redactor;
  /** The MCP tools served, in `tools/list` order (downstream tools and `call_tool` come after them). @internal */
  readonly tools: readonly GatewayTool[];
  /** The tool index behind `search_tools` (downstream tools are indexed in it). */
  readonly toolSearch: ToolIndex;
  /** The downstream MCP servers and their exposure (undefined when `downstream` configures none). @internal */
  readonly downstream: DownstreamTools | undefined;
  /** MCP server name and version announced to clients. */
  readonly serverInfo: { name: string; version: string };
  /** A new MCP server exposing the gateway's tools (one per connection or stateless request). */
  createMcpServer(): McpServer;
  /** Creates an MCP server and connects it to `transport`. */
  connect(transport: Transport): Promise<McpServer>;
  /** Discovers flows, probes backends and loads the router's models, so the first query is fast. */
  warmUp(): Promise<void>;
  /** Applies a new configuration without a restart (`afw serve` calls it on SIGHUP): the intent patterns (`routing.intentPatterns`, e.g. proposed by `pattern_analysis`), the flow registry of configured backends (`backends[].flows`: the backend
   * is rebuilt and the cached answers of its changed flows invalidated) and the A/B experiments (`analytics.experiments`). @throws AfwError `CONFIG_INVALID` for an invalid configuration (nothing is applied). */
  reload(config: GatewayConfig | GatewayConfigInput): Promise<GatewayReloadReport>;
  /** Readiness of backends, stores and extra checks (for `/readyz`). */
  readiness(options?: { signal?: AbortSignal }): Promise<ReadinessReport>;
  /** Stops background work and closes backends, exporters and disposables. Idempotent. */
  close(): Promise<void>;
}
