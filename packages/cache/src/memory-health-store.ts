import { BackendHealthSchema, type BackendHealth, type HealthStore } from "@afw/contracts";
import { checkInput } from "./store-validation.js";
import { checkTtlMs } from "./health-store-shared.js";

/** Options of {@link createMemoryHealthStore}. */
export interface MemoryHealthStoreOptions {
  /** Clock in epoch ms. @default Date.now */
  now?: () => number;
}

/** In-process {@link HealthStore}: snapshots that disappear after their TTL. */
export class MemoryHealthStore implements HealthStore {
  private readonly snapshots = new Map<string, { health: BackendHealth; expiresAt: number }>();
  private readonly now: () => number;

  constructor(options: MemoryHealthStoreOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  async get(backendId: string): Promise<BackendHealth | undefined> {
    const snapshot = this.snapshots.get(backendId);
    if (!snapshot) return undefined;
    if (snapshot.expiresAt <= this.now()) {
      this.snapshots.delete(backendId);
      return undefined;
    }
    return { ...snapshot.health };
  }

  async set(health: BackendHealth, ttlMs: number): Promise<void> {
    const valid = checkInput(BackendHealthSchema, health, "backend health");
    this.snapshots.set(valid.backendId, { health: valid, expiresAt: this.now() + checkTtlMs(ttlMs) });
  }

  async all(): Promise<BackendHealth[]> {
    const now = this.now();
    const fresh: BackendHealth[] = [];
    for (const [backendId, snapshot] of this.snapshots) {
      if (snapshot.expiresAt <= now) this.snapshots.delete(backendId);
      else fresh.push({ ...snapshot.health });
    }
    return fresh;
  }
}

/**
 * Creates an in-memory {@link HealthStore}.
 * @example
 * ```ts
 * const health = createMemoryHealthStore();
 * await health.set({ backendId: "flowise", kind: "flowise", status: "healthy", latencyMs: 12, checkedAt: new Date().toISOString() }, 30_000);
 * ```
 */
export function createMemoryHealthStore(options: MemoryHealthStoreOptions = {}): MemoryHealthStore {
  return new MemoryHealthStore(options);
}
