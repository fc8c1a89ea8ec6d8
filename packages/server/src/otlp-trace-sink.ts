import { createHash, randomBytes } from "node:crypto";
import type { Redactor, TraceEvent, TraceSink } from "@afw/contracts";

/** Options of {@link createOtlpTraceSink}. */
export interface OtlpTraceSinkOptions {
  /** OTLP/HTTP base URL, e.g. `http://127.0.0.1:4318`; spans go to `<endpoint>/v1/traces`. */
  endpoint: string;
  /** Extra headers (e.g. `Authorization: Basic …` for Langfuse). */
  headers?: Record<string, string>;
  /** `service.name` resource attribute. @default "agentic-flywheel" */
  serviceName?: string;
  /** Redacts attribute values before export. */
  redactor?: Redactor;
  /** Called when an export fails (the sink never throws). */
  onError?: (error: unknown) => void;
}

/** A trace sink exporting to an OpenTelemetry collector; see {@link createOtlpTraceSink}. */
export interface OtlpTraceSink extends TraceSink {
  /** Exports every pending span now. */
  flush(): Promise<void>;
  /** Flushes and stops the export timer. */
  close(): Promise<void>;
  /** Counters: spans exported, export requests failed, spans dropped. */
  readonly stats: { exported: number; failed: number; dropped: number };
}

/** How often pending spans are exported. */
const EXPORT_INTERVAL_MS = 2_000;

type Attribute = { key: string; value: { stringValue?: string; intValue?: string; doubleValue?: number; boolValue?: boolean } };

const TERMINAL = new Set(["query-answered", "query-failed"]);
/** Traces pending at most; spans per export request; age after which a trace with no terminal event is exported. */
const MAX_PENDING_TRACES = 10_000;
const MAX_BATCH = 256;
const MAX_TRACE_AGE_MS = 30_000;

function attributeValue(value: unknown): Attribute["value"] | undefined {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  if (value === null || value === undefined) return undefined;
  return { stringValue: JSON.stringify(value) };
}

function attributes(record: Record<string, unknown>, skip: ReadonlySet<string>): Attribute[] {
  const out: Attribute[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (skip.has(key)) continue;
    const converted = attributeValue(value);
    if (converted) out.push({ key: `afw.${key}`, value: converted });
  }
  return out;
}

const toNanos = (iso: string) => `${BigInt(Date.parse(iso)) * 1_000_000n}`;
const otelTraceId = (traceId: string) => (/^[0-9a-f]{32}$/.test(traceId) ? traceId : createHash("sha256").update(traceId).digest("hex").slice(0, 32));
const BASE_FIELDS = new Set(["type", "traceId", "requestId", "timestamp"]);

/** Exports trace events to an OpenTelemetry collector over OTLP/HTTP with JSON encoding (no OpenTelemetry SDK needed). */
export function createOtlpTraceSink(options: OtlpTraceSinkOptions): OtlpTraceSink {
  const endpoint = `${options.endpoint.replace(/\/+$/, "")}/v1/traces`;
  const pending = new Map<string, { events: TraceEvent[]; firstSeen: number }>();
  let ready: TraceEvent[][] = [];
  const stats = { exported: 0, failed: 0, dropped: 0 };
  let inFlight: Promise<void> = Promise.resolve();
  const toSpan = (events: TraceEvent[]) => {
    const first = events[0]!;
    const last = events[events.length - 1]!;
    const received = events.find((e) => e.type === "query-received") as Extract<TraceEvent, { type: "query-received" }> | undefined;
    const terminal = events.find((e) => TERMINAL.has(e.type));
    const spanAttributes: Attribute[] = [{ key: "afw.request_id", value: { stringValue: first.requestId } }];
    if (first.sessionId) spanAttributes.push({ key: "session.id", value: { stringValue: first.sessionId } });
    if (terminal) spanAttributes.push(...attributes(terminal as unknown as Record<string, unknown>, BASE_FIELDS));
    const span = {
      traceId: otelTraceId(first.traceId),
      spanId: randomBytes(8).toString("hex"),
      name: received?.tool ?? first.type,
      kind: 2, // SERVER
      startTimeUnixNano: toNanos(first.timestamp),
      endTimeUnixNano: toNanos(last.timestamp),
      attributes: spanAttributes,
      events: events.map((event) => ({
        name: event.type,
        timeUnixNano: toNanos(event.timestamp),
        attributes: attributes(event as unknown as Record<string, unknown>, BASE_FIELDS),
      })),
      status: terminal?.type === "query-failed" ? { code: 2, message: (terminal as { code?: string }).code ?? "error" } : { code: terminal ? 1 : 0 },
    };
    return options.redactor && options.redactor.size > 0 ? options.redactor.redactValue(span) : span;
  };
  const collect = (force: boolean) => {
    const now = Date.now();
    for (const [traceId, entry] of pending) {
      if (force || now - entry.firstSeen >= MAX_TRACE_AGE_MS) {
        pending.delete(traceId);
        ready.push(entry.events);
      }
    }
  };
  const send = async (spans: unknown[]) => {
    const body = JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: options.serviceName ?? "agentic-flywheel" } }] },
          scopeSpans: [{ scope: { name: "@afw/server" }, spans }],
        },
      ],
    });
    try {
      const response = await fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", ...options.headers },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer().catch(() => undefined);
      if (!response.ok) throw new Error(`OTLP export answered HTTP ${response.status}`);
      stats.exported += spans.length;
    } catch (error) {
      stats.failed++;
      stats.dropped += spans.length;
      options.onError?.(error);
    }
  };
  const flush = (force = false): Promise<void> => {
    collect(force);
    const traces = ready;
    ready = [];
    const batches: TraceEvent[][][] = [];
    while (traces.length > 0) batches.push(traces.splice(0, MAX_BATCH));
    inFlight = inFlight.then(async () => {
      for (const batch of batches) await send(batch.map(toSpan));
    });
    return inFlight;
  };
  const timer = setInterval(() => void flush(false), EXPORT_INTERVAL_MS);
  timer.unref();
  return {
    stats,
    emit(event) {
      let entry = pending.get(event.traceId);
      if (!entry) {
        if (pending.size >= MAX_PENDING_TRACES) {
          stats.dropped++;
          return;
        }
        entry = { events: [], firstSeen: Date.now() };
        pending.set(event.traceId, entry);
      }
      entry.events.push(event);
      if (TERMINAL.has(event.type)) {
        pending.delete(event.traceId);
        ready.push(entry.events);
      }
    },
    flush: () => flush(true),
    async close() {
      clearInterval(timer);
      await flush(true);
    },
  };
}
