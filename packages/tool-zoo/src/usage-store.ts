/** One recorded tool call outcome, used to learn which tools serve which requests. */
export interface ToolUsageRecord {
  /** The analysed terms of the request the tool was chosen for. */
  terms: readonly string[];
  /** `server/name` of the tool that was called. */
  toolId: string;
  /** Whether the call succeeded (failures count against the tool). */
  success: boolean;
  /** When the call happened (epoch ms). */
  at: number;
}

/**
 * Where the tool index keeps co-occurrence counts of request terms and successful tool calls (the
 * flywheel). The in-memory default lives in one process; a gateway can share the counts across
 * instances by implementing this interface over Redis.
 */
export interface ToolUsageStore {
  /** Records one outcome. */
  record(record: ToolUsageRecord): Promise<void>;
  /**
   * The usage evidence of each tool for a request with these terms: a decayed count of successes
   * (minus failures) of calls made for requests sharing terms, summed over the terms, at time `now`.
   */
  scores(terms: readonly string[], now: number): Promise<Map<string, number>>;
}

/** Options of {@link createInMemoryUsageStore}. */
export interface InMemoryUsageStoreOptions {
  /**
   * Half-life of a recorded call's weight, in milliseconds.
   * @default 7 days
   */
  halfLifeMs?: number;
  /**
   * Weight of a failed call (subtracted).
   * @default 0.5
   */
  failureWeight?: number;
}

interface Counter {
  value: number;
  at: number;
}

/**
 * An in-process {@link ToolUsageStore}: per (term, tool) an exponentially decayed counter.
 *
 * @example
 * ```ts
 * const usage = createInMemoryUsageStore({ halfLifeMs: 86_400_000 });
 * await usage.record({ terms: ["merg", "pull"], toolId: "github/merge_pull_request", success: true, at: Date.now() });
 * ```
 */
export function createInMemoryUsageStore(options: InMemoryUsageStoreOptions = {}): ToolUsageStore {
  const halfLifeMs = options.halfLifeMs ?? 7 * 24 * 3600 * 1000;
  const failureWeight = options.failureWeight ?? 0.5;
  const counters = new Map<string, Map<string, Counter>>();
  const decay = (counter: Counter, now: number) => counter.value * Math.pow(0.5, Math.max(0, now - counter.at) / halfLifeMs);
  return {
    async record({ terms, toolId, success, at }) {
      const delta = success ? 1 : -failureWeight;
      for (const term of new Set(terms)) {
        let perTool = counters.get(term);
        if (!perTool) counters.set(term, (perTool = new Map()));
        const counter = perTool.get(toolId);
        if (counter) {
          counter.value = decay(counter, at) + delta;
          counter.at = Math.max(counter.at, at);
        } else perTool.set(toolId, { value: delta, at });
      }
    },
    async scores(terms, now) {
      const out = new Map<string, number>();
      for (const term of new Set(terms)) {
        for (const [toolId, counter] of counters.get(term) ?? []) out.set(toolId, (out.get(toolId) ?? 0) + decay(counter, now));
      }
      return out;
    },
  };
}
