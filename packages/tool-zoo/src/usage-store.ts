/** Half-life of a recorded call's weight; a failed call counts -0.5. */
const HALF_LIFE_MS = 7 * 24 * 3600 * 1000;
const FAILURE_WEIGHT = 0.5;

interface Counter {
  value: number;
  at: number;
}

/**
 * Co-occurrence counts of request terms and tool call outcomes (the flywheel), in process: per (term, tool) an
 * exponentially decayed counter.
 *
 * @example
 * ```ts
 * const usage = createUsageCounters();
 * usage.record(["merg", "pull"], "github/merge_pull_request", true, Date.now());
 * ```
 */
export function createUsageCounters() {
  const counters = new Map<string, Map<string, Counter>>();
  const decay = (counter: Counter, now: number) => counter.value * Math.pow(0.5, Math.max(0, now - counter.at) / HALF_LIFE_MS);
  return {
    /** Records one outcome: the analysed terms of the request, the tool called, success, time (epoch ms). */
    record(terms: readonly string[], toolId: string, success: boolean, at: number): void {
      const delta = success ? 1 : -FAILURE_WEIGHT;
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
    /** Per tool, the decayed count of successes minus failures for requests sharing these terms, at time `now`. */
    scores(terms: readonly string[], now: number): Map<string, number> {
      const out = new Map<string, number>();
      for (const term of new Set(terms)) {
        for (const [toolId, counter] of counters.get(term) ?? []) out.set(toolId, (out.get(toolId) ?? 0) + decay(counter, now));
      }
      return out;
    },
  };
}
