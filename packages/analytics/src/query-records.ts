import type { ClassificationMethod, Intent, IntentAlternative, RoutingCandidate, RoutingDecision, TraceEvent, TraceEventPayload } from "@afw/contracts";
import { eventTimeMs, type AuditEvent } from "./audit-event.js";
import { sortByTime } from "./audit-log.js";

/** One backend attempt of a query: its `backend-call-end` event's fields, whether it was the hedged (parallel) one, and its end (epoch ms). */
export type AttemptRecord = TraceEventPayload<"backend-call-end"> & { hedged?: boolean | undefined; at: number };

/** One fallback of a query: its `fallback-triggered` event's fields. */
export type FallbackRecord = TraceEventPayload<"fallback-triggered">;

/** One routing candidate of a query's decision: these fields of its `RoutingCandidate`. */
export type CandidateRecord = Pick<RoutingCandidate, "backendId" | "flowId" | "flowName" | "rank" | "score" | "breakdown" | "excluded">;

/**
 * Everything the audit log knows about one query (one trace), folded from its events. The unit
 * every analysis counts.
 */
export interface QueryRecord {
  traceId: string;
  requestId: string;
  sessionId?: string | undefined;
  /** Epoch milliseconds of the first event of the trace. */
  startedAt: number;
  /** Epoch milliseconds of `query-answered`/`query-failed`, if seen. */
  endedAt?: number | undefined;
  /** MCP tool that received the query. */
  tool?: string | undefined;
  questionLength?: number | undefined;
  intent?: Intent | undefined;
  confidence?: number | undefined;
  method?: ClassificationMethod | undefined;
  alternatives: IntentAlternative[];
  /** Set when the router reported a low-confidence decision. */
  lowConfidence?: { threshold: number; strategy: string } | undefined;
  strategy?: RoutingDecision["strategy"] | undefined;
  /** The candidate the router tried first. */
  chosenFlowId?: string | undefined;
  chosenBackendId?: string | undefined;
  candidates: CandidateRecord[];
  attempts: AttemptRecord[];
  fallbacks: FallbackRecord[];
  /**
   * `exact`/`semantic` for a cache hit, `miss` for a miss, `bypass` when the cache was not
   * consulted (disabled or skipped), undefined when no cache event was seen.
   */
  cache?: "exact" | "semantic" | "miss" | "bypass" | undefined;
  /** `answered`, `failed`, or `pending` when neither end event was seen. */
  outcome: "answered" | "failed" | "pending";
  answeredFlowId?: string | undefined;
  answeredBackendId?: string | undefined;
  /** Gateway-measured duration of the whole query. */
  durationMs?: number | undefined;
  /** Error code of a failed query. */
  errorCode?: string | undefined;
  /** Error message of a failed query (secret-free, as the gateway reports it). */
  errorMessage?: string | undefined;
  fallbackUsed: boolean;
  cacheHit: boolean;
  /** A/B arm, when the query was assigned to an experiment. */
  experiment?: { experimentId: string; arm: "control" | "variant" } | undefined;
  /** The client's answer when it was asked to confirm or choose the flow (`route-elicited`). */
  elicitation?: { tier: "confirm" | "clarify"; action: string; chosenFlowId?: string | undefined } | undefined;
}

const QUERY_EVENT_TYPES = new Set(["query-received", "query-answered", "query-failed"]);

/**
 * Folds audit events into one {@link QueryRecord} per query trace (a trace with a
 * `query-received`, `query-answered` or `query-failed` event), ordered by start time. Events of
 * other traces (health checks, discovery, tool lists) are ignored. Events may come in any order.
 *
 * @example
 * ```ts
 * const records = buildQueryRecords(await auditLog.query({ from: Date.now() - 86_400_000 }));
 * const failed = records.filter((r) => r.outcome === "failed").length;
 * ```
 */
export function buildQueryRecords(events: readonly AuditEvent[]): QueryRecord[] {
  const byTrace = new Map<string, AuditEvent[]>();
  const queryTraces = new Set<string>();
  for (const event of events) {
    let list = byTrace.get(event.traceId);
    if (!list) byTrace.set(event.traceId, (list = []));
    list.push(event);
    if (QUERY_EVENT_TYPES.has(event.type)) queryTraces.add(event.traceId);
  }
  const records: QueryRecord[] = [];
  for (const traceId of queryTraces) {
    records.push(foldTrace(traceId, sortByTime(byTrace.get(traceId)!)));
  }
  return records.sort((a, b) => a.startedAt - b.startedAt || (a.traceId < b.traceId ? -1 : a.traceId > b.traceId ? 1 : 0));
}

function foldTrace(traceId: string, events: readonly AuditEvent[]): QueryRecord {
  const first = events[0]!;
  const record: QueryRecord = {
    traceId,
    requestId: first.requestId,
    startedAt: eventTimeMs(first),
    alternatives: [],
    candidates: [],
    attempts: [],
    fallbacks: [],
    outcome: "pending",
    fallbackUsed: false,
    cacheHit: false,
  };
  const hedged = new Set<string>();
  for (const event of events) {
    if (event.sessionId !== undefined && record.sessionId === undefined) record.sessionId = event.sessionId;
    switch (event.type) {
      case "query-received":
        record.tool = event.tool;
        record.questionLength = event.questionLength;
        break;
      case "intent-classified":
        record.intent = event.intent;
        record.confidence = event.confidence;
        record.method = event.method;
        record.alternatives = event.alternatives;
        break;
      case "router-low-confidence":
        record.lowConfidence = { threshold: event.threshold, strategy: event.strategy };
        record.intent ??= event.intent;
        record.confidence ??= event.confidence;
        break;
      case "routing-decided": {
        const decision = event.decision;
        record.intent = decision.intent;
        record.confidence ??= decision.confidence;
        record.method ??= decision.method;
        if (record.alternatives.length === 0) record.alternatives = decision.alternatives ?? [];
        record.strategy = decision.strategy;
        if (decision.experiment) record.experiment ??= { experimentId: decision.experiment.experimentId, arm: decision.experiment.arm };
        record.chosenFlowId = decision.chosen?.flowId;
        record.chosenBackendId = decision.chosen?.backendId;
        record.candidates = decision.candidates.map(({ backendId, flowId, flowName, rank, score, breakdown, excluded }) => {
          return { backendId, flowId, flowName, rank, score, breakdown, ...(excluded === undefined ? {} : { excluded }) };
        });
        break;
      }
      case "backend-call-start":
        if (event.hedged) hedged.add(`${event.backendId}\u0000${event.flowId}\u0000${event.attempt}`);
        break;
      case "backend-call-end":
        record.attempts.push({
          ...payloadOf(event),
          ...(hedged.has(`${event.backendId}\u0000${event.flowId}\u0000${event.attempt}`) ? { hedged: true } : {}),
          at: eventTimeMs(event),
        });
        break;
      case "fallback-triggered":
        record.fallbacks.push(payloadOf(event));
        break;
      case "cache-hit":
        record.cache = event.kind;
        record.cacheHit = true;
        record.answeredFlowId ??= event.flowId;
        break;
      case "cache-miss":
        if (record.cache === undefined || record.cache === "bypass") record.cache = event.reason === "bypass" ? "bypass" : "miss";
        break;
      case "query-answered":
      case "query-failed":
        record.endedAt = eventTimeMs(event);
        record.durationMs = event.durationMs;
        if (event.type === "query-failed") {
          Object.assign(record, { outcome: "failed", errorCode: event.code, errorMessage: event.message });
          break;
        }
        Object.assign(record, { outcome: "answered", answeredFlowId: event.flowId, answeredBackendId: event.backendId });
        record.fallbackUsed = event.fallbackUsed;
        if (event.cacheHit !== false) {
          record.cacheHit = true;
          record.cache = event.cacheHit === "semantic" || record.cache === "semantic" ? "semantic" : "exact";
        }
        break;
      case "route-elicited":
        record.elicitation = { tier: event.tier, action: event.action, ...(event.chosenFlowId === undefined ? {} : { chosenFlowId: event.chosenFlowId }) };
        break;
      case "ab-assigned":
        record.experiment = { experimentId: event.experimentId, arm: event.arm };
        break;
      default:
        break;
    }
  }
  if (record.fallbacks.length > 0) record.fallbackUsed = true;
  return record;
}

/** An event's own fields, without the envelope (`type`, trace and request ids, session, timestamp). */
function payloadOf<E extends TraceEvent>({ type: _type, traceId: _traceId, requestId: _requestId, sessionId: _sessionId, timestamp: _timestamp, ...payload }: E) {
  return payload;
}

/** The gateway-wide flow ids a query touched: attempted flows and the flow a cache hit came from. */
export function flowsTouched(record: QueryRecord): Set<string> {
  const flows = new Set<string>();
  for (const attempt of record.attempts) flows.add(attempt.flowId);
  if (record.cacheHit && record.answeredFlowId !== undefined) flows.add(record.answeredFlowId);
  return flows;
}

/** The backend id of a gateway-wide flow id (`<backendId>:<backendFlowId>`). */
export function backendOfFlowId(flowId: string): string {
  const colon = flowId.indexOf(":");
  return colon === -1 ? flowId : flowId.slice(0, colon);
}
