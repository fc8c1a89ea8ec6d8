import { readFileSync } from "node:fs";
import {
  AfwError,
  createRedactor,
  fanOutTraceSink,
  flowKey,
  toAfwError,
  type CircuitStateStore,
  type FlowBackendV1,
  type HealthStore,
  type McpSessionRegistry,
  type PerformanceStore,
  type Redactor,
  type ResponseCache,
  type SessionStore,
  type TraceSink,
} from "@afw/contracts";
import { createMemoryMcpSessionRegistry, createMemoryStores, createRedisStores, type RedisRateLimiter } from "@afw/cache";
import type { AuditLog, FeedbackStore, LearnedRoutingPrior } from "@afw/analytics";
import type { IntentClassifier } from "@afw/router";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  SetLevelRequestSchema,
  type CallToolResult,
  type ListToolsResult,
  type LoggingLevel,
} from "@modelcontextprotocol/sdk/types.js";
import type { DownstreamCaller, DownstreamProgress } from "@afw/downstream";
import { z } from "zod";
import type { DestinationStream, Logger } from "pino";
import { defaultBackendFactory } from "./backend-adapters.js";
import type { BackendFactory } from "./backend-factory.js";
import { createBackendRegistry, type BackendRegistry } from "./backend-registry.js";
import { createAfwRouterPort, type ReloadableRouterPort } from "./afw-router-adapter.js";
import { parseGatewayConfig } from "./config-loader.js";
import { GatewayConfigSchema, type GatewayConfig, type GatewayConfigInput } from "./config-schema.js";
import {
  createAnalyticsTools,
  createGatewayAnalyticsStores,
  createGatewayLearning,
  createRedactingSink,
  type AnalyticsTools,
  type GatewayLearning,
} from "./gateway-analytics.js";
import { registerResourcesAndPrompts } from "./gateway-resources.js";
import { createGatewayTools, ToolFailure, type GatewayTool, type ToolContext } from "./gateway-tools.js";
import { routeElicitationOf } from "./route-elicitation.js";
import { CALL_TOOL_NAME, CallToolInputShape, createDownstreamTools, type DownstreamSessionState, type DownstreamTools } from "./downstream-tools.js";
import { createGatewayLogger } from "./logger.js";
import { createStoreStateLog } from "./store-state-log.js";
import { createGatewayMetrics, type GatewayMetrics } from "./metrics.js";
import { createOtlpTraceSink, type OtlpTraceSink } from "./otlp-trace-sink.js";
import type { RouterPort, ToolSearchPort, WorkflowCatalogPort } from "./ports.js";
import { createQueryPipeline, type QueryPipeline } from "./query-pipeline.js";
import { configSecrets } from "./redactor.js";
import { downstreamReadinessChecks, logDownstreamStates } from "./downstream-observability.js";
import { createToolSearchFromConfig, createWorkflowCatalogFromConfig, embedderFromConfig, vectorCacheFile } from "./tool-zoo-adapter.js";
import { invalidArguments, InvalidParamsError, JsonRpcError, ToolsCallRequestSchema } from "./tool-call-params.js";
import { newTraceContext } from "./trace-context.js";
import { createLogTraceSink, createTraceRingBuffer, type TraceRingBuffer } from "./trace-sinks.js";
import { describeSetup } from "./setup-report.js";

/** How long a gateway waits for its first Redis connection before serving (ms). */
const REDIS_FIRST_CONNECTION_WAIT_MS = 10_000;

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

/** What a router factory receives to build a {@link RouterPort}. */
export interface RouterDependencies {
  config: GatewayConfig;
  /** Live backends and flows. @internal */
  registry: BackendRegistry;
  stores: GatewayStores;
  sink: TraceSink;
  /** The learning loop (learned prior, A/B experiments) to hand to the router. @internal */
  learning: GatewayLearning;
}

/** A readiness probe (e.g. a Redis PING) reported by `/readyz`. */
export interface ReadinessCheck {
  /** Name shown in the report, e.g. `redis`. */
  name: string;
  /** Resolves when ready; rejects (or resolves false) when not. */
  check(signal: AbortSignal): Promise<boolean | void>;
}

/**
 * The pieces of a gateway. Every field is optional: the configuration's defaults, in-memory
 * stores, the `@afw/router` router and the `@afw/tool-zoo` catalogs fill the gaps.
 */
export interface GatewayParts {
  /** The configuration (validated again; env overrides are {@link loadGatewayConfig}'s job). */
  config?: GatewayConfig | GatewayConfigInput;
  /** Backend instances to serve (besides those built from `config.backends`). */
  backends?: FlowBackendV1[];
  /** Builds backends from `config.backends` and for `backend_connect`. @default `@afw/backends` adapters for `flowise` and `langflow` */
  backendFactory?: BackendFactory;
  /** Response cache. @default `@afw/cache`: Redis when `redis` is configured, else in memory */
  cache?: ResponseCache;
  /** Session store. @default in-memory */
  sessions?: SessionStore;
  /** Performance store. @default in-memory */
  performance?: PerformanceStore;
  /** Health store. @default in-memory */
  health?: HealthStore;
  /** Circuit-breaker state store. @default in-memory */
  circuits?: CircuitStateStore;
  /** Registry of MCP Streamable HTTP sessions (stateful HTTP mode). @default `@afw/cache`: Redis when `redis` is configured and the default stores are used, else in memory */
  mcpSessions?: McpSessionRegistry;
  /** Intent classifier of the default `@afw/router` router. @default `@afw/router`'s hybrid classifier with `routing.classifierEmbedder` */
  classifier?: IntentClassifier;
  /** Router, or a factory of one. @default `@afw/router` through the built-in router adapter */
  router?: RouterPort | ((dependencies: RouterDependencies) => RouterPort);
  /** Tool search. @default a `@afw/tool-zoo` index of `tools.catalogs` (embedder: `tools.embedder`) */
  toolSearch?: ToolSearchPort;
  /** Workflow catalog. @default a `@afw/tool-zoo` catalog of `workflows.catalogs` (embedder: `tools.embedder`) */
  workflowCatalog?: WorkflowCatalogPort;
  /** Audit log of every (redacted) trace event, read by the analytics tools (not closed by the gateway). @default Redis when `redis` is configured, else in memory */
  auditLog?: AuditLog;
  /** Store of `record_feedback` ratings (not closed by the gateway). @default Redis when `redis` is configured, else in memory */
  feedbackStore?: FeedbackStore;
  /**
   * The learned routing prior (e.g. with its own clock), fed every trace event and handed to the
   * router (not closed by the gateway). @default one from `analytics.learning` (Redis-backed with `redis`), none when disabled
   */
  learnedPrior?: LearnedRoutingPrior;
  /** Extra trace sinks (besides logs, ring buffer, OTLP and metrics). */
  traceSinks?: TraceSink[];
  /** Logger. @default pino JSON to stderr at `logging.level`, redacted */
  logger?: Logger;
  /** Destination of the default logger (e.g. a test stream). */
  logDestination?: DestinationStream;
  /** Metrics registry. @default a fresh one */
  metrics?: GatewayMetrics;
  /** Extra readiness probes (e.g. Redis). */
  readinessChecks?: ReadinessCheck[];
  /** Secrets to redact besides those in the configuration (e.g. keys of injected backends). */
  secrets?: string[];
  /** Resources to close with the gateway (e.g. a Redis connection). */
  disposables?: { close(): Promise<void> | void }[];
  /** Variables for `${VAR}` in the imported `downstream.mcpJson`. @default process.env */
  downstreamEnv?: Record<string, string | undefined>;
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
  /** `analytics.experiments` or `analytics.experimentSeed` changed: the A/B assignment was replaced. */
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
  /** The `universal_query` path. @internal */
  readonly pipeline: QueryPipeline;
  /** Shared-state stores. @internal */
  readonly stores: GatewayStores;
  /** Recent trace events (undefined when the ring buffer is disabled). */
  readonly traces: TraceRingBuffer | undefined;
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
  readonly toolSearch: ToolSearchPort;
  /** The downstream MCP servers and their exposure (undefined when `downstream` configures none). @internal */
  readonly downstream: DownstreamTools | undefined;
  /** MCP server name and version announced to clients. */
  readonly serverInfo: { name: string; version: string };
  /** A new MCP server exposing the gateway's tools (one per connection or stateless request). */
  createMcpServer(): McpServer;
  /** Creates an MCP server and connects it to `transport`. */
  connect(transport: Transport): Promise<McpServer>;
  /**
   * Discovers flows, probes backends and loads the router's models, so the first query is fast.
   * Optional; never rejects (problems show in `backend_status` and `/readyz`).
   */
  warmUp(): Promise<void>;
  /**
   * Applies a new configuration without a restart (`afw serve` calls it on SIGHUP): the intent
   * patterns (`routing.intentPatterns`, e.g. proposed by `pattern_analysis`), the flow registry of
   * configured backends (`backends[].flows`: the backend is rebuilt and the cached answers of its
   * changed flows invalidated) and the A/B experiments (`analytics.experiments`). Every other
   * change is listed in `restartRequired` and not applied. Learned and measured state stays.
   *
   * @throws AfwError `CONFIG_INVALID` for an invalid configuration (nothing is applied).
   */
  reload(config: GatewayConfig | GatewayConfigInput): Promise<GatewayReloadReport>;
  /** Readiness of backends, stores and extra checks (for `/readyz`). */
  readiness(options?: { signal?: AbortSignal }): Promise<ReadinessReport>;
  /** Stops background work and closes backends, exporters and disposables. Idempotent. */
  close(): Promise<void>;
}

const CONFIG_KEYS: ReadonlySet<string> = new Set(Object.keys(GatewayConfigSchema.shape));

/**
 * Parts or a configuration? A configuration has only configuration keys; the keys both share
 * (`backends`, `cache`, `sessions`, `metrics`) hold objects with methods in parts.
 */
function isParts(input: object): input is GatewayParts {
  const record = input as Record<string, unknown>;
  if (Object.keys(record).some((key) => !CONFIG_KEYS.has(key))) return true;
  const hasMethod = (value: unknown, method: string) => typeof value === "object" && value !== null && typeof (value as Record<string, unknown>)[method] === "function";
  if (hasMethod(record["cache"], "get") || hasMethod(record["sessions"], "append") || hasMethod(record["metrics"], "render")) return true;
  const backends = record["backends"];
  return Array.isArray(backends) && backends.some((b) => typeof b === "object" && b !== null && "specificationVersion" in b);
}

let cachedVersion: string | undefined;
function packageVersion(): string {
  if (cachedVersion) return cachedVersion;
  try {
    cachedVersion = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version?: string }).version ?? "0.0.0";
  } catch {
    cachedVersion = "0.0.0";
  }
  return cachedVersion;
}

function jsonText(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? item.toString() : item));
}

/**
 * Tools a tenant-scoped token may not call: they read data of every tenant (question texts,
 * per-flow analytics) or change the gateway for all tenants (new backends, the flow registry).
 */
const TENANT_FORBIDDEN_TOOLS: ReadonlySet<string> = new Set([
  "backend_connect",
  "sync_flow_registry",
  "pattern_analysis",
  "analytics_dashboard",
  "analyze_flow",
  "export_metrics",
]);

/**
 * Creates a gateway from a configuration (e.g. the result of {@link loadGatewayConfig}) or from
 * parts. It builds the backends, stores, router, catalogs and trace sinks, and returns a
 * {@link GatewayServer} whose `createMcpServer()` serves these MCP tools: `universal_query`,
 * `flowise_query`, `list_flows`, `backend_status`, `health_check`, `backend_performance_compare`,
 * `backend_connect`, `list_sessions`, `get_session`, `clear_cache`, `search_tools`,
 * `search_workflow_catalog`, `get_playbook_details`, `explain_routing`, and the analytics tools
 * `analytics_dashboard`, `analyze_flow`, `pattern_analysis`, `export_metrics`,
 * `sync_flow_registry`, `record_feedback` over an audit log of every (redacted) trace event.
 *
 * Every tool validates its arguments (a typed `INVALID_INPUT` error otherwise), answers JSON as
 * text content, and reports every failure as an `isError` result with a stable `code`; nothing
 * thrown reaches the client, and configured secrets are redacted from every output.
 *
 * @example
 * ```ts
 * const gateway = await createGatewayServer({ backends: [myBackend], config: { routing: { health: { intervalMs: 0 } } } });
 * const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
 * await gateway.connect(serverTransport);
 * ```
 * @throws AfwError `CONFIG_INVALID` for an invalid configuration, an unreadable catalog, or a
 * configured backend kind the backend factory cannot build.
 */
export async function createGatewayServer(input: GatewayConfig | GatewayConfigInput | GatewayParts = {}): Promise<GatewayServer> {
  const parts: GatewayParts = isParts(input) ? input : { config: input as GatewayConfigInput };
  const config = parseGatewayConfig(parts.config ?? {}, { source: "<gateway config>", env: {} });
  const now = parts.now ?? Date.now;
  const redactor = createRedactor([...configSecrets(config), ...(parts.secrets ?? [])]);
  const logger = parts.logger ?? createGatewayLogger({ level: config.logging.level, redactor, ...(parts.logDestination ? { destination: parts.logDestination } : {}) });
  const metrics = parts.metrics ?? createGatewayMetrics({ defaultMetrics: config.metrics.defaultMetrics });

  const ring = config.trace.ringBuffer.enabled ? createTraceRingBuffer({ capacity: config.trace.ringBuffer.capacity, redactor }) : undefined;
  let otlp: OtlpTraceSink | undefined;
  if (config.trace.otlp) {
    otlp = createOtlpTraceSink({
      ...config.trace.otlp,
      redactor,
      onError: (error) => logger.warn({ err: redactor.redact(String((error as Error)?.message ?? error)) }, "OTLP export failed"),
    });
  }
  const sinks: TraceSink[] = [metrics.sink];
  if (ring) sinks.push(ring);
  if (config.trace.log.enabled && config.trace.log.level !== "silent") {
    const level = config.trace.log.level === "trace" || config.trace.log.level === "debug" ? config.trace.log.level : "info";
    sinks.push(createLogTraceSink(logger, level));
  }
  if (otlp) sinks.push(otlp);
  // The audit log records the same redacted events as the ring buffer.
  const defaultAnalyticsStores = parts.auditLog && parts.feedbackStore ? undefined : createGatewayAnalyticsStores(config, { now });
  const auditLog = parts.auditLog ?? defaultAnalyticsStores!.auditLog;
  const feedbackStore = parts.feedbackStore ?? defaultAnalyticsStores!.feedbackStore;
  sinks.push(createRedactingSink(auditLog, redactor));
  // The learned prior learns from the same events; A/B assignments are recorded in the audit log.
  const learning = createGatewayLearning(config, { recorder: auditLog, ...(parts.learnedPrior ? { prior: parts.learnedPrior } : {}), now });
  if (learning.prior) sinks.push(learning.prior);
  const closeAnalyticsStores = async () => {
    await learning.close();
    if (!parts.auditLog) await auditLog.close().catch(() => undefined);
    if (!parts.feedbackStore) await feedbackStore.close().catch(() => undefined);
  };
  sinks.push(...(parts.traceSinks ?? []));
  const sink = fanOutTraceSink(...sinks);

  // Shared state: Redis when configured (every instance sees the same cache, sessions, metrics,
  // health and circuits), else process memory. Stores passed in parts win.
  const disposables = [...(parts.disposables ?? [])];
  const readinessChecks = [...(parts.readinessChecks ?? [])];
  const needsDefaultStores = !(parts.cache && parts.sessions && parts.performance && parts.health && parts.circuits);
  const sessionOptions = { maxTurns: config.sessions.maxTurns, ttlMs: config.sessions.ttlSeconds * 1000, recentTurns: Math.max(1, config.sessions.contextTurns) };
  let defaultStores: ReturnType<typeof createMemoryStores> | ReturnType<typeof createRedisStores> | undefined;
  if (needsDefaultStores) {
    if (config.redis) {
      const redisStores = createRedisStores({
        url: config.redis.url,
        keyPrefix: config.redis.keyPrefix,
        operationTimeoutMs: config.redis.operationTimeoutMs,
        sessions: { ...sessionOptions, appendTimeoutMs: config.redis.sessionAppendTimeoutMs, buffer: config.redis.sessionBuffer },
        trace: newTraceContext(sink, { requestId: "redis-stores" }),
        onEvent: createStoreStateLog(logger),
      });
      defaultStores = redisStores;
      disposables.push(redisStores);
      readinessChecks.push({
        name: "redis",
        check: async () => {
          const health = await redisStores.health();
          if (!health.ok) throw new Error(health.message ?? `redis is ${health.status}`);
        },
      });
      // The first connection (a Cluster's slot map, a Sentinel's master lookup) is awaited before
      // serving: a request arriving first found Redis still connecting and, at `initialize`,
      // answered with an MCP session the other instances refused as not found. A Redis that is
      // down fails the attempt at once, so this only waits for a Redis that is coming up.
      await redisStores.connection.execute((client) => client.ping(), { timeoutMs: REDIS_FIRST_CONNECTION_WAIT_MS });
    } else {
      defaultStores = createMemoryStores({ now, responseCache: { maxEntries: config.cache.maxEntries }, sessions: sessionOptions });
    }
  }
  const stores: GatewayStores = {
    cache: parts.cache ?? defaultStores!.responseCache,
    sessions: parts.sessions ?? defaultStores!.sessionStore,
    performance: parts.performance ?? defaultStores!.performanceStore,
    health: parts.health ?? defaultStores!.healthStore,
    circuits: parts.circuits ?? defaultStores!.circuitStateStore,
    mcpSessions: parts.mcpSessions ?? defaultStores?.mcpSessionRegistry ?? createMemoryMcpSessionRegistry({ now }),
    ...(defaultStores && "rateLimiter" in defaultStores ? { rateLimits: defaultStores.rateLimiter } : {}),
  };

  const registry = createBackendRegistry({
    healthStore: stores.health,
    sink,
    discoveryTtlMs: config.routing.flowDiscoveryTtlMs,
    healthTtlMs: config.routing.health.ttlMs,
    probeTimeoutMs: config.routing.health.timeoutMs,
    now,
  });
  const backendFactory = parts.backendFactory ?? defaultBackendFactory;
  const injected = new Map((parts.backends ?? []).map((backend) => [backend.id, backend]));
  try {
    for (const backendConfig of config.backends) {
      if (!backendConfig.enabled) continue;
      const backend = injected.get(backendConfig.id);
      if (backend) {
        registry.add(backend, { config: backendConfig, source: "parts" });
        injected.delete(backendConfig.id);
      } else {
        registry.add(await backendFactory(backendConfig), { config: backendConfig, source: "config" });
      }
    }
    for (const backend of injected.values()) registry.add(backend, { source: "parts" });
  } catch (error) {
    await registry.close();
    await closeAnalyticsStores();
    throw toAfwError(error, "CONFIG_INVALID");
  }

  const catalogEmbedder = parts.toolSearch && parts.workflowCatalog ? undefined : embedderFromConfig(config.tools.embedder);
  const catalogOptions = { sink, ...(catalogEmbedder ? { embedder: catalogEmbedder } : {}) };
  let toolSearch: ToolSearchPort;
  let workflowCatalog: WorkflowCatalogPort;
  try {
    toolSearch =
      parts.toolSearch ??
      (await createToolSearchFromConfig(config.tools, {
        ...catalogOptions,
        ...(config.chroma ? { chroma: config.chroma } : {}),
        ...(config.redis && defaultStores && "connection" in defaultStores ? { redis: { connection: defaultStores.connection, keyPrefix: config.redis.keyPrefix } } : {}),
      }));
    workflowCatalog =
      parts.workflowCatalog ??
      (await createWorkflowCatalogFromConfig(config.workflows, {
        ...catalogOptions,
        ...(catalogEmbedder ? { embeddingCachePath: vectorCacheFile(config.tools, catalogEmbedder, "workflows") } : {}),
      }));
  } catch (error) {
    await registry.close();
    await closeAnalyticsStores();
    throw toAfwError(error, "CONFIG_INVALID");
  }
  if (toolSearch.vectorState?.().state === "building") {
    // Tool vectors are computed in the background; search_tools is keyword-only until then.
    const started = performance.now();
    void toolSearch.vectorsReady?.().then(
      () => logger.info({ toolVectors: toolSearch.vectorState?.(), ms: Math.round(performance.now() - started) }, "tool vectors ready: search_tools is hybrid"),
      () => undefined,
    );
  }
  const hasDownstream = config.downstream.servers.length > 0 || config.downstream.mcpJson !== undefined;
  let downstream: DownstreamTools | undefined;
  if (hasDownstream) {
    try {
      downstream = createDownstreamTools({
        downstream: config.downstream,
        tools: config.tools,
        index: toolSearch,
        sink,
        ...(parts.downstreamEnv ? { env: parts.downstreamEnv } : {}),
        onError: (error, where) => logger.warn({ err: redactor.redact(String((error as Error)?.message ?? error)), where }, "downstream tools"),
        // Log messages sent outside of one client's call stay in the gateway's log.
        onServerLog: (message) => logger.debug({ server: message.server, level: message.level, logger: message.logger, data: redactor.redactValue(message.data) }, "downstream log message"),
      });
      logDownstreamStates(downstream.manager, logger, redactor);
      metrics.trackDownstream(() => downstream!.manager.status());
      // In the background: a server that never answers initialize must not hold up startup or /healthz.
      downstream.start();
    } catch (error) {
      await downstream?.close().catch(() => undefined);
      await registry.close();
      await closeAnalyticsStores();
      await toolSearch.close?.().catch(() => undefined);
      throw toAfwError(error, "CONFIG_INVALID");
    }
  }
  const callToolSchema = z.object(CallToolInputShape).strict();
  const routerDependencies: RouterDependencies = { config, registry, stores, sink, learning };
  let router: RouterPort;
  if (typeof parts.router === "function") router = parts.router(routerDependencies);
  else if (parts.router) router = parts.router;
  else {
    router = createAfwRouterPort({
      config,
      registry,
      stores,
      sink,
      now,
      ...(parts.classifier ? { classifier: parts.classifier } : {}),
      learning: {
        ...(learning.prior ? { scoreAdjuster: learning.prior.scoreAdjuster, maxScoreAdjustment: learning.prior.maxAdjustment } : {}),
        // Through the learning object, so a reload's experiments apply at once.
        variantSelector: (request) => learning.variantSelector()?.(request),
      },
    });
  }
  const pipeline = createQueryPipeline({ config, registry, router, cache: stores.cache, sessions: stores.sessions, performance: stores.performance, now });
  const taskTextOf = (name: string, args: Record<string, unknown>): string | undefined => {
    if ((name === "universal_query" || name === "flowise_query" || name === "explain_routing") && typeof args["question"] === "string") return args["question"];
    if (name === "search_tools" && typeof args["query"] === "string") return args["query"];
    return undefined;
  };
  const analytics = createAnalyticsTools({
    config,
    registry,
    pipeline,
    cache: stores.cache,
    sessions: stores.sessions,
    auditLog,
    feedbackStore,
    embedder: catalogEmbedder,
    prior: learning.prior,
    now,
  });
  const tools = createGatewayTools({
    config,
    registry,
    pipeline,
    cache: stores.cache,
    sessions: stores.sessions,
    performance: stores.performance,
    circuits: stores.circuits,
    toolSearch,
    workflowCatalog,
    backendFactory,
    redactor,
  }).concat(analytics.tools);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const serverInfo = { name: config.server.name, version: config.server.version ?? packageVersion() };

  if (config.routing.health.intervalMs > 0) {
    registry.startHealthChecks(config.routing.health.intervalMs);
    void registry.checkHealth().catch(() => undefined);
  }

  const errorResult = (body: Record<string, unknown>): CallToolResult => ({
    content: [{ type: "text", text: redactor.redact(jsonText(body)) }],
    isError: true,
  });

  type Extra = Parameters<Parameters<McpServer["server"]["setRequestHandler"]>[1]>[1];

  /** One MCP server (connection) of the gateway, as the forwarding of downstream messages needs it. */
  interface Connection {
    readonly mcp: McpServer;
    readonly session: DownstreamSessionState | undefined;
    /** The level the client set with `logging/setLevel` (undefined: every message). */
    logLevel: LoggingLevel | undefined;
  }
  const severity = (level: LoggingLevel) => LoggingLevelSchema.options.indexOf(level);

  /**
   * The downstream caller of one tools/call: the server's log messages, sampling and elicitation
   * requests go to this client, on the stream of this request. Sampling and elicitation are
   * forwarded when the client declared the capability; a connection that saw no `initialize`
   * (stateless HTTP: each request is its own connection) forwards them and lets the client answer.
   */
  const downstreamCaller = (connection: Connection, extra: Extra, send: (task: () => Promise<void>) => void): DownstreamCaller => {
    const server = connection.mcp.server;
    const capabilities = server.getClientCapabilities();
    const options = { relatedRequestId: extra.requestId };
    const caller: DownstreamCaller = {
      key: connection,
      log: (message) => {
        if (connection.logLevel !== undefined && severity(message.level) < severity(connection.logLevel)) return;
        const params = {
          level: message.level,
          logger: message.logger === undefined ? message.server : `${message.server}/${message.logger}`,
          data: redactor.redactValue(message.data),
        };
        send(() => extra.sendNotification({ method: "notifications/message", params }));
      },
    };
    if (capabilities === undefined || capabilities.sampling !== undefined) {
      caller.createMessage = (params, { signal }) =>
        capabilities === undefined
          ? extra.sendRequest({ method: "sampling/createMessage", params }, CreateMessageResultSchema, { signal })
          : (server.createMessage(params, { ...options, signal }) as ReturnType<NonNullable<DownstreamCaller["createMessage"]>>);
    }
    if (capabilities === undefined || capabilities.elicitation !== undefined) {
      caller.elicit = (params, { signal }) =>
        capabilities === undefined
          ? extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema, { signal })
          : server.elicitInput(params as Parameters<typeof server.elicitInput>[0], { ...options, signal });
    }
    return caller;
  };

  const dispatch = async (
    name: string,
    rawArguments: Record<string, unknown> | undefined,
    extra: Extra,
    connection?: Connection,
  ): Promise<CallToolResult> => {
    const session = connection?.session;
    const started = performance.now();
    const args = rawArguments ?? {};
    const sessionId = typeof args["session_id"] === "string" ? args["session_id"] : undefined;
    const trace = newTraceContext(sink, { requestId: String(extra.requestId), sessionId });
    const elapsedMs = () => Math.round((performance.now() - started) * 1000) / 1000;
    const gatewayTool = byName.get(name);
    const fail = (error: AfwError): CallToolResult => {
      metrics.observeToolCall(name.slice(0, 64), "error", elapsedMs() / 1000, error.code);
      const body = gatewayTool?.errorBody
        ? gatewayTool.errorBody(error, { trace, elapsedMs: elapsedMs() })
        : { error: error.message, code: error.code, ...(error.details ? { details: error.details } : {}), trace_id: trace.traceId };
      return errorResult(body);
    };
    /** Invalid arguments: a tool error, or JSON-RPC -32602 when `arguments` was left out altogether. */
    const failArguments = (issues: z.ZodError): CallToolResult => {
      const error = invalidArguments(name, issues);
      if (rawArguments === undefined) throw new InvalidParamsError(error.message);
      return fail(error);
    };
    if (!gatewayTool && downstream && (name === CALL_TOOL_NAME || downstream.isDownstreamName(name))) {
      let target = name;
      let targetArguments = args;
      if (name === CALL_TOOL_NAME) {
        const parsedCall = callToolSchema.safeParse(args);
        if (!parsedCall.success) return failArguments(parsedCall.error);
        target = parsedCall.data.name;
        targetArguments = parsedCall.data.arguments;
      }
      // What the downstream server sends during the call (progress, log messages) goes out in
      // order, before the result.
      let sent: Promise<void> = Promise.resolve();
      const send = (task: () => Promise<void>) => {
        sent = sent.then(task).catch(() => undefined);
      };
      const progressToken = extra._meta?.progressToken;
      const onProgress =
        progressToken === undefined
          ? undefined
          : (progress: DownstreamProgress) => {
              const params = { progressToken, ...progress, ...(progress.message === undefined ? {} : { message: redactor.redact(progress.message, { generic: false }) }) };
              send(() => extra.sendNotification({ method: "notifications/progress", params }));
            };
      try {
        const result = await downstream
          .call(session, target, targetArguments, {
            trace,
            signal: extra.signal,
            ...(onProgress ? { onProgress } : {}),
            ...(connection ? { caller: downstreamCaller(connection, extra, send) } : {}),
          })
          .finally(() => sent);
        metrics.observeToolCall(name === CALL_TOOL_NAME ? name : "downstream", result.isError ? "error" : "success", elapsedMs() / 1000);
        return result;
      } catch (error) {
        if (error instanceof JsonRpcError) {
          metrics.observeToolCall(name === CALL_TOOL_NAME ? name : "downstream", "error", elapsedMs() / 1000, "TOOL_EXECUTION_FAILED");
          throw new JsonRpcError(error.code, redactor.redact(error.message), redactor.redactValue(error.data));
        }
        return fail(toAfwError(error, "TOOL_EXECUTION_FAILED"));
      }
    }
    if (!gatewayTool) return fail(new AfwError("TOOL_NOT_FOUND", `unknown tool '${name.slice(0, 100)}'`));
    const parsed = gatewayTool.schema.safeParse(args);
    if (!parsed.success) return failArguments(parsed.error);
    const progressToken = extra._meta?.progressToken;
    let progressChain: Promise<void> = Promise.resolve();
    let progressCount = 0;
    const progress =
      progressToken === undefined
        ? undefined
        : (message: string) => {
            const progressValue = ++progressCount;
            const text = redactor.redact(message, { generic: false });
            progressChain = progressChain
              .then(() => extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress: progressValue, message: text } }))
              .catch(() => undefined);
          };
    const authExtra = extra.authInfo?.extra as { tenant?: unknown } | undefined;
    const context: ToolContext = {
      trace,
      signal: extra.signal,
      tenant: typeof authExtra?.tenant === "string" ? authExtra.tenant : undefined,
      rawArguments: args,
      progress,
      ...(connection ? { elicitation: routeElicitationOf(connection.mcp.server, extra.requestId) } : {}),
    };
    if (context.tenant !== undefined && TENANT_FORBIDDEN_TOOLS.has(name)) {
      return fail(new AfwError("FORBIDDEN", `${name} spans every tenant (or changes the gateway for all of them): use a token without a tenant`));
    }
    try {
      const value = await gatewayTool.run(parsed.data as never, context);
      await progressChain;
      const taskText = session && downstream ? taskTextOf(name, args) : undefined;
      if (taskText !== undefined) await downstream!.remember(session!, taskText).catch(() => undefined);
      metrics.observeToolCall(name, "success", elapsedMs() / 1000);
      return { content: [{ type: "text", text: redactor.redact(jsonText(value), { generic: false }) }] };
    } catch (error) {
      await progressChain;
      if (error instanceof ToolFailure) {
        metrics.observeToolCall(name, "error", elapsedMs() / 1000, error.body.code);
        return errorResult(error.body);
      }
      const afw = toAfwError(error);
      if (!AfwError.isInstance(error)) {
        logger.error({ tool: name, traceId: trace.traceId, err: { message: String((error as Error)?.message ?? error), stack: (error as Error)?.stack } }, "tool failed unexpectedly");
      }
      return fail(afw);
    }
  };

  // One JSON Schema validator for every MCP server of this gateway: the SDK would build a new
  // Ajv instance per server, i.e. per request in stateless HTTP mode.
  let jsonSchemaValidator: AjvJsonSchemaValidator | undefined;
  const createMcpServer = (): McpServer => {
    jsonSchemaValidator ??= new AjvJsonSchemaValidator();
    const mcp = new McpServer(serverInfo, {
      // Logging: downstream servers' log messages are forwarded (filtered by `logging/setLevel`).
      // Resources: the gateway's own (sessions, playbooks) and the downstream servers'; prompts and
      // logging come from downstream servers.
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true },
        ...(downstream ? { prompts: { listChanged: true }, logging: {} } : {}),
      },
      jsonSchemaValidator,
      ...(config.server.instructions ? { instructions: config.server.instructions } : {}),
    });
    for (const gatewayTool of tools) {
      mcp.registerTool(
        gatewayTool.name,
        { title: gatewayTool.title, description: gatewayTool.description, inputSchema: gatewayTool.shape, annotations: gatewayTool.annotations },
        // Calls are dispatched by the handler below; this callback is never reached.
        async () => ({ content: [], isError: true }),
      );
    }
    const stopCatalogNotifications = registerResourcesAndPrompts(mcp, { tools: byName, downstream, redactor, sink });
    let session: DownstreamSessionState | undefined;
    const connection: Connection = { mcp, session: undefined, logLevel: undefined };
    if (downstream) {
      const tools = downstream;
      const state = tools.openSession(() => mcp.sendToolListChanged());
      session = state;
      (connection as { session: DownstreamSessionState | undefined }).session = state;
      mcp.server.setRequestHandler(SetLevelRequestSchema, async (request) => {
        connection.logLevel = request.params.level;
        return {};
      });
      if (tools.exposure === "search") {
        mcp.registerTool(
          CALL_TOOL_NAME,
          {
            title: "Call a downstream tool",
            description:
              "Calls a tool of a downstream MCP server by its namespaced name `server__tool` (find it with `search_tools` first, which also gives its input schema), with its arguments.",
            inputSchema: CallToolInputShape,
            annotations: { openWorldHint: true },
          },
          async () => ({ content: [], isError: true }),
        );
      }
      // tools/list: the gateway's tools as the SDK lists them, then the downstream tools of the
      // exposure mode. The SDK keeps no public handle on its handler, so we take it from its map.
      const handlers = (mcp.server as unknown as { _requestHandlers?: Map<string, (request: unknown, extra: unknown) => Promise<ListToolsResult>> })._requestHandlers;
      const sdkList = handlers?.get("tools/list");
      if (!sdkList) throw new AfwError("INTERNAL", "the MCP SDK's tools/list handler was not found (SDK internals changed)");
      mcp.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
        const base = await sdkList(request, extra);
        const trace = newTraceContext(sink, { requestId: String(extra.requestId) });
        const extraTools = await tools.listTools(state, trace);
        return { ...base, tools: [...base.tools, ...extraTools] };
      });
      const previousOnClose = mcp.server.onclose;
      mcp.server.onclose = () => {
        stopCatalogNotifications();
        tools.release(state);
        // A pooled server (stateless HTTP) serves another client next: forget this one's level and
        // capabilities (the SDK keeps those of the last initialize; it has no public reset).
        connection.logLevel = undefined;
        (mcp.server as unknown as { _clientCapabilities?: unknown })._clientCapabilities = undefined;
        previousOnClose?.();
      };
    }
    // Our own tools/call handler: typed INVALID_INPUT errors, redaction, metrics, and no
    // exception ever reaching the client.
    mcp.server.setRequestHandler(ToolsCallRequestSchema, async (request, extra) => {
      try {
        return await dispatch(request.params.name, request.params.arguments, extra, connection);
      } catch (error) {
        if (error instanceof JsonRpcError) throw error;
        logger.error({ err: { message: String((error as Error)?.message ?? error) } }, "tool dispatch failed");
        return errorResult({ error: "internal error", code: "INTERNAL" });
      }
    });
    return mcp;
  };

  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  let reloading: Promise<unknown> = Promise.resolve();
  const reload = async (input: GatewayConfig | GatewayConfigInput): Promise<GatewayReloadReport> => {
    const next = parseGatewayConfig(input, { source: "<reloaded config>", env: {} });
    const report: GatewayReloadReport = { intentPatterns: false, experiments: false, backends: [], invalidatedFlows: [], restartRequired: [] };
    const { intentPatterns: nextPatterns, ...nextRouting } = next.routing;
    const { intentPatterns: currentPatterns, ...currentRouting } = config.routing;
    if (!same(nextPatterns, currentPatterns)) {
      const reloadable = router as Partial<ReloadableRouterPort>;
      if (typeof reloadable.reload === "function") {
        config.routing.intentPatterns = nextPatterns;
        reloadable.reload(config);
        report.intentPatterns = true;
      } else {
        report.restartRequired.push("routing.intentPatterns (the injected router cannot reload)");
      }
    }
    if (!same(nextRouting, currentRouting)) report.restartRequired.push("routing");
    const { experiments, experimentSeed, ...nextLearning } = next.analytics;
    if (!same({ experiments, experimentSeed }, { experiments: config.analytics.experiments, experimentSeed: config.analytics.experimentSeed })) {
      learning.setExperiments(next.analytics);
      config.analytics.experiments = experiments;
      config.analytics.experimentSeed = experimentSeed;
      report.experiments = true;
    }
    const { experiments: _experiments, experimentSeed: _seed, ...currentLearning } = config.analytics;
    if (!same(nextLearning, currentLearning)) report.restartRequired.push("analytics.learning");
    const backendShape = (b: GatewayConfig["backends"][number]) => ({ ...b, flows: undefined });
    for (const backendConfig of next.backends) {
      const current = config.backends.find((b) => b.id === backendConfig.id);
      if (!current) {
        report.restartRequired.push(`backends.${backendConfig.id} (added)`);
        continue;
      }
      if (!same(backendShape(current), backendShape(backendConfig))) report.restartRequired.push(`backends.${backendConfig.id}`);
      if (same(current.flows, backendConfig.flows)) continue;
      const entry = registry.get(current.id);
      if (!entry || entry.source !== "config" || !current.enabled) {
        report.restartRequired.push(`backends.${current.id}.flows (not built from the configuration)`);
        continue;
      }
      const updated = { ...current, flows: backendConfig.flows };
      const rebuilt = await backendFactory(updated);
      // Swapped in one step (the backend never goes missing); calls running on the old adapter
      // finish on it, and it is closed once they settle.
      await registry.replace(rebuilt, { config: updated, source: "config" });
      const before = new Map(current.flows.map((flow) => [flow.id, JSON.stringify(flow)]));
      const after = new Map(backendConfig.flows.map((flow) => [flow.id, JSON.stringify(flow)]));
      for (const id of new Set([...before.keys(), ...after.keys()])) {
        if (before.get(id) === after.get(id)) continue;
        const flowId = flowKey(current.id, id);
        pipeline.invalidateFlow(flowId);
        await stores.cache.invalidate({ flowId }).catch(() => undefined);
        report.invalidatedFlows.push(flowId);
      }
      current.flows = backendConfig.flows;
      report.backends.push(current.id);
    }
    for (const current of config.backends) {
      if (!next.backends.some((b) => b.id === current.id)) report.restartRequired.push(`backends.${current.id} (removed)`);
    }
    for (const key of Object.keys(next) as Array<keyof GatewayConfig>) {
      if (key === "routing" || key === "analytics" || key === "backends") continue;
      if (!same(next[key], config[key])) report.restartRequired.push(key);
    }
    logger.info({ reload: report }, "configuration reloaded");
    return report;
  };

  let closed: Promise<void> | undefined;
  return {
    config,
    registry,
    pipeline,
    stores,
    traces: ring,
    auditLog,
    analytics: analytics.service,
    learning,
    sink,
    metrics,
    logger,
    redactor,
    tools,
    toolSearch,
    downstream,
    serverInfo,
    createMcpServer,
    async connect(transport) {
      const mcp = createMcpServer();
      await mcp.connect(transport);
      return mcp;
    },
    async warmUp() {
      await Promise.allSettled([registry.flows(), registry.checkHealth(), router.warmUp?.()]);
    },
    reload(input) {
      // One reload at a time: a second waits for the first (both apply, in order).
      const run = reloading.then(
        () => reload(input),
        () => reload(input),
      );
      reloading = run.catch(() => undefined);
      return run;
    },
    async readiness(options = {}) {
      const signal = options.signal ?? AbortSignal.timeout(config.routing.health.timeoutMs);
      const checks: ReadinessReport["checks"] = [];
      const entries = registry.entries();
      const healths = await Promise.all(
        entries.map(async (entry) => (await registry.latestHealth(entry.backend.id)) ?? (await registry.checkHealth({ backendId: entry.backend.id, signal }))[0]),
      );
      entries.forEach((entry, index) => {
        const health = healths[index];
        checks.push({ name: `backend:${entry.backend.id}`, ok: health !== undefined && health.status !== "down", ...(health ? { status: health.status } : {}) });
      });
      const probes: ReadinessCheck[] = [{ name: "cache", check: async () => void (await stores.cache.stats()) }, ...readinessChecks];
      for (const probe of probes) {
        try {
          const ok = await probe.check(signal);
          checks.push({ name: probe.name, ok: ok !== false });
        } catch (error) {
          checks.push({ name: probe.name, ok: false, message: redactor.redact(String((error as Error)?.message ?? error)) });
        }
      }
      if (downstream) checks.push(...downstreamReadinessChecks(downstream.manager, redactor));
      const backendChecks = checks.filter((c) => c.name.startsWith("backend:"));
      const otherChecks = checks.filter((c) => !c.name.startsWith("backend:"));
      // Nothing to route to (none configured, all unreachable, or keys refused): not ready, and say what to configure.
      const setup = await describeSetup(registry, { signal });
      if (backendChecks.length === 0) checks.push({ name: "backends", ok: false, message: setup.hint! });
      for (const status of setup.backends) {
        const check = checks.find((c) => c.name === `backend:${status.id}`);
        if (!check || status.state === "ready") continue;
        if (status.state === "unauthorized") check.ok = false;
        check.message = redactor.redact(`${status.id} ${status.message}`);
      }
      const ready = otherChecks.every((c) => c.ok) && backendChecks.some((c) => c.ok);
      return { ready, checks, ...(setup.hint ? { hint: redactor.redact(setup.hint) } : {}) };
    },
    close() {
      closed ??= (async () => {
        await downstream?.close().catch(() => undefined);
        await registry.close();
        await otlp?.close();
        await toolSearch.close?.().catch(() => undefined);
        await router.close?.().catch(() => undefined);
        for (const disposable of disposables) await Promise.resolve(disposable.close()).catch(() => undefined);
        // After everything that may still emit trace events; pending audit writes are flushed.
        await closeAnalyticsStores();
        logger.flush?.();
      })();
      return closed;
    },
  };
}
