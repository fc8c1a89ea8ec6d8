import { createHash } from "node:crypto";
import type { Embedder } from "@afw/contracts";
import { EMBED_BATCH, HyperplaneLsh, embeddedText, quantize, similarity } from "./history-vectors.js";
import type { Keyspace } from "./keyspace.js";
import type { RedisClient, RedisConnection } from "./redis-connection.js";

/** Newest ids read from one bucket of a query. */
const BUCKET_SCAN = 2000;
/** Candidates of the bucket stage whose vectors are read and compared exactly. */
const RERANK = 400;
/** Pending turns taken per round of indexing. */
const DRAIN_BATCH = 64;

const ignore = () => {};

/**
 * The meaning index of the Redis history (plain Redis 7, no modules). A written turn's id joins a
 * pending set in the same pipeline as its document; this process (or any other) then embeds the
 * question in the background, stores the vector as int8 bytes (`history:…vec:<id>`, same TTL as
 * the document) and adds the id to one bucket per table of a random-hyperplane LSH
 * ({@link HyperplaneLsh}): sorted sets by `askedAt`, like the word sets. A search reads the query's
 * buckets (newest {@link BUCKET_SCAN} each), keeps the {@link RERANK} ids that share the most
 * buckets plus the keyword candidates, and ranks them by exact similarity of their stored vectors.
 * A turn leaves the pending set only once indexed, so a crash or an embedder failure delays its
 * indexing, never loses it (it is found by keyword meanwhile).
 */
export class RedisHistoryVectors {
  private readonly lsh: HyperplaneLsh;
  /** Short tag of the embedder in bucket names: another model's vectors never share buckets. */
  private readonly tag: string;
  private draining: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly connection: RedisConnection,
    private readonly keyspace: Keyspace,
    readonly embedder: Embedder,
    private readonly ttlMs: number,
    private readonly retryMs: number,
  ) {
    this.lsh = new HyperplaneLsh(embedder.dimensions);
    this.tag = createHash("sha256").update(embedder.id).digest("hex").slice(0, 8);
  }

  /** Member of the pending set for a turn. */
  pendingMember(turnId: string, tenant: string | undefined): string {
    return JSON.stringify([tenant ?? null, turnId]);
  }

  /** Starts indexing pending turns in the background (one run per process at a time). */
  kick(): void {
    if (this.closed) return;
    this.draining ??= this.drain().finally(() => {
      this.draining = undefined;
    });
  }

  /** Indexes every pending turn; resolves when none is left or a round failed (then a retry is scheduled). */
  async drain(): Promise<void> {
    for (;;) {
      const outcome = await this.connection.execute((client) => this.indexRound(client), { timeoutMs: 10_000 });
      if (outcome.ok && outcome.value === 0) return;
      if (!outcome.ok) {
        this.scheduleRetry();
        return;
      }
    }
  }

  /** Stops retrying. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.draining;
  }

  private scheduleRetry(): void {
    if (this.retry !== undefined || this.closed) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.kick();
    }, this.retryMs);
    this.retry.unref();
  }

  /** Indexes up to {@link DRAIN_BATCH} pending turns; resolves to how many members were taken. */
  private async indexRound(client: RedisClient): Promise<number> {
    const pendingKey = this.keyspace.historyPending;
    const members = await client.srandmember(pendingKey, DRAIN_BATCH);
    if (members.length === 0) return 0;
    const items = members.map((member) => {
      const [tenant, id] = JSON.parse(member) as [string | null, string];
      return { member, tenant: tenant ?? undefined, id };
    });
    const read = client.pipeline();
    for (const item of items) read.get(this.keyspace.historyDoc(item.id, item.tenant)).pttl(this.keyspace.historyDoc(item.id, item.tenant));
    const replies = (await read.exec()) ?? [];
    const live: Array<(typeof items)[number] & { text: string; at: number; ttl: number }> = [];
    items.forEach((item, i) => {
      const raw = replies[2 * i]?.[1];
      const ttl = Number(replies[2 * i + 1]?.[1]);
      if (typeof raw !== "string" || !(ttl > 0)) return;
      const doc = JSON.parse(raw) as { t: { question: string; answer: string; askedAt: number } };
      live.push({ ...item, text: embeddedText(doc.t as never), at: doc.t.askedAt, ttl });
    });
    const vectors: Float32Array[] = [];
    for (let start = 0; start < live.length; start += EMBED_BATCH) {
      vectors.push(...(await this.embedder.embed(live.slice(start, start + EMBED_BATCH).map((item) => item.text))));
    }
    const write = client.pipeline();
    live.forEach((item, i) => {
      const vector = vectors[i]!;
      const bytes = quantize(vector);
      write.set(this.keyspace.historyVector(item.id, item.tenant), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), "PX", item.ttl);
      for (const bucket of this.lsh.buckets(vector)) {
        const key = this.bucketKey(bucket, item.tenant);
        write.zadd(key, item.at, item.id).pexpire(key, this.ttlMs);
      }
    });
    write.srem(pendingKey, ...members);
    await write.exec();
    return members.length;
  }

  private bucketKey(bucket: string, tenant: string | undefined): string {
    return this.keyspace.historySet("v", `${this.tag}.${bucket}`, tenant);
  }

  /** Embeds a query; undefined when the embedder fails (the search then runs by keyword). */
  async embedQuery(text: string): Promise<Float32Array | undefined> {
    return this.embedder.embed([text]).then(
      ([vector]) => vector,
      () => undefined,
    );
  }

  /**
   * The bucket stage of a search: ids (asked within `min`..`max`) sharing buckets with `vector`,
   * the {@link RERANK} sharing the most (then newest) first, with their `askedAt`.
   */
  async candidates(client: RedisClient, vector: Float32Array, tenant: string | undefined, min: number | string, max: number | string): Promise<Map<string, number>> {
    const keys = this.lsh.buckets(vector).map((bucket) => this.bucketKey(bucket, tenant));
    const lists = await Promise.all(keys.map((key) => client.zrevrangebyscore(key, max, min, "WITHSCORES", "LIMIT", 0, BUCKET_SCAN)));
    const shared = new Map<string, { count: number; at: number }>();
    for (const list of lists) {
      for (let i = 0; i + 1 < list.length; i += 2) {
        const found = shared.get(list[i]!);
        if (found) found.count += 1;
        else shared.set(list[i]!, { count: 1, at: Number(list[i + 1]) });
      }
    }
    const best = [...shared].sort(([, a], [, b]) => b.count - a.count || b.at - a.at).slice(0, RERANK);
    return new Map(best.map(([id, { at }]) => [id, at]));
  }

  /** Exact similarity of `vector` and the stored vectors of `ids` (0 for an id without one). */
  async similarities(client: RedisClient, ids: readonly string[], vector: Float32Array, tenant: string | undefined): Promise<Map<string, number>> {
    const read = client.pipeline();
    for (const id of ids) read.getBuffer(this.keyspace.historyVector(id, tenant));
    const replies = (await read.exec()) ?? [];
    const result = new Map<string, number>();
    ids.forEach((id, i) => {
      const raw = replies[i]?.[1];
      result.set(id, Buffer.isBuffer(raw) ? similarity(vector, new Int8Array(raw.buffer, raw.byteOffset, raw.byteLength)) : 0);
    });
    return result;
  }

  /** Drops the buckets' members of turns whose document expired. */
  forget(client: RedisClient, vector: Float32Array, tenant: string | undefined, ids: readonly string[]): void {
    if (ids.length === 0) return;
    for (const bucket of this.lsh.buckets(vector)) client.zrem(this.bucketKey(bucket, tenant), ...ids).catch(ignore);
  }
}
