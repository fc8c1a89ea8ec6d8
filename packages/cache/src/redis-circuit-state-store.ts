import { CircuitStateSchema, type CircuitState, type CircuitStateStore } from "@afw/contracts";
import { Keyspace } from "./keyspace.js";
import type { RedisConnection } from "./redis-connection.js";
import { checkInput, parseStored } from "./store-validation.js";

/** Options of {@link RedisCircuitStateStore}. */
export interface RedisCircuitStateStoreOptions {
  /** The shared connection. */
  connection: RedisConnection;
  /** Prefix of every key. @default "afw:" */
  keyPrefix?: string | undefined;
}

/**
 * {@link CircuitStateStore} on Redis: one hash (`<p>circuits`, field = circuit key), so a backend one instance found
 * dead is skipped by all.
 */
export class RedisCircuitStateStore implements CircuitStateStore {
  private readonly connection: RedisConnection;
  /** The Redis hash holding every state. */
  readonly hashKey: string;

  constructor(options: RedisCircuitStateStoreOptions) {
    this.connection = options.connection;
    this.hashKey = new Keyspace(options.keyPrefix ?? "afw:").circuits;
  }

  async get(key: string): Promise<CircuitState | undefined> {
    const outcome = await this.connection.run("circuit-state-store", "get", (client) => client.hget(this.hashKey, key));
    return outcome.ok ? this.parse(outcome.value) : undefined;
  }

  async set(state: CircuitState): Promise<void> {
    const valid = checkInput(CircuitStateSchema, state, "circuit state");
    await this.connection.run("circuit-state-store", "set", (client) => client.hset(this.hashKey, valid.key, JSON.stringify(valid)));
  }

  async all(): Promise<CircuitState[]> {
    const outcome = await this.connection.run("circuit-state-store", "all", (client) => client.hgetall(this.hashKey));
    if (!outcome.ok) return [];
    return Object.values(outcome.value)
      .map((raw) => this.parse(raw))
      .filter((state): state is CircuitState => state !== undefined);
  }

  private parse(raw: string | null): CircuitState | undefined {
    if (raw === null) return undefined;
    const state = parseStored(CircuitStateSchema, raw);
    if (!state) this.connection.report({ type: "value-corrupt", store: "circuit-state-store", key: this.hashKey, message: "stored circuit state does not match the schema" });
    return state;
  }
}
