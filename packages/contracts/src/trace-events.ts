import { z } from "zod";
import { CascadeStepSchema, ClassificationMethodSchema, IntentAlternativeSchema, IntentSchema } from "./intent.js";
import { RoutingDecisionSchema } from "./routing.js";
import { HealthStatusSchema } from "./backend.js";
import { SearchModeSchema } from "./catalog.js";

/** Fields every trace event carries. */
const base = {
  traceId: z.string().min(1).describe("Id shared by every event of one query (and its MCP request)."),
  requestId: z.string().min(1).describe("Id of the MCP/HTTP request that caused the event."),
  sessionId: z.string().optional().describe("Conversation id, when the query had one."),
  timestamp: z.iso.datetime().describe("When the event happened (ISO 8601, UTC)."),
} as const;

const outcome = z.enum(["success", "error", "timeout", "aborted"]);
const cacheScope = z.enum(["shared", "session"]);
const confidence = z.number().min(0).max(1);
const ms = z.number().nonnegative();
const count = z.number().int().nonnegative();
const attempt = z.number().int().min(1);
const toolListMode = z.enum(["all", "search", "routed"]);
/** The shapes several events share. */
const backendAttempt = { backendId: z.string(), flowId: z.string(), attempt };
const toolAttempt = { server: z.string(), tool: z.string(), attempt };
const circuit = { key: z.string(), backendId: z.string(), flowId: z.string().optional() };
const handover = { fromBackendId: z.string(), fromFlowId: z.string(), toBackendId: z.string(), toFlowId: z.string() };

const event = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({ type: z.literal(type), ...base, ...shape });

const QueryReceivedEventSchema = event("query-received", {
  tool: z.string(),
  questionLength: count,
  intentRequested: z.string().optional(),
  backendRequested: z.string().optional(),
}).describe("a query entered the gateway.");
const QueryAnsweredEventSchema = event("query-answered", {
  backendId: z.string(),
  flowId: z.string(),
  durationMs: ms,
  attempts: count,
  fallbackUsed: z.boolean(),
  cacheHit: z.union([z.boolean(), z.literal("semantic")]),
}).describe("a query was answered.");
const QueryFailedEventSchema = event("query-failed", {
  code: z.string(),
  message: z.string(),
  durationMs: ms,
  attempts: count,
}).describe("a query ended in an error.");
const IntentClassifiedEventSchema = event("intent-classified", {
  intent: IntentSchema,
  confidence,
  method: ClassificationMethodSchema,
  cascade: CascadeStepSchema.optional().describe("With a classifier cascade: which stage answered."),
  alternatives: z.array(IntentAlternativeSchema),
  durationMs: ms,
}).describe("the intent of a question was decided.");
const RoutingDecidedEventSchema = event("routing-decided", { decision: RoutingDecisionSchema }).describe("candidates were scored and ranked.");
const RouterLowConfidenceEventSchema = event("router-low-confidence", {
  intent: IntentSchema,
  confidence,
  threshold: confidence,
  strategy: z.enum(["hedge", "general-purpose", "default-flow"]),
}).describe("the intent was too uncertain; the router used its fallback strategy.");
const RouteElicitedEventSchema = event("route-elicited", {
  tier: z.enum(["confirm", "clarify"]),
  intent: IntentSchema,
  confidence,
  action: z.enum(["accept", "decline", "cancel", "timeout", "error"]).describe("The client's answer; `timeout` and `error` take the default route like `decline`."),
  choices: z.array(z.string()).describe("Gateway-wide flow ids offered, in the order shown."),
  suggestedFlowId: z.string().describe("The router's first choice (the default route)."),
  chosenFlowId: z.string().optional().describe("With `accept`: the flow the client chose."),
  waitedMs: ms,
}).describe("the client was asked to confirm or choose the flow of an uncertain question.");
const BackendCallStartEventSchema = event("backend-call-start", {
  ...backendAttempt,
  streaming: z.boolean(),
  hedged: z.boolean().optional(),
}).describe("an attempt against a backend began.");
const BackendCallEndEventSchema = event("backend-call-end", {
  ...backendAttempt,
  latencyMs: ms,
  outcome,
  errorCode: z.string().optional(),
  statusCode: z.number().int().optional(),
}).describe("an attempt against a backend ended.");
const RetryScheduledEventSchema = event("retry-scheduled", {
  ...backendAttempt,
  delayMs: ms,
  errorCode: z.string(),
}).describe("a retryable failure will be retried after a delay.");
const FallbackTriggeredEventSchema = event("fallback-triggered", {
  ...handover,
  reason: z.string().describe("Error code that caused the fallback."),
}).describe("the router moved on to another candidate.");
const StreamRestartedEventSchema = event("stream-restarted", {
  ...handover,
  reason: z.string().describe("Error code of the attempt whose stream broke."),
  restart: attempt.describe("1-based number of this restart within the query."),
  tokensDiscarded: count.describe("Tokens of the broken stream already sent to the caller."),
}).describe("a streamed answer broke after tokens were sent and starts again (retry or fallback).");
const HedgeStartedEventSchema = event("hedge-started", {
  flowIds: z.array(z.string()).min(2),
}).describe("two candidates run in parallel for a low-confidence question.");
const CircuitOpenedEventSchema = event("circuit-opened", {
  ...circuit,
  failures: count,
  cooldownMs: ms,
}).describe("a backend or flow failed too often and is skipped for a cooldown.");
const CircuitHalfOpenedEventSchema = event("circuit-half-opened", circuit).describe("a cooldown ended; one probe call may pass.");
const CircuitClosedEventSchema = event("circuit-closed", circuit).describe("a probe succeeded; traffic flows again.");
const HealthCheckedEventSchema = event("health-checked", {
  backendId: z.string(),
  status: HealthStatusSchema,
  latencyMs: ms,
}).describe("a backend was probed.");
const FlowsDiscoveredEventSchema = event("flows-discovered", {
  backendId: z.string(),
  count,
  stale: z.boolean().describe("True when discovery failed and the previous list is served."),
}).describe("a backend's flow list was (re)loaded.");
const CacheHitEventSchema = event("cache-hit", {
  scope: cacheScope,
  flowId: z.string(),
  kind: z.enum(["exact", "semantic"]),
  similarity: confidence.optional(),
}).describe("an answer was served from the cache.");
const CacheMissEventSchema = event("cache-miss", {
  scope: cacheScope,
  flowId: z.string().optional(),
  reason: z
    .enum(["absent", "corrupt", "unavailable", "bypass", "expired", "session-memory"])
    .describe("`session-memory`: a cached answer inside a session whose flow keeps its own memory, which would then miss the turn."),
}).describe("no usable cached answer.");
const CacheWriteEventSchema = event("cache-write", {
  scope: cacheScope,
  flowId: z.string(),
  ttlSeconds: z.number().int().positive(),
}).describe("an answer was cached.");
const CacheInvalidateEventSchema = event("cache-invalidate", {
  selector: z.object({
    flowId: z.string().optional(),
    sessionId: z.string().optional(),
    scope: cacheScope.optional(),
    all: z.boolean().optional(),
  }),
  removed: count,
}).describe("cached entries were removed.");
const CacheUnavailableEventSchema = event("cache-unavailable", {
  operation: z.string(),
  message: z.string(),
}).describe("the cache store failed; the gateway continues without it.");
const SessionLoadedEventSchema = event("session-loaded", {
  turns: count,
}).describe("a session's recent turns were loaded.");
const SessionAppendedEventSchema = event("session-appended", {
  totalTurns: count.optional().describe("Turns the session keeps; absent when the turn was buffered."),
  buffered: z.boolean().optional().describe("True when the turn waits in the write-behind buffer for the store to come back."),
}).describe("a turn was appended to a session.");
const SessionSaveFailedEventSchema = event("session-save-failed", {
  reason: z.enum(["not-kept", "error"]).describe("`not-kept`: the store could neither write nor buffer it (e.g. its write-behind buffer is full); `error`: the store failed."),
  message: z.string(),
}).describe("an answered turn could be neither written nor buffered.");
const toolCandidate = z.object({
  id: z.string(),
  score: z.number(),
  reason: z.string().optional(),
});
const ToolListRequestedEventSchema = event("tool-list-requested", {
  mode: toolListMode,
  context: z.string().optional(),
}).describe("a client asked for the tool list.");
const ToolListDecidedEventSchema = event("tool-list-decided", {
  mode: toolListMode,
  candidates: z.array(toolCandidate),
  exposed: z.array(z.string()),
  confidence: confidence.optional(),
}).describe("the tools to expose were chosen.");
const ToolSearchPerformedEventSchema = event("tool-search-performed", {
  target: z.enum(["tools", "workflows"]),
  query: z.string(),
  mode: SearchModeSchema,
  filters: z.record(z.string(), z.unknown()).optional(),
  results: z.array(toolCandidate),
  confidence,
  degraded: z.boolean().optional().describe("True when the semantic stage failed and keyword-only results were returned."),
}).describe("audit record of a tool or workflow search.");
const ToolSearchLowConfidenceEventSchema = event("tool-search-low-confidence", {
  query: z.string(),
  confidence,
  threshold: confidence,
  fallbackIds: z.array(z.string()),
}).describe("search confidence was under the threshold; the safe set was returned.");
const ToolCallStartEventSchema = event("tool-call-start", {
  ...toolAttempt,
}).describe("a proxied downstream tool call began.");
const ToolCallEndEventSchema = event("tool-call-end", {
  ...toolAttempt,
  latencyMs: ms,
  outcome,
  errorCode: z.string().optional(),
}).describe("a proxied downstream tool call ended.");
const DownstreamConnectedEventSchema = event("downstream-connected", {
  server: z.string(),
  transport: z.enum(["stdio", "http"]),
  toolCount: count,
}).describe("a downstream MCP server connected.");
const DownstreamDisconnectedEventSchema = event("downstream-disconnected", {
  server: z.string(),
  reason: z.enum(["idle", "crash", "shutdown", "error"]),
  message: z.string().optional(),
}).describe("a downstream MCP server disconnected (idle, crash, shutdown).");

/** Zod schema of {@link TraceEvent}: a discriminated union on `type`. */
export const TraceEventSchema = z.discriminatedUnion("type", [
  QueryReceivedEventSchema, QueryAnsweredEventSchema, QueryFailedEventSchema, IntentClassifiedEventSchema,
  RoutingDecidedEventSchema, RouterLowConfidenceEventSchema, RouteElicitedEventSchema, BackendCallStartEventSchema,
  BackendCallEndEventSchema, RetryScheduledEventSchema, FallbackTriggeredEventSchema, StreamRestartedEventSchema,
  HedgeStartedEventSchema, CircuitOpenedEventSchema, CircuitHalfOpenedEventSchema, CircuitClosedEventSchema,
  HealthCheckedEventSchema, FlowsDiscoveredEventSchema, CacheHitEventSchema, CacheMissEventSchema,
  CacheWriteEventSchema, CacheInvalidateEventSchema, CacheUnavailableEventSchema, SessionLoadedEventSchema,
  SessionAppendedEventSchema, SessionSaveFailedEventSchema, ToolListRequestedEventSchema, ToolListDecidedEventSchema,
  ToolSearchPerformedEventSchema, ToolSearchLowConfidenceEventSchema, ToolCallStartEventSchema,
  ToolCallEndEventSchema, DownstreamConnectedEventSchema, DownstreamDisconnectedEventSchema,
]);

/** Every decision the gateway makes, as a typed event. Discriminated on `type`. */
export type TraceEvent = z.infer<typeof TraceEventSchema>;

/** The `type` of a trace event. */
export type TraceEventType = TraceEvent["type"];

/** The event of one `type`. */
export type TraceEventOf<T extends TraceEventType> = Extract<TraceEvent, { type: T }>;

/** The fields of an event of `type` T without the common ones (which a {@link TraceContext} fills in). */
export type TraceEventPayload<T extends TraceEventType> = Omit<TraceEventOf<T>, "type" | "traceId" | "requestId" | "sessionId" | "timestamp">;

/**
 * Parses and validates an unknown value as a trace event.
 * @throws AfwError `INVALID_INPUT` when the value is not a valid trace event.
 */
export function parseTraceEvent(value: unknown): TraceEvent {
  return TraceEventSchema.parse(value);
}

/** Receives trace events. Sinks must not throw and must not block the query path. */
export interface TraceSink {
  /** Called once per event, synchronously; do slow work asynchronously. */
  emit(event: TraceEvent): void;
}

/**
 * The ids of one request, and the sink its events go to. Passed through the query path so every
 * component can emit events with the same ids.
 */
export interface TraceContext {
  readonly traceId: string;
  readonly requestId: string;
  readonly sessionId?: string | undefined;
  readonly sink: TraceSink;
}

/**
 * Emits an event of `type` with `payload` through `context`, filling the common fields (`traceId`, `requestId`,
 * `sessionId`, `timestamp`).
 * @example
 * ```ts
 * emitTrace(ctx, "cache-miss", { scope: "shared", reason: "absent" });
 * ```
 */
export function emitTrace<T extends TraceEventType>(context: TraceContext | undefined, type: T, payload: TraceEventPayload<T>): void {
  if (!context) return;
  const event = { ...payload, type, traceId: context.traceId, requestId: context.requestId } as Record<string, unknown>;
  if (context.sessionId !== undefined) event["sessionId"] = context.sessionId;
  event["timestamp"] = isoNow();
  try {
    context.sink.emit(event as unknown as TraceEvent);
  } catch {
    // A sink must never break the request it observes.
  }
}

/** The current time as ISO 8601: the date and time up to the second formatted once per second, the milliseconds appended. */
let isoSecond = Number.NaN;
let isoPrefix = "";
function isoNow(): string {
  const ms = Date.now();
  const second = Math.floor(ms / 1000) * 1000;
  if (second !== isoSecond) {
    isoSecond = second;
    isoPrefix = new Date(second).toISOString().slice(0, -4);
  }
  return `${isoPrefix}${String(ms - second).padStart(3, "0")}Z`;
}

/** A sink that forwards each event to every sink given. */
export function fanOutTraceSink(...sinks: TraceSink[]): TraceSink {
  return {
    emit(event) {
      for (const sink of sinks) {
        try {
          sink.emit(event);
        } catch {
          // isolate sinks from each other
        }
      }
    },
  };
}
