import { readFileSync } from "node:fs";
import { createRedactor, fanOutTraceSink, toAfwError, type TraceSink } from "@afw/contracts";
import { createMemoryStores, createRedisStores } from "@afw/cache";
import { defaultBackendFactory } from "./backend-factory.js";
import { createBackendRegistry } from "./backend-registry.js";
import { createRouterPort } from "./router-port.js";
import { parseGatewayConfig } from "./config-loader.js";
import { GatewayConfigSchema, type GatewayConfig, type GatewayConfigInput } from "./config-schema.js";
import { createAnalyticsTools, createGatewayAnalyticsStores, createGatewayLearning, createRedactingSink } from "./gateway-analytics.js";
import { createMcpServerFactory } from "./gateway-mcp.js";
import { reloadGateway } from "./gateway-reload.js";
import type { GatewayParts, GatewayServer, GatewayStores, ReadinessReport } from "./gateway-types.js";
import { createGatewayTools } from "./gateway-tools.js";
import { createDownstreamTools, type DownstreamTools } from "./downstream-tools.js";
import { createGatewayLogger } from "./logger.js";
import { createStoreStateLog } from "./store-state-log.js";
import { createGatewayMetrics } from "./metrics.js";
import { createOtlpTraceSink } from "./otlp-trace-sink.js";
import type { WorkflowCatalogPort } from "./gateway-types.js";
import type { ToolIndex } from "@afw/tool-zoo";
import { createQueryPipeline } from "./query-pipeline.js";
import { semanticParts } from "./semantic-options.js";
import { configSecrets } from "./redactor.js";
import { downstreamReadinessChecks, logDownstreamStates } from "./downstream-observability.js";
import { createToolSearchFromConfig, createWorkflowCatalogFromConfig, embedderFromConfig, vectorCacheFile } from "./tool-zoo-adapter.js";
import { newTraceContext } from "./trace-context.js";
import { createLogTraceSink, createTraceRingBuffer } from "./trace-sinks.js";
import { describeSetup } from "./setup-report.js";

/** The gateway type, beside its factory. */
export type { GatewayServer } from "./gateway-types.js";

/** How long a gateway waits for its first Redis connection before serving (ms). */
const REDIS_FIRST_CONNECTION_WAIT_MS = 10_000;

const CONFIG_KEYS: ReadonlySet<string> = new Set(Object.keys(GatewayConfigSchema.shape));

/** Parts or a configuration? */
function isParts(input: object): input is GatewayParts {
  const backends = (input as Record<string, unknown>)["backends"];
  if (Object.keys(input).some((key) => !CONFIG_KEYS.has(key))) return true;
  return Array.isArray(backends) && backends.some((b) => typeof b === "object" && b !== null && "specificationVersion" in b);
}

/** The package's version, announced to MCP clients unless `server.version` is set. */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version?: string }).version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}

/**
 * Creates a gateway from a configuration (e.g. from {@link loadGatewayConfig}) or from parts: backends, stores, router, catalogs, trace sinks,
 * and the MCP tools its `createMcpServer()` serves (see the README's tool table).
 * @example
 * ```ts
 * const gateway = await createGatewayServer({ backends: [myBackend], config: { routing: { health: { intervalMs: 0 } } } });
 * await gateway.connect(serverTransport);
 * ```
 * @throws AfwError `CONFIG_INVALID` for an invalid configuration, an unreadable catalog, or a backend kind the factory cannot build.
 */
export async function createGatewayServer(input: GatewayConfig | GatewayConfigInput | GatewayParts = {}): Promise<GatewayServer> {
  const parts: GatewayParts = isParts(input) ? input : { config: input as GatewayConfigInput };
  const config = parseGatewayConfig(parts.config ?? {}, { source: "<gateway config>", env: {} });
  const now = parts.now ?? Date.now;
  const redactor = createRedactor([...configSecrets(config), ...(parts.secrets ?? [])]);
  const logger = createGatewayLogger({ level: config.logging.level, redactor, ...(parts.logDestination ? { destination: parts.logDestination } : {}) });
  const metrics = createGatewayMetrics({ defaultMetrics: config.metrics.defaultMetrics });
  const ring = createTraceRingBuffer();
  const otlp = config.trace.otlp
    ? createOtlpTraceSink({ ...config.trace.otlp, redactor, onError: (error) => logger.warn({ err: redactor.redact(String((error as Error)?.message ?? error)) }, "OTLP export failed") })
    : undefined;
  const sinks: TraceSink[] = [metrics.sink, ...(otlp ? [otlp] : [])];
  sinks.push(createLogTraceSink(logger));
  // The ring buffer and the audit log keep the same redacted events.
  const { auditLog, feedbackStore } = createGatewayAnalyticsStores(config, { now });
  sinks.push(createRedactingSink(fanOutTraceSink(ring, auditLog), redactor));
  // The learned prior learns from the same events; A/B assignments are recorded in the audit log.
  const learning = createGatewayLearning(config, { recorder: auditLog, ...(parts.learnedPrior ? { prior: parts.learnedPrior } : {}), now });
  if (learning.prior) sinks.push(learning.prior);
  const closeAnalyticsStores = async () => {
    await learning.close();
    await auditLog.close().catch(() => undefined);
    await feedbackStore.close().catch(() => undefined);
  };
  sinks.push(...(parts.traceSinks ?? []));
  const sink = fanOutTraceSink(...sinks);
  // Shared state: Redis when configured (every instance sees the same cache, sessions, metrics, health and circuits), else process memory.
  const semantic = semanticParts(config);
  const sessionOptions = {
    maxTurns: config.sessions.maxTurns,
    ttlMs: config.sessions.ttlSeconds * 1000,
    recentTurns: Math.max(1, config.sessions.contextTurns),
    ...(semantic.historyEmbedder ? { embedder: semantic.historyEmbedder } : {}),
  };
  const redisStores = config.redis
    ? createRedisStores({
        url: config.redis.url,
        keyPrefix: config.redis.keyPrefix,
        operationTimeoutMs: config.redis.operationTimeoutMs,
        responseCache: { semantic: semantic.cacheSemantic },
        sessions: { ...sessionOptions, buffer: config.redis.sessionBuffer },
        trace: newTraceContext(sink, { requestId: "redis-stores" }),
        onEvent: createStoreStateLog(logger),
      })
    : undefined;
  // The first connection (a Cluster's slot map, a Sentinel's master lookup) is awaited before serving: a request arriving first found Redis still
  // connecting and, at `initialize`, answered with an MCP session the other instances refused as not found.
  await redisStores?.connection.execute((client) => client.ping(), { timeoutMs: REDIS_FIRST_CONNECTION_WAIT_MS });
  const defaultStores = redisStores ?? createMemoryStores({ now, responseCache: { semantic: semantic.cacheSemantic }, sessions: sessionOptions });
  const stores: GatewayStores = {
    cache: defaultStores.responseCache,
    sessions: defaultStores.sessionStore,
    performance: defaultStores.performanceStore,
    health: defaultStores.healthStore,
    circuits: defaultStores.circuitStateStore,
    mcpSessions: parts.mcpSessions ?? defaultStores.mcpSessionRegistry,
    ...(redisStores ? { rateLimits: redisStores.rateLimiter } : {}),
  };
  const registry = createBackendRegistry({ sink, discoveryTimeoutMs: config.routing.health.timeoutMs, now });
  const backendFactory = parts.backendFactory ?? defaultBackendFactory;
  const injected = new Map((parts.backends ?? []).map((backend) => [backend.id, backend]));
  const catalogEmbedder = embedderFromConfig(config.tools.embedder);
  let toolSearch!: ToolIndex;
  let workflowCatalog: WorkflowCatalogPort;
  let downstream: DownstreamTools | undefined;
  try {
    for (const backendConfig of config.backends) {
      if (!backendConfig.enabled) continue;
      const backend = injected.get(backendConfig.id);
      injected.delete(backendConfig.id);
      registry.add(backend ?? (await backendFactory(backendConfig)), { config: backendConfig, source: backend ? "parts" : "config" });
    }
    for (const backend of injected.values()) registry.add(backend, { source: "parts" });
    const catalogOptions = { sink, ...(catalogEmbedder ? { embedder: catalogEmbedder } : {}) };
    toolSearch = await createToolSearchFromConfig(config.tools, {
      ...catalogOptions,
      ...(config.chroma ? { chroma: config.chroma } : {}),
      ...(config.redis && redisStores ? { redis: { connection: redisStores.connection, keyPrefix: config.redis.keyPrefix } } : {}),
    });
    workflowCatalog =
      parts.workflowCatalog ??
      (await createWorkflowCatalogFromConfig(config.workflows, {
        ...catalogOptions,
        ...(catalogEmbedder ? { embeddingCachePath: vectorCacheFile(config.tools, catalogEmbedder, "workflows") } : {}),
      }));
    if (config.downstream.servers.length > 0 || config.downstream.mcpJson !== undefined) {
      downstream = createDownstreamTools({
        downstream: config.downstream,
        tools: config.tools,
        index: toolSearch,
        sink,
        onError: (error, where) => logger.warn({ err: redactor.redact(String((error as Error)?.message ?? error)), where }, "downstream tools"),
        // Log messages sent outside of one client's call stay in the gateway's log.
        onServerLog: (message) => logger.debug({ server: message.server, level: message.level, logger: message.logger, data: redactor.redactValue(message.data) }, "downstream log message"),
      });
      logDownstreamStates(downstream.manager, logger, redactor);
      metrics.trackDownstream(() => downstream!.manager.status());
      // In the background: a server that never answers initialize must not hold up startup or /healthz.
      downstream.start();
    }
  } catch (error) {
    await downstream?.close().catch(() => undefined);
    await registry.close();
    await toolSearch?.close().catch(() => undefined);
    await defaultStores.close().catch(() => undefined);
    await closeAnalyticsStores();
    throw toAfwError(error, "CONFIG_INVALID");
  }
  if (toolSearch.vectorState().state === "building") {
    // Tool vectors are computed in the background; search_tools is keyword-only until then.
    const started = performance.now();
    void toolSearch.vectorsReady().then(
      () => logger.info({ toolVectors: toolSearch.vectorState(), ms: Math.round(performance.now() - started) }, "tool vectors ready: search_tools is hybrid"),
      () => undefined,
    );
  }
  // `routing.classifierEmbedder: auto` was resolved at parse time (the cascade where onnxruntime-node is installed): say which.
  logger.info({ classifierEmbedder: config.routing.classifierEmbedder }, "intent classifier");
  const router = createRouterPort({
    config,
    registry,
    stores,
    sink,
    now,
    learning: {
      ...(learning.prior ? { scoreAdjuster: learning.prior.scoreAdjuster, maxScoreAdjustment: learning.prior.maxAdjustment } : {}),
      // Through the learning object, so a reload's experiments apply at once.
      variantSelector: (request) => learning.variantSelector()?.(request),
    },
  });
  const pipeline = createQueryPipeline({ config, registry, router, cache: stores.cache, sessions: stores.sessions, now, embedQuestion: semantic.embedQuestion });
  const analytics = createAnalyticsTools({ registry, pipeline, stores, auditLog, feedbackStore, embedder: catalogEmbedder, prior: learning.prior, now });
  const tools = createGatewayTools({ config, registry, router, pipeline, stores, toolSearch, workflowCatalog, backendFactory, redactor }).concat(analytics.tools);
  const serverInfo = { name: config.server.name, version: config.server.version ?? packageVersion() };
  const probeAll = () => void router.checkHealth().catch(() => undefined);
  const healthTimer = config.routing.health.intervalMs > 0 ? setInterval(probeAll, config.routing.health.intervalMs).unref() : undefined;
  if (healthTimer) probeAll();
  const createMcpServer = createMcpServerFactory({ config, tools, downstream, redactor, sink, metrics, logger, serverInfo });
  let reloading: Promise<unknown> = Promise.resolve();
  let closed: Promise<void> | undefined;
  return {
    config,
    registry,
    router,
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
      await Promise.allSettled([registry.flows(), router.checkHealth(), router.warmUp()]);
    },
    reload(input) {
      // One reload at a time: a second waits for the first (both apply, in order).
      const apply = () => reloadGateway({ config, router, learning, registry, backendFactory, pipeline, stores, logger }, input);
      const run = reloading.then(apply, apply);
      reloading = run.catch(() => undefined);
      return run;
    },
    async readiness(options = {}) {
      const signal = options.signal ?? AbortSignal.timeout(config.routing.health.timeoutMs);
      // Nothing to route to (none configured, all unreachable, or keys refused): not ready, and say what to configure.
      const setup = await describeSetup({ registry, router }, { signal });
      const checks: ReadinessReport["checks"] = setup.backends.map((status) => ({
        name: `backend:${status.id}`,
        ok: status.health !== undefined && status.health !== "down" && status.state !== "unauthorized",
        ...(status.health ? { status: status.health } : {}),
        ...(status.state === "ready" ? {} : { message: redactor.redact(`${status.id} ${status.message}`) }),
      }));
      const probes: { name: string; check: () => Promise<unknown> }[] = [{ name: "cache", check: () => stores.cache.stats() }];
      if (redisStores) probes.push({ name: "redis", check: () => redisStores.health().then((health) => health.ok || Promise.reject(new Error(health.message ?? `redis is ${health.status}`))) });
      for (const probe of probes) {
        try {
          await probe.check();
          checks.push({ name: probe.name, ok: true });
        } catch (error) {
          checks.push({ name: probe.name, ok: false, message: redactor.redact(String((error as Error)?.message ?? error)) });
        }
      }
      if (downstream) checks.push(...downstreamReadinessChecks(downstream.manager, redactor));
      const backendChecks = checks.filter((c) => c.name.startsWith("backend:"));
      const otherChecks = checks.filter((c) => !c.name.startsWith("backend:"));
      if (backendChecks.length === 0) checks.push({ name: "backends", ok: false, message: setup.hint! });
      const ready = otherChecks.every((c) => c.ok) && backendChecks.some((c) => c.ok);
      return { ready, checks, ...(setup.hint ? { hint: redactor.redact(setup.hint) } : {}) };
    },
    close() {
      closed ??= (async () => {
        clearInterval(healthTimer);
        await downstream?.close().catch(() => undefined);
        await registry.close();
        await otlp?.close();
        await toolSearch.close().catch(() => undefined);
        await router.close().catch(() => undefined);
        await defaultStores.close().catch(() => undefined);
        // After everything that may still emit trace events; pending audit writes are flushed.
        await closeAnalyticsStores();
        logger.flush?.();
      })();
      return closed;
    },
  };
}
