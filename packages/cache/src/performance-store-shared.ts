import type { PerformanceTarget } from "@afw/contracts";

/** Options shared by the Redis and memory performance stores. */
export interface PerformanceStoreOptions {
  /** Samples kept per backend and per (backend, flow). @default 100 */
  windowSize?: number | undefined;
}

/** Stable identity of a target, for sets and maps. */
export function targetId(target: PerformanceTarget): string {
  return JSON.stringify(target.flowId === undefined ? [target.backendId] : [target.backendId, target.flowId]);
}

/** Inverse of {@link targetId}; undefined for a foreign value. */
export function parseTargetId(id: string): PerformanceTarget | undefined {
  try {
    const value: unknown = JSON.parse(id);
    if (!Array.isArray(value) || value.length < 1 || value.length > 2 || !value.every((part) => typeof part === "string")) return undefined;
    const [backendId, flowId] = value as string[];
    if (!backendId) return undefined;
    return flowId === undefined ? { backendId } : { backendId, flowId };
  } catch {
    return undefined;
  }
}
