import { emitTrace, type CacheScope, type TraceContext } from "@afw/contracts";

/** Which store an event concerns. */
export type StoreName = "response-cache" | "session-store" | "performance-store" | "health-store" | "circuit-state-store" | "mcp-session-registry" | "rate-limiter" | "connection";

/** What the stores report through the `onEvent` hook. */
export type CacheStoreEvent =
  | {
      /** A store operation failed or timed out; the caller got a miss / no-op instead. */
      type: "cache-unavailable";
      store: StoreName;
      operation: string;
      message: string;
    }
  | {
      /** The first operation that succeeded after one or more `cache-unavailable`. */
      type: "cache-recovered";
      store: StoreName;
      operation: string;
    }
  | {
      /** A session turn could not be written now and waits in the write-behind buffer. */
      type: "session-turn-buffered";
      store: "session-store";
      /** Turns the buffer holds now. */
      buffered: number;
    }
  | {
      /** A session turn could be neither written nor buffered (the buffer is full): it is not kept. */
      type: "session-turn-dropped";
      store: "session-store";
      buffered: number;
    }
  | {
      /** Buffered session turns were written (replayed) after Redis came back. */
      type: "session-turns-replayed";
      store: "session-store";
      /** Turns written by this replay. */
      turns: number;
      /** Turns still waiting. */
      buffered: number;
    }
  | {
      /** A stored value failed validation (corrupt or written by something else) and was ignored. */
      type: "value-corrupt";
      store: StoreName;
      key: string;
      message: string;
      scope?: CacheScope;
      flowId?: string;
    };

/** Receives {@link CacheStoreEvent}s. Must not throw (a throwing hook is ignored). */
export type CacheStoreEventHandler = (event: CacheStoreEvent) => void;

/** Options shared by every store about where events go. */
export interface StoreEventOptions {
  /** Trace context for `cache-unavailable` and corrupt-value `cache-miss` events. */
  trace?: TraceContext | undefined;
  /** Hook called with every {@link CacheStoreEvent}. */
  onEvent?: CacheStoreEventHandler | undefined;
}

/** Delivers events to the hook and the trace context; never throws. */
export class EventReporter {
  constructor(private readonly options: StoreEventOptions = {}) {}

  /** Reports `event`; `trace` overrides the configured trace context. */
  report(event: CacheStoreEvent, trace?: TraceContext): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // A hook must never break the operation it observes.
    }
    const context = trace ?? this.options.trace;
    if (!context) return;
    if (event.type === "cache-unavailable") {
      emitTrace(context, "cache-unavailable", { operation: `${event.store}.${event.operation}`, message: event.message });
    } else if (event.type === "value-corrupt" && event.store === "response-cache" && event.scope !== undefined) {
      emitTrace(context, "cache-miss", {
        scope: event.scope,
        ...(event.flowId === undefined ? {} : { flowId: event.flowId }),
        reason: "corrupt",
      });
    }
  }
}

