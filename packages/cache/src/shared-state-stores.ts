import {
  BackendHealthSchema,
  CircuitStateSchema,
  INTENTS,
  PerformanceSampleSchema,
  parseOrThrow,
  type BackendHealth,
  type CircuitState,
  type CircuitStateStore,
  type HealthStore,
  type PerformanceSample,
  type PerformanceStore,
  type PerformanceTarget,
} from "@afw/contracts";
import { Keyspace } from "./keyspace.js";
import { LuaScript, type RedisConnection } from "./redis-connection.js";
import type { StoreName } from "./store-events.js";
import { parseStored, positiveMs } from "./store-validation.js";

// The shared gateway state (health snapshots, performance windows, circuit states): in memory and on Redis.

/** Samples kept per backend and per (backend, flow). */
const WINDOW_SIZE = 100;

/** Stable identity of a target, for sets and maps. */
function targetId(target: PerformanceTarget): string {
  return JSON.stringify(target.flowId === undefined ? [target.backendId] : [target.backendId, target.flowId]);
}

/** Inverse of {@link targetId}; undefined for a foreign value. */
function parseTargetId(id: string): PerformanceTarget | undefined {
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

const isTarget = (target: PerformanceTarget | undefined): target is PerformanceTarget => target !== undefined;

/** The windows a sample is recorded in: its backend's and, with a flow, its flow's. */
function targetsOf(sample: PerformanceSample): PerformanceTarget[] {
  return sample.flowId === undefined ? [{ backendId: sample.backendId }] : [{ backendId: sample.backendId }, { backendId: sample.backendId, flowId: sample.flowId }];
}

/** In-process {@link HealthStore}: snapshots that disappear after their TTL. */
export class MemoryHealthStore implements HealthStore {
  private readonly snapshots = new Map<string, { health: BackendHealth; expiresAt: number }>();

  private readonly now: () => number;

  /** @param options.now Clock in epoch ms. @default Date.now */
  constructor(options: { now?: (() => number) | undefined } = {}) {
    this.now = options.now ?? Date.now;
  }

  async get(backendId: string): Promise<BackendHealth | undefined> {
    const snapshot = this.snapshots.get(backendId);
    if (snapshot && snapshot.expiresAt > this.now()) return { ...snapshot.health };
    this.snapshots.delete(backendId);
    return undefined;
  }

  async set(health: BackendHealth, ttlMs: number): Promise<void> {
    const valid = parseOrThrow(BackendHealthSchema, health, "INVALID_INPUT", "backend health");
    this.snapshots.set(valid.backendId, { health: valid, expiresAt: this.now() + positiveMs(ttlMs, "ttlMs") });
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

const INTENT_SET: ReadonlySet<unknown> = new Set(INTENTS);
const optional = (value: unknown, ok: (value: unknown) => boolean) => value === undefined || ok(value);
const isString = (value: unknown) => typeof value === "string";

/**
 * `PerformanceSampleSchema.parse(sample)` for the samples the router records (a plain object with valid fields): the
 * same fields in the same order, unknown keys dropped, an optional key given as `undefined` kept. Undefined for anything
 * else, which then goes through the schema (and its error message). A test compares both on valid and invalid samples.
 */
export function plainPerformanceSample(sample: unknown): PerformanceSample | undefined {
  if (typeof sample !== "object" || sample === null || Object.getPrototypeOf(sample) !== Object.prototype) return undefined;
  const s = sample as Record<string, unknown>;
  const { backendId, latencyMs, success, timestamp } = s;
  if (typeof backendId !== "string" || typeof success !== "boolean") return undefined;
  if (typeof latencyMs !== "number" || !Number.isFinite(latencyMs) || latencyMs < 0) return undefined;
  if (!Number.isSafeInteger(timestamp) || (timestamp as number) < 0) return undefined;
  if (!optional(s["flowId"], isString) || !optional(s["errorCode"], isString) || !optional(s["intent"], (v) => INTENT_SET.has(v))) return undefined;
  const out: Record<string, unknown> = { backendId };
  if ("flowId" in s) out["flowId"] = s["flowId"];
  out["latencyMs"] = latencyMs;
  out["success"] = success;
  out["timestamp"] = timestamp;
  if ("errorCode" in s) out["errorCode"] = s["errorCode"];
  if ("intent" in s) out["intent"] = s["intent"];
  return out as PerformanceSample;
}

/** In-process {@link PerformanceStore}: the last 100 samples per backend and per (backend, flow). */
export class MemoryPerformanceStore implements PerformanceStore {
  private readonly windows = new Map<string, PerformanceSample[]>();

  async record(sample: PerformanceSample): Promise<void> {
    // One frozen copy serves both windows and every read: nobody can change a kept sample through what it was given.
    const valid = Object.freeze(plainPerformanceSample(sample) ?? parseOrThrow(PerformanceSampleSchema, sample, "INVALID_INPUT", "performance sample"));
    for (const target of targetsOf(valid)) {
      const id = targetId(target);
      const window = this.windows.get(id) ?? [];
      window.push(valid);
      if (window.length > WINDOW_SIZE) window.splice(0, window.length - WINDOW_SIZE);
      this.windows.set(id, window);
    }
  }

  /** The window, oldest first: a new array of the kept samples, which are frozen (read-only). */
  async window(target: PerformanceTarget): Promise<PerformanceSample[]> {
    return (this.windows.get(targetId(target)) ?? []).slice();
  }

  async targets(): Promise<PerformanceTarget[]> {
    return [...this.windows.keys()].map(parseTargetId).filter(isTarget);
  }
}

/** In-process {@link CircuitStateStore}. */
export class MemoryCircuitStateStore implements CircuitStateStore {
  private readonly states = new Map<string, CircuitState>();

  async get(key: string): Promise<CircuitState | undefined> {
    const state = this.states.get(key);
    return state ? { ...state } : undefined;
  }

  async set(state: CircuitState): Promise<void> {
    const valid = parseOrThrow(CircuitStateSchema, state, "INVALID_INPUT", "circuit state");
    this.states.set(valid.key, valid);
  }

  async all(): Promise<CircuitState[]> {
    return [...this.states.values()].map((state) => ({ ...state }));
  }
}

/** Creates an in-memory {@link HealthStore} (the router's default). */
export function createMemoryHealthStore(options: { now?: (() => number) | undefined } = {}): MemoryHealthStore {
  return new MemoryHealthStore(options);
}

/** Creates an in-memory {@link PerformanceStore} (the router's default). */
export function createMemoryPerformanceStore(): MemoryPerformanceStore {
  return new MemoryPerformanceStore();
}

/** Creates an in-memory {@link CircuitStateStore} (the router's default). */
export function createMemoryCircuitStateStore(): MemoryCircuitStateStore {
  return new MemoryCircuitStateStore();
}

/** Options of the Redis shared-state stores. */
export interface RedisStateStoreOptions {
  /** The shared connection. */
  connection: RedisConnection;
  /** Prefix of every key. @default "afw:" */
  keyPrefix?: string | undefined;
}

/** The connection, key layout and stored-value check of a Redis shared-state store. */
abstract class RedisStateStore {
  protected readonly connection: RedisConnection;
  protected readonly keyspace: Keyspace;

  constructor(
    options: RedisStateStoreOptions,
    private readonly store: StoreName,
  ) {
    this.connection = options.connection;
    this.keyspace = new Keyspace(options.keyPrefix ?? "afw:");
  }

  /** Parses a stored value; a corrupt one is reported (`value-corrupt`) and skipped. */
  protected parse<T>(schema: Parameters<typeof parseStored>[0], key: string, raw: string | null): T | undefined {
    if (raw === null) return undefined;
    const value = parseStored(schema, raw) as T | undefined;
    if (value === undefined) this.connection.report({ type: "value-corrupt", store: this.store, key, message: "stored value does not match the schema" });
    return value;
  }
}

/**
 * {@link HealthStore} on Redis: one key per backend with a TTL (`<p>health:{<id>}`) plus an index set, so every gateway
 * instance sees the latest probe of any instance.
 */
export class RedisHealthStore extends RedisStateStore implements HealthStore {
  constructor(options: RedisStateStoreOptions) {
    super(options, "health-store");
  }

  /** The Redis key of a backend's snapshot. */
  keyOf(backendId: string): string {
    return this.keyspace.health(backendId);
  }

  async get(backendId: string): Promise<BackendHealth | undefined> {
    const key = this.keyOf(backendId);
    const outcome = await this.connection.run("health-store", "get", (client) => client.get(key));
    return outcome.ok ? this.parse<BackendHealth>(BackendHealthSchema, key, outcome.value) : undefined;
  }

  async set(health: BackendHealth, ttlMs: number): Promise<void> {
    const valid = parseOrThrow(BackendHealthSchema, health, "INVALID_INPUT", "backend health");
    const ttl = positiveMs(ttlMs, "ttlMs");
    await this.connection.run("health-store", "set", (client) =>
      Promise.all([client.set(this.keyOf(valid.backendId), JSON.stringify(valid), "PX", ttl), client.sadd(this.keyspace.healthIndex, valid.backendId)]),
    );
  }

  async all(): Promise<BackendHealth[]> {
    const index = this.keyspace.healthIndex;
    const outcome = await this.connection.run("health-store", "all", async (client) => {
      const ids = await client.smembers(index);
      // One GET per key: a Cluster cannot MGET keys of several slots.
      const values = await Promise.all(ids.map((id) => client.get(this.keyOf(id))));
      const expired = ids.filter((_, i) => values[i] === null);
      if (expired.length > 0) client.srem(index, ...expired).catch(() => {});
      return ids.map((id, i) => [this.keyOf(id), values[i] ?? null] as const);
    });
    if (!outcome.ok) return [];
    return outcome.value.map(([key, raw]) => this.parse<BackendHealth>(BackendHealthSchema, key, raw)).filter((health) => health !== undefined);
  }
}

/**
 * Appends a sample to every window in KEYS (a backend's and its flow's: same hash tag, same slot),
 * keeping the last ARGV[2] and renewing the TTL ARGV[3] (ms).
 */
const RECORD_SCRIPT = new LuaScript(`
local size = tonumber(ARGV[2])
for i = 1, #KEYS do
  redis.call('RPUSH', KEYS[i], ARGV[1])
  redis.call('LTRIM', KEYS[i], -size, -1)
  redis.call('PEXPIRE', KEYS[i], ARGV[3])
end
return #KEYS`);

/** Windows not written for this long (7 days) disappear. */
const WINDOW_TTL_MS = 7 * 86_400_000;

/**
 * {@link PerformanceStore} on Redis: rolling windows as lists trimmed atomically on every record, and a set of tracked
 * targets, so every gateway instance ranks backends on the same numbers.
 */
export class RedisPerformanceStore extends RedisStateStore implements PerformanceStore {
  constructor(options: RedisStateStoreOptions) {
    super(options, "performance-store");
  }

  /** The Redis key of a target's window. */
  keyOf(target: PerformanceTarget): string {
    return this.keyspace.performanceWindow(target.backendId, target.flowId);
  }

  async record(sample: PerformanceSample): Promise<void> {
    const valid = parseOrThrow(PerformanceSampleSchema, sample, "INVALID_INPUT", "performance sample");
    const targets = targetsOf(valid);
    const index = this.keyspace.performanceTargets;
    await this.connection.run("performance-store", "record", (client) =>
      Promise.all([
        RECORD_SCRIPT.run(client, targets.map((target) => this.keyOf(target)), [JSON.stringify(valid), WINDOW_SIZE, WINDOW_TTL_MS]),
        client.sadd(index, ...targets.map(targetId)),
        client.pexpire(index, WINDOW_TTL_MS),
      ]),
    );
  }

  async window(target: PerformanceTarget): Promise<PerformanceSample[]> {
    const key = this.keyOf(target);
    const outcome = await this.connection.run("performance-store", "window", (client) => client.lrange(key, 0, -1));
    if (!outcome.ok) return [];
    return outcome.value.map((raw) => this.parse<PerformanceSample>(PerformanceSampleSchema, key, raw)).filter((sample) => sample !== undefined);
  }

  async targets(): Promise<PerformanceTarget[]> {
    const outcome = await this.connection.run("performance-store", "targets", (client) => client.smembers(this.keyspace.performanceTargets));
    return outcome.ok ? outcome.value.map(parseTargetId).filter(isTarget) : [];
  }
}

/**
 * {@link CircuitStateStore} on Redis: one hash (`<p>circuits`, field = circuit key), so a backend one instance found
 * dead is skipped by all.
 */
export class RedisCircuitStateStore extends RedisStateStore implements CircuitStateStore {
  /** The Redis hash holding every state. */
  readonly hashKey: string;

  constructor(options: RedisStateStoreOptions) {
    super(options, "circuit-state-store");
    this.hashKey = this.keyspace.circuits;
  }

  async get(key: string): Promise<CircuitState | undefined> {
    const outcome = await this.connection.run("circuit-state-store", "get", (client) => client.hget(this.hashKey, key));
    return outcome.ok ? this.parse<CircuitState>(CircuitStateSchema, this.hashKey, outcome.value) : undefined;
  }

  async set(state: CircuitState): Promise<void> {
    const valid = parseOrThrow(CircuitStateSchema, state, "INVALID_INPUT", "circuit state");
    await this.connection.run("circuit-state-store", "set", (client) => client.hset(this.hashKey, valid.key, JSON.stringify(valid)));
  }

  async all(): Promise<CircuitState[]> {
    const outcome = await this.connection.run("circuit-state-store", "all", (client) => client.hgetall(this.hashKey));
    if (!outcome.ok) return [];
    return Object.values(outcome.value)
      .map((raw) => this.parse<CircuitState>(CircuitStateSchema, this.hashKey, raw))
      .filter((state) => state !== undefined);
  }
}
