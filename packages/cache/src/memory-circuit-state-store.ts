import { CircuitStateSchema, type CircuitState, type CircuitStateStore } from "@afw/contracts";
import { checkInput } from "./store-validation.js";

/** In-process {@link CircuitStateStore}. */
export class MemoryCircuitStateStore implements CircuitStateStore {
  private readonly states = new Map<string, CircuitState>();

  async get(key: string): Promise<CircuitState | undefined> {
    const state = this.states.get(key);
    return state ? { ...state } : undefined;
  }

  async set(state: CircuitState): Promise<void> {
    const valid = checkInput(CircuitStateSchema, state, "circuit state");
    this.states.set(valid.key, valid);
  }

  async all(): Promise<CircuitState[]> {
    return [...this.states.values()].map((state) => ({ ...state }));
  }
}

/**
 * Creates an in-memory {@link CircuitStateStore}.
 * @example
 * ```ts
 * const circuits = createMemoryCircuitStateStore();
 * await circuits.set({ key: "flowise", state: "open", failures: 5, openedAt: Date.now(), updatedAt: Date.now() });
 * ```
 */
export function createMemoryCircuitStateStore(): MemoryCircuitStateStore {
  return new MemoryCircuitStateStore();
}
