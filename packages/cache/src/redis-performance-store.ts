import { PerformanceSampleSchema, type PerformanceSample, type PerformanceStore, type PerformanceTarget } from "@afw/contracts";
import { Keyspace } from "./keyspace.js";
import { parseTargetId, targetId, type PerformanceStoreOptions } from "./performance-store-shared.js";
import { LuaScript, type RedisConnection } from "./redis-connection.js";
import { checkInput, parseStored, positiveIntegerOption } from "./store-validation.js";

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

/** Options of {@link RedisPerformanceStore}. */
export interface RedisPerformanceStoreOptions extends PerformanceStoreOptions {
  /** The shared connection. */
  connection: RedisConnection;
  /** Prefix of every key. @default "afw:" */
  keyPrefix?: string | undefined;
  /** Windows not written for this long disappear. @default 604800000 (7 days) */
  ttlMs?: number | undefined;
}

/**
 * {@link PerformanceStore} on Redis: rolling windows as lists trimmed atomically on every record, and a set of tracked
 * targets, so every gateway instance ranks backends on the same numbers.
 */
export class RedisPerformanceStore implements PerformanceStore {
  private readonly connection: RedisConnection;
  private readonly keyspace: Keyspace;
  private readonly windowSize: number;
  private readonly ttlMs: number;

  constructor(options: RedisPerformanceStoreOptions) {
    this.connection = options.connection;
    this.keyspace = new Keyspace(options.keyPrefix ?? "afw:");
    this.windowSize = positiveIntegerOption(options.windowSize, 100, "windowSize");
    this.ttlMs = positiveIntegerOption(options.ttlMs, 7 * 86_400_000, "ttlMs");
  }

  /** The Redis key of a target's window. */
  keyOf(target: PerformanceTarget): string {
    return this.keyspace.performanceWindow(target.backendId, target.flowId);
  }

  async record(sample: PerformanceSample): Promise<void> {
    const valid = checkInput(PerformanceSampleSchema, sample, "performance sample");
    const targets: PerformanceTarget[] = [{ backendId: valid.backendId }];
    if (valid.flowId !== undefined) targets.push({ backendId: valid.backendId, flowId: valid.flowId });
    const keys = targets.map((target) => this.keyspace.performanceWindow(target.backendId, target.flowId));
    const index = this.keyspace.performanceTargets;
    await this.connection.run("performance-store", "record", (client) =>
      Promise.all([
        RECORD_SCRIPT.run(client, keys, [JSON.stringify(valid), this.windowSize, this.ttlMs]),
        client.sadd(index, ...targets.map(targetId)),
        client.pexpire(index, this.ttlMs),
      ]),
    );
  }

  async window(target: PerformanceTarget): Promise<PerformanceSample[]> {
    const key = this.keyspace.performanceWindow(target.backendId, target.flowId);
    const outcome = await this.connection.run("performance-store", "window", (client) => client.lrange(key, 0, -1));
    if (!outcome.ok) return [];
    const samples: PerformanceSample[] = [];
    for (const raw of outcome.value) {
      const sample = parseStored(PerformanceSampleSchema, raw);
      if (sample) samples.push(sample);
      else this.connection.report({ type: "value-corrupt", store: "performance-store", key, message: "stored sample does not match the schema" });
    }
    return samples;
  }

  async targets(): Promise<PerformanceTarget[]> {
    const outcome = await this.connection.run("performance-store", "targets", (client) => client.smembers(this.keyspace.performanceTargets));
    if (!outcome.ok) return [];
    return outcome.value.map(parseTargetId).filter((target): target is PerformanceTarget => target !== undefined);
  }
}
