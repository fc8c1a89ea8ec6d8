import { PerformanceSampleSchema, type PerformanceSample, type PerformanceStore, type PerformanceTarget } from "@afw/contracts";
import { parseTargetId, targetId, type PerformanceStoreOptions } from "./performance-store-shared.js";
import { checkInput, positiveIntegerOption } from "./store-validation.js";

/** In-process {@link PerformanceStore}: the last `windowSize` samples per backend and per (backend, flow). */
export class MemoryPerformanceStore implements PerformanceStore {
  private readonly windows = new Map<string, PerformanceSample[]>();
  private readonly windowSize: number;

  constructor(options: PerformanceStoreOptions = {}) {
    this.windowSize = positiveIntegerOption(options.windowSize, 100, "windowSize");
  }

  async record(sample: PerformanceSample): Promise<void> {
    const valid = checkInput(PerformanceSampleSchema, sample, "performance sample");
    const targets: PerformanceTarget[] = [{ backendId: valid.backendId }];
    if (valid.flowId !== undefined) targets.push({ backendId: valid.backendId, flowId: valid.flowId });
    for (const target of targets) {
      const id = targetId(target);
      const window = this.windows.get(id) ?? [];
      window.push({ ...valid });
      if (window.length > this.windowSize) window.splice(0, window.length - this.windowSize);
      this.windows.set(id, window);
    }
  }

  async window(target: PerformanceTarget): Promise<PerformanceSample[]> {
    return (this.windows.get(targetId(target)) ?? []).map((sample) => ({ ...sample }));
  }

  async targets(): Promise<PerformanceTarget[]> {
    return [...this.windows.keys()].map(parseTargetId).filter((target): target is PerformanceTarget => target !== undefined);
  }
}

/**
 * Creates an in-memory {@link PerformanceStore}.
 * @example
 * ```ts
 * const performance = createMemoryPerformanceStore({ windowSize: 100 });
 * await performance.record({ backendId: "flowise", flowId: "flowise:faq", latencyMs: 420, success: true, timestamp: Date.now() });
 * ```
 */
export function createMemoryPerformanceStore(options: PerformanceStoreOptions = {}): MemoryPerformanceStore {
  return new MemoryPerformanceStore(options);
}
