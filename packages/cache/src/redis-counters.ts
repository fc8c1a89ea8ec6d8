import { LuaScript, type RedisConnection } from "./redis-connection.js";

const INCREMENT_SCRIPT = new LuaScript(`
for i = 1, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])
end
return 1`);

/** Counters kept in one Redis hash so every instance shares them. */
export class RedisCounters {
  /** This instance's totals since start. */
  readonly local: Record<string, number> = {};
  private pending: Record<string, number> = {};
  private inFlight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly connection: RedisConnection,
    private readonly key: string,
    private readonly flushDelayMs = 20,
  ) {}

  /** Adds `increments` and schedules a flush. */
  add(increments: Readonly<Record<string, number>>): void {
    for (const [field, amount] of Object.entries(increments)) {
      this.local[field] = (this.local[field] ?? 0) + amount;
      this.pending[field] = (this.pending[field] ?? 0) + amount;
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.inFlight) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.connection.ready) void this.startFlush();
    }, this.flushDelayMs);
    this.timer.unref();
  }

  /** Writes every pending increment now; resolves when done (or failed, keeping them pending). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.inFlight) await this.inFlight;
    if (Object.keys(this.pending).length > 0) await this.startFlush();
  }

  /** Starts one flush and marks it in flight until it settled. */
  private startFlush(): Promise<void> {
    const run: Promise<void> = this.flushOnce().then((ok) => {
      if (this.inFlight === run) this.inFlight = undefined;
      if (ok && Object.keys(this.pending).length > 0) this.schedule();
    });
    this.inFlight = run;
    return run;
  }

  /** Sends the pending increments; false (and they stay pending) when Redis could not take them. */
  private async flushOnce(): Promise<boolean> {
    const batch = this.pending;
    this.pending = {};
    const args = Object.entries(batch).flatMap(([field, amount]) => [field, amount]);
    if (args.length === 0) return true;
    const outcome = await this.connection.execute((client) => INCREMENT_SCRIPT.run(client, [this.key], args));
    if (!outcome.ok) {
      for (const [field, amount] of Object.entries(batch)) this.pending[field] = (this.pending[field] ?? 0) + amount;
    }
    return outcome.ok;
  }

  /** Reads the shared counters; undefined when Redis cannot be read. */
  async read(): Promise<Record<string, string> | undefined> {
    await this.flush();
    const outcome = await this.connection.execute((client) => client.hgetall(this.key));
    return outcome.ok ? outcome.value : undefined;
  }
}
