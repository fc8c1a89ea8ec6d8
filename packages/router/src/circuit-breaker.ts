import { emitTrace, type CircuitState, type CircuitStateStore, type TraceContext } from "@afw/contracts";
import { createMemoryCircuitStateStore } from "@afw/cache";

/** After this long without an answer, a half-open probe is presumed lost and another may pass. */
const PROBE_TIMEOUT_MS = 60_000;

/** Options of {@link createCircuitBreaker}. */
export interface CircuitBreakerOptions {
  /** Where states live (shared across instances when Redis-backed). @default in-memory */
  store?: CircuitStateStore;
  /** Consecutive failures that open a circuit. @default 5 */
  failureThreshold?: number;
  /** How long an open circuit rejects before one probe is let through. @default 30000 */
  cooldownMs?: number;
  /** How often the synchronous view ({@link CircuitBreaker.isOpen}) is re-read from the store. @default 1000 */
  syncIntervalMs?: number;
  /** Clock (epoch ms). @default Date.now */
  now?: () => number;
}

/** Parses a circuit key (`<backendId>` or `<backendId>:<backendFlowId>`) into its parts. */
export function parseCircuitKey(key: string): { backendId: string; flowId?: string } {
  const i = key.indexOf(":");
  return i < 0 ? { backendId: key } : { backendId: key.slice(0, i), flowId: key };
}

/**
 * A circuit breaker per key (a backend id, or a gateway-wide flow id `<backendId>:<flow>`) whose state lives in a {@link
 * CircuitStateStore}, so every gateway instance skips a backend that one of them found dead.
 */
export interface CircuitBreaker {
  /** Synchronous, zero-I/O check used while ranking: true when the circuit is open and still cooling down. */
  isOpen(key: string): boolean;
  /** Asks to send a call through `key`. */
  acquire(key: string, trace?: TraceContext): Promise<boolean>;
  /** Records a successful call: closes the circuit. */
  recordSuccess(key: string, trace?: TraceContext): Promise<void>;
  /** Records a failed call: counts it, opening the circuit at the threshold (or again after a failed probe). */
  recordFailure(key: string, trace?: TraceContext): Promise<void>;
  /** The stored state of `key` (closed when absent). */
  state(key: string): Promise<CircuitState>;
  /** Re-reads every state from the store into the synchronous view. */
  sync(): Promise<void>;
}

/** Creates a {@link CircuitBreaker}. */
export function createCircuitBreaker(options: CircuitBreakerOptions = {}): CircuitBreaker {
  const store = options.store ?? createMemoryCircuitStateStore();
  const threshold = Math.max(1, options.failureThreshold ?? 5);
  const cooldownMs = options.cooldownMs ?? 30_000;
  const syncIntervalMs = options.syncIntervalMs ?? 1_000;
  const now = options.now ?? Date.now;
  const view = new Map<string, CircuitState>();
  let lastSync = -Infinity;
  let syncing: Promise<void> | undefined;

  const closed = (key: string): CircuitState => ({ key, state: "closed", failures: 0, updatedAt: now() });
  const read = async (key: string): Promise<CircuitState> => {
    try {
      const s = (await store.get(key)) ?? closed(key);
      view.set(key, s);
      return s;
    } catch {
      return view.get(key) ?? closed(key);
    }
  };
  const write = async (s: CircuitState) => {
    view.set(s.key, s);
    try {
      await store.set(s);
    } catch {
      // keep the local view; the shared store may be temporarily unavailable
    }
  };
  const sync = async () => {
    syncing ??= (async () => {
      try {
        const all = await store.all();
        for (const s of all) view.set(s.key, s);
      } catch {
        // keep the last view
      } finally {
        lastSync = now();
        syncing = undefined;
      }
    })();
    return syncing;
  };

  return {
    isOpen(key) {
      if (now() - lastSync >= syncIntervalMs && !syncing) sync().catch(() => {});
      const s = view.get(key);
      if (!s || s.state === "closed") return false;
      if (s.state === "open") return (s.nextProbeAt ?? 0) > now();
      return now() - s.updatedAt < PROBE_TIMEOUT_MS; // half-open with a probe in flight
    },
    async acquire(key, trace) {
      const s = await read(key);
      if (s.state === "closed") return true;
      if (s.state === "open") {
        if ((s.nextProbeAt ?? 0) > now()) return false;
        await write({ ...s, state: "half-open", updatedAt: now() });
        emitTrace(trace, "circuit-half-opened", { key, ...parseCircuitKey(key) });
        return true;
      }
      if (now() - s.updatedAt >= PROBE_TIMEOUT_MS) {
        await write({ ...s, updatedAt: now() });
        return true;
      }
      return false;
    },
    async recordSuccess(key, trace) {
      const s = await read(key);
      if (s.state === "closed" && s.failures === 0) return;
      await write(closed(key));
      if (s.state !== "closed") emitTrace(trace, "circuit-closed", { key, ...parseCircuitKey(key) });
    },
    async recordFailure(key, trace) {
      const s = await read(key);
      const failures = s.failures + 1;
      if (s.state === "half-open" || (s.state === "closed" && failures >= threshold) || s.state === "open") {
        const openedAt = now();
        await write({ key, state: "open", failures, openedAt, nextProbeAt: openedAt + cooldownMs, updatedAt: openedAt });
        if (s.state !== "open") emitTrace(trace, "circuit-opened", { key, ...parseCircuitKey(key), failures, cooldownMs });
        return;
      }
      await write({ ...s, failures, updatedAt: now() });
    },
    state: read,
    sync,
  };
}
