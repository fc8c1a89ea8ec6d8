import { BackendHealthSchema, type BackendHealth, type HealthStore } from "@afw/contracts";
import { checkTtlMs } from "./health-store-shared.js";
import { Keyspace } from "./keyspace.js";
import type { RedisConnection } from "./redis-connection.js";
import { checkInput, parseStored } from "./store-validation.js";

/** Options of {@link RedisHealthStore}. */
export interface RedisHealthStoreOptions {
  /** The shared connection. */
  connection: RedisConnection;
  /** Prefix of every key. @default "afw:" */
  keyPrefix?: string | undefined;
}

/**
 * {@link HealthStore} on Redis: one key per backend with a TTL (`<p>health:{<id>}`) plus an index set, so every gateway
 * instance sees the latest probe of any instance.
 */
export class RedisHealthStore implements HealthStore {
  private readonly connection: RedisConnection;
  private readonly keyspace: Keyspace;

  constructor(options: RedisHealthStoreOptions) {
    this.connection = options.connection;
    this.keyspace = new Keyspace(options.keyPrefix ?? "afw:");
  }

  /** The Redis key of a backend's snapshot. */
  keyOf(backendId: string): string {
    return this.keyspace.health(backendId);
  }

  async get(backendId: string): Promise<BackendHealth | undefined> {
    const key = this.keyspace.health(backendId);
    const outcome = await this.connection.run("health-store", "get", (client) => client.get(key));
    return outcome.ok ? this.parse(key, outcome.value) : undefined;
  }

  async set(health: BackendHealth, ttlMs: number): Promise<void> {
    const valid = checkInput(BackendHealthSchema, health, "backend health");
    const ttl = checkTtlMs(ttlMs);
    await this.connection.run("health-store", "set", (client) =>
      Promise.all([client.set(this.keyspace.health(valid.backendId), JSON.stringify(valid), "PX", ttl), client.sadd(this.keyspace.healthIndex, valid.backendId)]),
    );
  }

  async all(): Promise<BackendHealth[]> {
    const index = this.keyspace.healthIndex;
    const outcome = await this.connection.run("health-store", "all", async (client) => {
      const ids = await client.smembers(index);
      // One GET per key: a Cluster cannot MGET keys of several slots.
      const values = await Promise.all(ids.map((id) => client.get(this.keyspace.health(id))));
      const expired = ids.filter((_, i) => values[i] === null);
      if (expired.length > 0) client.srem(index, ...expired).catch(() => {});
      return ids.map((id, i) => [this.keyspace.health(id), values[i] ?? null] as const);
    });
    if (!outcome.ok) return [];
    return outcome.value.map(([key, raw]) => this.parse(key, raw)).filter((health): health is BackendHealth => health !== undefined);
  }

  private parse(key: string, raw: string | null): BackendHealth | undefined {
    if (raw === null) return undefined;
    const health = parseStored(BackendHealthSchema, raw);
    if (!health) this.connection.report({ type: "value-corrupt", store: "health-store", key, message: "stored health does not match the schema" });
    return health;
  }
}
