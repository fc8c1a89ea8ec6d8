import {
  ANALYTICS_TOOLS,
  RecordFeedbackInputSchema,
  createAbAssignment,
  createAnalyticsService,
  createLearnedRoutingPrior,
  createMemoryAuditLog,
  createMemoryFeedbackStore,
  createRedisAuditLog,
  createRedisFeedbackStore,
  createRedisPriorStore,
  type AbAssignment,
  type AnalyticsService,
  type AnalyticsToolName,
  type AuditEvent,
  type AuditLog,
  type ConfiguredBackendFlows,
  type FeedbackStore,
  type LearnedRoutingPrior,
} from "@afw/analytics";
import { createRedisClient } from "@afw/cache";
import { AfwError, type Embedder, type Redactor, type RoutingVariantSelector, type TraceSink } from "@afw/contracts";
import type { GatewayStores } from "./gateway-types.js";
import { z } from "zod";
import type { BackendRegistry } from "./backend-registry.js";
import type { GatewayConfig } from "./config-schema.js";
import type { GatewayTool, ToolContext } from "./gateway-tool.js";
import type { QueryPipeline } from "./query-pipeline.js";

/** Events the in-memory audit log keeps, approximate most entries of the Redis audit stream, and the age after which audit
 * events are trimmed (7 days, the longest analytics range). */
const MEMORY_AUDIT_LOG_CAPACITY = 50_000;
const REDIS_AUDIT_LOG_MAX_LENGTH = 100_000;
const AUDIT_LOG_MAX_AGE_MS = 7 * 86_400_000;

/** A client of its own for one analytics store, built by `@afw/cache` so that Sentinel and Cluster URLs work as they do
 * for the other stores (ioredis alone takes `redis+cluster://` for a socket path). */
function analyticsRedis(redis: NonNullable<GatewayConfig["redis"]>) {
  return { client: createRedisClient(redis.url, { lazyConnect: true, operationTimeoutMs: 500 }), closeClient: true, keyPrefix: `${redis.keyPrefix}analytics:` };
}

/** Creates the gateway's audit log and feedback store: Redis (under `<redis.keyPrefix>analytics:`) when `config.redis` is set, so every instance records
 * to and reports from one stream; else in process memory (a ring buffer of {@link MEMORY_AUDIT_LOG_CAPACITY} events). */
export function createGatewayAnalyticsStores(config: GatewayConfig, options: { now?: () => number } = {}): { auditLog: AuditLog; feedbackStore: FeedbackStore } {
  const clock = options.now ? { now: options.now } : {};
  if (config.redis) {
    return {
      auditLog: createRedisAuditLog({ ...analyticsRedis(config.redis), maxLength: REDIS_AUDIT_LOG_MAX_LENGTH, maxAgeMs: AUDIT_LOG_MAX_AGE_MS, ...clock }),
      feedbackStore: createRedisFeedbackStore({ ...analyticsRedis(config.redis), ...clock }),
    };
  }
  return {
    auditLog: createMemoryAuditLog({ capacity: MEMORY_AUDIT_LOG_CAPACITY, maxAgeMs: AUDIT_LOG_MAX_AGE_MS, ...clock }),
    feedbackStore: createMemoryFeedbackStore(),
  };
}

/** The learning loop of a gateway: the learned routing prior (a trace sink that learns from every backend call, and the router's
 * score adjuster) and the A/B assignment of routing experiments (the router's variant selector). */
export interface GatewayLearning {
  /** The learned routing prior, or undefined when `analytics.learning.enabled` is false. */
  readonly prior: LearnedRoutingPrior | undefined;
  /** The A/B assignment of `analytics.experiments` (undefined when none is configured). */
  readonly ab: AbAssignment | undefined;
  /** Variant selector over the current experiments (undefined when none is configured). */
  variantSelector(): RoutingVariantSelector | undefined;
  /** Replaces the experiments (configuration reload); assignments stay sticky for unchanged ids. @throws AfwError `CONFIG_INVALID` for invalid experiments. */
  setExperiments(analytics: GatewayConfig["analytics"]): void;
  /** Flushes and closes the prior (when the gateway created it). Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link createGatewayLearning}: the recorder of `ab-assigned` records (the audit log), a ready prior (not closed by the gateway). */
export interface GatewayLearningOptions {
  recorder?: { emit(event: AuditEvent): void } | undefined;
  prior?: LearnedRoutingPrior | undefined;
  now?: (() => number) | undefined;
}

/** Creates the gateway's {@link GatewayLearning} from `config.analytics`: a learned prior with the defaults of `@afw/analytics` — on a Redis prior store under `<redis.keyPrefix>analytics:` when `redis` is configured, so every instance learns from
 * every instance's traffic — and the A/B assignment of `experiments`, recording every assignment as an `ab-assigned` audit event. @throws AfwError `CONFIG_INVALID` for invalid experiments. */
export function createGatewayLearning(config: GatewayConfig, options: GatewayLearningOptions = {}): GatewayLearning {
  const settings = config.analytics.learning;
  const ownPrior = options.prior === undefined && settings.enabled;
  const prior =
    options.prior ??
    (settings.enabled
      ? createLearnedRoutingPrior({
          ...(config.redis ? { store: createRedisPriorStore(analyticsRedis(config.redis)) } : {}),
          ...(options.now ? { now: options.now } : {}),
        })
      : undefined);
  const build = (analytics: GatewayConfig["analytics"]) =>
    analytics.experiments.length === 0
      ? undefined
      : createAbAssignment({
          experiments: analytics.experiments,
          ...(options.recorder ? { recorder: options.recorder } : {}),
          ...(options.now ? { now: options.now } : {}),
        });
  let ab = build(config.analytics);
  let closed: Promise<void> | undefined;
  return {
    prior,
    get ab() {
      return ab;
    },
    variantSelector: () => ab?.variantSelector,
    setExperiments(analytics) {
      ab = build(analytics);
    },
    close() {
      closed ??= ownPrior && prior ? prior.close().catch(() => undefined) : Promise.resolve();
      return closed;
    },
  };
}

/** A trace sink that redacts every event with `redactor` before handing it to `target`, so the trace ring buffer and the
 * audit log never store a configured secret. */
export function createRedactingSink(target: TraceSink, redactor: Redactor): TraceSink {
  return {
    emit(event) {
      target.emit(redactor.size > 0 ? redactor.redactValue(event) : event);
    },
  };
}

/** What {@link createAnalyticsTools} needs from the gateway: `prior` (linked `record_feedback` ratings adjust routing too) and
 * `embedder` (for `pattern_analysis`, which answers `CONFIG_INVALID` without one) are optional. */
export interface AnalyticsToolDependencies {
  registry: BackendRegistry;
  pipeline: QueryPipeline;
  stores: GatewayStores;
  auditLog: AuditLog;
  feedbackStore: FeedbackStore;
  prior?: LearnedRoutingPrior | undefined;
  embedder?: Embedder | undefined;
  now?: (() => number) | undefined;
}

/** The analytics service and its MCP tools. */
export interface AnalyticsTools {
  service: AnalyticsService;
  tools: GatewayTool[];
}

const ANNOTATIONS: Record<AnalyticsToolName, GatewayTool["annotations"]> = {
  analytics_dashboard: { readOnlyHint: true, idempotentHint: true },
  analyze_flow: { readOnlyHint: true, idempotentHint: true },
  pattern_analysis: { readOnlyHint: true, idempotentHint: true },
  export_metrics: { readOnlyHint: true, idempotentHint: true },
  sync_flow_registry: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  record_feedback: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
};

/** The configured flow registry of every backend (from the configuration or `backend_connect`), as `sync_flow_registry` compares it. */
function configuredRegistry(registry: BackendRegistry): ConfiguredBackendFlows[] {
  return registry.entries().map((entry) => ({ backendId: entry.backend.id, flows: (entry.config?.flows ?? []).map((flow) => ({ ...flow })) as ConfiguredBackendFlows["flows"] }));
}

/** Builds the analytics service over the gateway's audit log, feedback store, sessions and query pipeline, and its six MCP tools (`analytics_dashboard`, `analyze_flow`, `pattern_analysis`,
 * `export_metrics`, `sync_flow_registry`, `record_feedback`) as {@link GatewayTool}s, served like every other gateway tool (validated input, JSON results, typed errors, redaction). */
export function createAnalyticsTools(deps: AnalyticsToolDependencies): AnalyticsTools {
  const { pipeline, stores: { sessions, cache } } = deps;
  const tenantOptions = (context: ToolContext) => (context.tenant === undefined ? undefined : { tenant: context.tenant });
  const service = createAnalyticsService({
    auditLog: deps.auditLog,
    feedbackStore: deps.feedbackStore,
    ...(deps.embedder ? { embedder: deps.embedder } : {}),
    ...(deps.prior ? { prior: deps.prior } : {}),
    questionOf: (traceId) => pipeline.questionOf(traceId),
    resolveTurn: async (sessionId, turn) => (await sessions.get(sessionId))?.turnsList[turn - 1]?.traceId,
    ...(deps.now ? { now: deps.now } : {}),
  });
  const define = (name: AnalyticsToolName, run: (args: never, context: ToolContext) => Promise<unknown>, schema: z.ZodType = z.object(ANALYTICS_TOOLS[name].inputShape).strict()): GatewayTool => {
    const { title, description, inputShape: shape } = ANALYTICS_TOOLS[name];
    return { name, title, description, shape, schema, annotations: ANNOTATIONS[name], run: run as GatewayTool["run"] };
  };
  // The tools receive the parsed arguments; the service validates again (defaults are idempotent).
  const tools: GatewayTool[] = [
    define("analytics_dashboard", async (args: Record<string, unknown>) => service.analyticsDashboard(args)),
    define("analyze_flow", async (args: { flow_id: string }) => service.analyzeFlow(args)),
    define("pattern_analysis", async (args: Record<string, unknown>) => service.patternAnalysis(args)),
    define("export_metrics", async (args: Record<string, unknown>) => service.exportMetrics(args)),
    define("sync_flow_registry", async (args: { apply?: boolean }, context: ToolContext) => {
      const discovered = await deps.registry.flows();
      return service.syncFlowRegistry(args, {
        discovered,
        configured: configuredRegistry(deps.registry),
        invalidate: async (flowId) => {
          pipeline.invalidateFlow(flowId, context.tenant);
          await cache.invalidate({ flowId, ...(context.tenant === undefined ? {} : { tenant: context.tenant }) });
        },
      });
    }),
    define("record_feedback", async (args: { session_id: string; turn?: number; trace_id?: string; rating: number }, context: ToolContext) => {
      const session = await sessions.get(args.session_id, tenantOptions(context));
      if (!session) throw new AfwError("NOT_FOUND", `no session '${args.session_id}'`, { details: { session_id: args.session_id } });
      if (args.trace_id === undefined && args.turn !== undefined && session.turnsList[args.turn - 1] === undefined) {
        throw new AfwError("NOT_FOUND", `session '${args.session_id}' has no turn ${args.turn} (it keeps ${session.turnsList.length})`, {
          details: { session_id: args.session_id, turn: args.turn, turns: session.turnsList.length },
        });
      }
      const result = await service.recordFeedback(args);
      return { ...result, ...(result.stored ? {} : { warning: "the feedback store is unavailable: the rating was not kept" }) };
    }, RecordFeedbackInputSchema),
  ];
  return { service, tools };
}
