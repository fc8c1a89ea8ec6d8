import { INTENTS, IntentSchema, type Intent } from "@afw/contracts";
import { LuaScript } from "@afw/cache";
import { connectStore, type RedisStoreConnectionOptions } from "./redis-support.js";

/**
 * Exponentially decayed sums of one (intent, flow), valid at epoch ms `t`: outcomes `n`, successes
 * `s`, latency sum `l` over the `ln` calls with a latency, feedback sum `f` over `fn` ratings. Each
 * halves every half-life: `value(t') = value(t) * 2^(-(t' - t) / halfLifeMs)`.
 */
export interface PriorStats {
  n: number;
  s: number;
  l: number;
  ln: number;
  f: number;
  fn: number;
  t: number;
}

/** Decayed sums of one (intent, flow). */
export interface PriorEntry {
  intent: Intent;
  /** Gateway-wide flow id. */
  flowId: string;
  stats: PriorStats;
}

const SUMS = ["n", "s", "l", "ln", "f", "fn"] as const;

/** Zero sums at time `t`. */
export function emptyPriorStats(t: number): PriorStats {
  return { n: 0, s: 0, l: 0, ln: 0, f: 0, fn: 0, t };
}

/** `stats` decayed to time `t` (a `t` before `stats.t` leaves it as is). */
export function decayPriorStats(stats: PriorStats, t: number, halfLifeMs: number): PriorStats {
  if (t <= stats.t) return { ...stats };
  const factor = 2 ** (-(t - stats.t) / halfLifeMs);
  const out = emptyPriorStats(t);
  for (const sum of SUMS) out[sum] = stats[sum] * factor;
  return out;
}

/** The sum of two decayed stats, valid at the later of their times. */
export function mergePriorStats(a: PriorStats, b: PriorStats, halfLifeMs: number): PriorStats {
  const t = Math.max(a.t, b.t);
  const [x, y] = [decayPriorStats(a, t, halfLifeMs), decayPriorStats(b, t, halfLifeMs)];
  for (const sum of SUMS) x[sum] += y[sum];
  return x;
}

/**
 * Where a {@link LearnedRoutingPrior} keeps its decayed outcome sums. A shared store (Redis)
 * makes every gateway instance learn from every instance's traffic.
 */
export interface LearnedPriorStore {
  /** True when several instances share it (the prior then syncs in the background). */
  readonly shared: boolean;
  /** Adds decayed increments (merging with decay); resolves false when the store failed. */
  add(entries: readonly PriorEntry[], halfLifeMs: number): Promise<boolean>;
  /** Every stored entry, or undefined when the store failed. */
  load(): Promise<PriorEntry[] | undefined>;
  /** Releases resources. Idempotent. */
  close(): Promise<void>;
}

/** Adds `stats` to the entry of (intent, flow) in `entries`, merging with decay. @internal */
export function addPriorEntry(entries: Map<string, PriorEntry>, { intent, flowId, stats }: PriorEntry, halfLifeMs: number): void {
  const key = `${intent}\u0000${flowId}`;
  const current = entries.get(key);
  entries.set(key, { intent, flowId, stats: current ? mergePriorStats(current.stats, stats, halfLifeMs) : { ...stats } });
}

/** A {@link LearnedPriorStore} in process memory (one instance learns alone). */
export function createMemoryPriorStore(): LearnedPriorStore {
  const entries = new Map<string, PriorEntry>();
  return {
    shared: false,
    async add(increments, halfLifeMs) {
      for (const increment of increments) addPriorEntry(entries, increment, halfLifeMs);
      return true;
    },
    async load() {
      return [...entries.values()].map((entry) => ({ ...entry, stats: { ...entry.stats } }));
    },
    async close() {},
  };
}

/** A hash expires 30 days after its last update. */
const TTL_MS = 30 * 86_400_000;

// KEYS[1]: the intent's hash. ARGV: halfLifeMs, TTL_MS, then (flowId, json) pairs.
const MERGE = new LuaScript(`
local half = tonumber(ARGV[1])
local names = {'n', 's', 'l', 'ln', 'f', 'fn'}
for i = 3, #ARGV, 2 do
  local inc = cjson.decode(ARGV[i + 1])
  local raw = redis.call('HGET', KEYS[1], ARGV[i])
  local out = inc
  if raw then
    local cur = cjson.decode(raw)
    local t = math.max(tonumber(cur.t), tonumber(inc.t))
    local fc = math.pow(2, -(t - tonumber(cur.t)) / half)
    local fi = math.pow(2, -(t - tonumber(inc.t)) / half)
    out = {t = t}
    for _, k in ipairs(names) do out[k] = (tonumber(cur[k]) or 0) * fc + (tonumber(inc[k]) or 0) * fi end
  end
  redis.call('HSET', KEYS[1], ARGV[i], cjson.encode(out))
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`);

function parseStats(raw: string): PriorStats | undefined {
  try {
    const value = JSON.parse(raw) as Record<string, unknown>;
    const stats = emptyPriorStats(Number(value["t"] ?? 0));
    for (const sum of SUMS) stats[sum] = Number(value[sum] ?? 0);
    return Object.values(stats).every(Number.isFinite) ? stats : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A {@link LearnedPriorStore} on Redis, shared by every gateway instance: one hash per intent
 * (`<prefix>prior:<intent>`, field = flow id, value = the decayed sums as JSON), merged
 * atomically with decay by a Lua script. Operations are bounded by `operationTimeoutMs`.
 *
 * @example
 * ```ts
 * const prior = createLearnedRoutingPrior({ store: createRedisPriorStore({ url: "redis://127.0.0.1:6379" }) });
 * ```
 * @throws AfwError `CONFIG_INVALID` when neither or both of `url` and `client` are given.
 */
export function createRedisPriorStore(options: RedisStoreConnectionOptions): LearnedPriorStore {
  const { connection, key } = connectStore(options);
  const keyOf = (intent: Intent) => key(`prior:${intent}`);
  return {
    shared: true,
    async add(entries, halfLifeMs) {
      if (entries.length === 0) return true;
      const byIntent = new Map<Intent, Array<string | number>>();
      for (const entry of entries) {
        let args = byIntent.get(entry.intent);
        if (!args) byIntent.set(entry.intent, (args = [halfLifeMs, TTL_MS]));
        args.push(entry.flowId, JSON.stringify(entry.stats));
      }
      const outcome = await connection.execute(async (client) => {
        await Promise.all([...byIntent.entries()].map(([intent, args]) => MERGE.run(client, [keyOf(intent)], args)));
      });
      return outcome.ok;
    },
    async load() {
      const outcome = await connection.execute(async (client) => Promise.all(INTENTS.map((intent) => client.hgetall(keyOf(intent)))));
      if (!outcome.ok) return undefined;
      const entries: PriorEntry[] = [];
      outcome.value.forEach((hash, index) => {
        const intent = IntentSchema.parse(INTENTS[index]);
        for (const [flowId, raw] of Object.entries(hash)) {
          const stats = parseStats(raw);
          if (stats) entries.push({ intent, flowId, stats });
        }
      });
      return entries;
    },
    close: () => connection.close(),
  };
}
