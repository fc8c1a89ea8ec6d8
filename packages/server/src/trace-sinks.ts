import type { TraceEvent, TraceEventType, TraceSink } from "@afw/contracts";
import type { Logger } from "pino";

/** An in-memory ring buffer of recent trace events, queryable by trace id (for the dashboard). */
export interface TraceRingBuffer extends TraceSink {
  /** Events currently kept. */
  readonly size: number;
  /** Every kept event of one trace, oldest first. */
  byTraceId(traceId: string): TraceEvent[];
  /** The most recent events, oldest first, optionally only of some types. */
  recent(options?: { limit?: number; types?: readonly TraceEventType[] }): TraceEvent[];
  /** Calls `listener` for every new event (e.g. a server-sent-events feed). Returns an unsubscribe function. */
  subscribe(listener: (event: TraceEvent) => void): () => void;
}

/** Creates a {@link TraceRingBuffer} of the last `capacity` events (the gateway feeds it redacted events, see `createRedactingSink`). */
export function createTraceRingBuffer(options: { capacity?: number } = {}): TraceRingBuffer {
  const capacity = Math.max(1, options.capacity ?? 5_000);
  const slots: (TraceEvent | undefined)[] = new Array<TraceEvent | undefined>(capacity);
  let next = 0;
  let size = 0;
  const listeners = new Set<(event: TraceEvent) => void>();
  const ordered = (): TraceEvent[] => {
    const out: TraceEvent[] = [];
    const start = size < capacity ? 0 : next;
    for (let i = 0; i < size; i++) {
      const event = slots[(start + i) % capacity];
      if (event) out.push(event);
    }
    return out;
  };
  return {
    get size() {
      return size;
    },
    emit(event) {
      slots[next] = event;
      next = (next + 1) % capacity;
      if (size < capacity) size++;
      for (const listener of listeners) {
        try {
          listener(event);
        } catch {
          // a listener must not break tracing
        }
      }
    },
    byTraceId(traceId) {
      return ordered().filter((event) => event.traceId === traceId);
    },
    recent({ limit = 100, types } = {}) {
      const events = types ? ordered().filter((event) => types.includes(event.type)) : ordered();
      return events.slice(Math.max(0, events.length - limit));
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

const WARNING_TYPES: ReadonlySet<TraceEventType> = new Set<TraceEventType>(["query-failed", "circuit-opened"]);

/** A sink that writes trace events as structured JSON log lines (pino): `query-failed` and `circuit-opened` at `warn`, every other event at `debug` (so at the
 * default logger level `info`, only problems are logged; set the level to `debug` to log every decision). */
export function createLogTraceSink(logger: Logger): TraceSink {
  return {
    emit(event) {
      if (WARNING_TYPES.has(event.type)) {
        logger.warn({ trace: event }, event.type);
        return;
      }
      if (logger.isLevelEnabled("debug")) logger.debug({ trace: event }, event.type);
    },
  };
}
