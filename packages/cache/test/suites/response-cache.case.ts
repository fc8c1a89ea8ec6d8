import { describe, expect, it } from "vitest";
import { closeAfter } from "@afw/testing";
import type { CacheKeyInput, ResponseCache } from "@afw/contracts";
import { type CacheGetOptions, type CacheSetOptions, type SemanticCacheOptions } from "../../src/response-cache-shared.js";
import { DEFAULT_CACHE_TTL_POLICY } from "../../src/ttl-policy.js";
import { type CacheStoreEvent } from "../../src/store-events.js";
import { answer, recordingTrace, waitFor } from "../helpers.js";

/** A response cache under test plus what the suite needs to poke at it. */
export interface ResponseCacheHarness {
  cache: ResponseCache & {
    keyOf(key: CacheKeyInput): string;
    get(key: CacheKeyInput, options?: CacheGetOptions): ReturnType<ResponseCache["get"]>;
    set(key: CacheKeyInput, result: Parameters<ResponseCache["set"]>[1], options: CacheSetOptions): Promise<boolean>;
  };
  /** Events reported through the store's `onEvent` hook. */
  events: CacheStoreEvent[];
  /** Lets `ms` of time pass for TTLs (memory: advances the clock; Redis: real time passes, nothing to do). */
  advance(ms: number): Promise<void>;
  /** Overwrites the stored value of an existing entry with `raw`. */
  writeRaw(storageKey: string, raw: string): Promise<void>;
  close(): Promise<void>;
}

/** Creates a fresh, empty cache for one test. */
export type ResponseCacheFactory = (options: { semantic?: SemanticCacheOptions }) => Promise<ResponseCacheHarness>;

const shared = (question: string, extra: Partial<CacheKeyInput> = {}): CacheKeyInput => ({ scope: "shared", flowId: "flowise:faq", question, ...extra });
const session = (sessionId: string, question: string, extra: Partial<CacheKeyInput> = {}): CacheKeyInput => ({
  scope: "session",
  flowId: "flowise:faq",
  question,
  sessionId,
  ...extra,
});
const HOUR = { ttlSeconds: 3600 };

/** The response cache suite, run against every {@link ResponseCache} implementation. */
export function describeResponseCacheSuite(name: string, factory: ResponseCacheFactory): void {
  describe(`ResponseCache conformance: ${name}`, () => {
    const track = closeAfter();
    const create = async (options: { semantic?: SemanticCacheOptions } = {}) => track(await factory(options));

    it("reuses one key object for get and set (the miss path) and never serves a mutated key's old entry", async () => {
      const { cache } = await create();
      const key = shared("Where are the logs?");
      expect((await cache.get(key)).hit).toBe(false);
      expect(await cache.set(key, answer("In /var/log."), HOUR)).toBe(true);
      expect(cache.keyOf(key)).toBe(cache.keyOf(shared("where are the logs")));
      const hit = await cache.get(shared("where are the LOGS"));
      expect(hit.hit && hit.entry.result.result).toBe("In /var/log.");
      const mutable = shared("Where are the logs?");
      expect((await cache.get(mutable)).hit).toBe(true);
      mutable.question = "Where are the metrics?";
      expect(await cache.get(mutable)).toEqual({ hit: false, reason: "absent" });
      expect(await cache.set(mutable, answer("On /metrics."), HOUR)).toBe(true);
      const metrics = await cache.get(shared("where are the metrics"));
      expect(metrics.hit && metrics.entry.result.result).toBe("On /metrics.");
      const logs = await cache.get(shared("where are the logs"));
      expect(logs.hit && logs.entry.result.result).toBe("In /var/log.");
    });

    it("misses an absent key, then hits after a write with the stored answer and metadata", async () => {
      const { cache } = await create();
      expect(await cache.get(shared("What is MCP?"))).toEqual({ hit: false, reason: "absent" });
      expect(await cache.set(shared("What is MCP?"), answer("A protocol."), HOUR)).toBe(true);
      const lookup = await cache.get(shared("What is MCP?"));
      expect(lookup.hit).toBe(true);
      if (!lookup.hit) return;
      expect(lookup.kind).toBe("exact");
      expect(lookup.entry.result.result).toBe("A protocol.");
      expect(lookup.entry.result._mcp_metadata.trace_id).toBe("trace-1");
      expect(lookup.entry).toMatchObject({ version: 1, flowId: "flowise:faq", scope: "shared", question: "What is MCP?", ttlSeconds: 3600 });
    });

    it("serves questions that differ only in case, spacing, width and trailing punctuation from one entry", async () => {
      const { cache } = await create();
      await cache.set(shared("How do I restart a pod?"), answer("kubectl rollout restart"), HOUR);
      for (const variant of ["  how do I   RESTART a pod ", "How do I restart a pod?!", "Ｈｏｗ do I restart a pod"]) {
        expect((await cache.get(shared(variant))).hit, variant).toBe(true);
      }
      expect((await cache.get(shared("How do I restart a node?"))).hit).toBe(false);
    });

    it("keeps flows, scopes, sessions and tenants apart", async () => {
      const { cache } = await create();
      await cache.set(shared("q"), answer("shared answer"), HOUR);
      await cache.set(session("s-1", "q"), answer("answer in s-1"), HOUR);
      await cache.set(shared("q", { tenant: "acme" }), answer("acme answer"), HOUR);
      const text = async (key: CacheKeyInput) => {
        const lookup = await cache.get(key);
        return lookup.hit ? lookup.entry.result.result : undefined;
      };
      expect(await text(shared("q"))).toBe("shared answer");
      expect(await text(session("s-1", "q"))).toBe("answer in s-1");
      expect(await text(session("s-2", "q"))).toBeUndefined();
      expect(await text(shared("q", { tenant: "acme" }))).toBe("acme answer");
      expect(await text(shared("q", { tenant: "globex" }))).toBeUndefined();
      expect(await text(shared("q", { flowId: "langflow:other" }))).toBeUndefined();
      expect(await text(session("s-1", "q", { tenant: "acme" }))).toBeUndefined();
    });

    it("rejects a session-scoped key without a session id", async () => {
      const { cache } = await create();
      await expect(cache.get({ scope: "session", flowId: "f", question: "q" })).rejects.toMatchObject({ code: "INVALID_INPUT" });
    });

    it("never caches empty, partial, error or non-cacheable results", async () => {
      const { cache } = await create();
      expect(await cache.set(shared("empty"), answer("   "), HOUR)).toBe(false);
      expect(await cache.set(shared("partial"), answer("half an answer"), { ...HOUR, partial: true })).toBe(false);
      expect(await cache.set(shared("marked"), { ...answer("half"), partial: true } as never, HOUR)).toBe(false);
      expect(await cache.set(shared("error"), { error: "boom", code: "INTERNAL", attempts: 1, backends_tried: [] } as never, HOUR)).toBe(false);
      expect(await cache.set(shared("nocache"), answer("fine"), { ...HOUR, cacheable: false })).toBe(false);
      for (const question of ["empty", "partial", "marked", "error", "nocache"]) expect((await cache.get(shared(question))).hit).toBe(false);
      expect((await cache.stats()).writes).toBe(0);
    });

    it("records the TTL resolved from the flow type on the entry", async () => {
      const { cache } = await create();
      const ttlSeconds = DEFAULT_CACHE_TTL_POLICY.classes["technical"]!;
      expect(ttlSeconds).toBe(7 * 86_400);
      await cache.set(shared("tech"), answer("x"), { ttlSeconds });
      await cache.set(shared("vol"), answer("y"), { ttlSeconds: DEFAULT_CACHE_TTL_POLICY.classes["volatile"]! });
      const tech = await cache.get(shared("tech"));
      const vol = await cache.get(shared("vol"));
      expect(tech.hit && tech.entry.ttlSeconds).toBe(604_800);
      expect(vol.hit && vol.entry.ttlSeconds).toBe(86_400);
    });

    it("expires an entry after its TTL", async () => {
      const harness = await create();
      await harness.cache.set(shared("short"), answer("soon gone"), { ttlSeconds: 1 });
      await harness.cache.set(shared("long"), answer("stays"), HOUR);
      expect((await harness.cache.get(shared("short"))).hit).toBe(true);
      await harness.advance(1_001);
      await waitFor(async () => !(await harness.cache.get(shared("short"))).hit, 4000);
      const lookup = await harness.cache.get(shared("short"));
      expect(lookup.hit === false && ["absent", "expired"].includes(lookup.reason)).toBe(true);
      expect((await harness.cache.get(shared("long"))).hit).toBe(true);
    });

    it("turns a corrupt or foreign value into a corrupt miss with an event and a trace event", async () => {
      const harness = await create();
      const { cache } = harness;
      await cache.set(shared("q1"), answer("good"), HOUR);
      await harness.writeRaw(cache.keyOf(shared("q1")), "{not json");
      const { trace, events } = recordingTrace();
      expect(await cache.get(shared("q1"), { trace })).toEqual({ hit: false, reason: "corrupt" });
      expect(events.some((event) => event.type === "cache-miss" && event.reason === "corrupt" && event.flowId === "flowise:faq")).toBe(true);
      expect(harness.events.some((event) => event.type === "value-corrupt" && event.store === "response-cache")).toBe(true);

      // A well-formed entry of another flow stored under this key is foreign, not an answer.
      await cache.set(shared("q2", { flowId: "other:flow" }), answer("foreign"), HOUR);
      await cache.set(shared("q2"), answer("mine"), HOUR);
      const foreign = await cache.get(shared("q2", { flowId: "other:flow" }));
      if (!foreign.hit) throw new Error("expected a hit");
      await harness.writeRaw(cache.keyOf(shared("q2")), JSON.stringify(foreign.entry));
      expect(await cache.get(shared("q2"))).toEqual({ hit: false, reason: "corrupt" });

      // A valid JSON value that is not an entry.
      await harness.writeRaw(cache.keyOf(shared("q2")), JSON.stringify({ version: 2, result: "x" }));
      expect(await cache.get(shared("q2"))).toEqual({ hit: false, reason: "corrupt" });
      expect((await cache.stats()).errors).toBeGreaterThanOrEqual(3);
    });

    it("invalidates by flow id, session id, scope, tenant and everything, counting removed entries", async () => {
      const { cache } = await create();
      const keys: CacheKeyInput[] = [
        shared("a"),
        shared("b"),
        shared("a", { flowId: "langflow:docs" }),
        session("s-1", "a"),
        session("s-1", "b", { flowId: "langflow:docs" }),
        session("s-2", "a"),
        shared("a", { tenant: "acme" }),
        session("s-1", "c", { tenant: "acme" }),
      ];
      for (const key of keys) expect(await cache.set(key, answer(`${key.flowId}/${key.question}`), HOUR)).toBe(true);
      const hits = async () => (await Promise.all(keys.map((key) => cache.get(key)))).map((lookup) => lookup.hit);

      expect(await cache.invalidate({ flowId: "langflow:docs" })).toBe(2);
      expect(await hits()).toEqual([true, true, false, true, false, true, true, true]);
      expect(await cache.invalidate({ sessionId: "s-1" })).toBe(2);
      expect(await hits()).toEqual([true, true, false, false, false, true, true, false]);
      expect(await cache.invalidate({ tenant: "acme" })).toBe(1);
      expect(await hits()).toEqual([true, true, false, false, false, true, false, false]);
      expect(await cache.invalidate({ scope: "session" })).toBe(1);
      expect(await hits()).toEqual([true, true, false, false, false, false, false, false]);
      expect(await cache.invalidate({ flowId: "no-such-flow" })).toBe(0);
      await cache.set(shared("c"), answer("c"), HOUR);
      expect(await cache.invalidate({ all: true })).toBe(3);
      expect((await hits()).every((hit) => !hit)).toBe(true);
      // The cache keeps working after invalidation.
      expect(await cache.set(shared("a"), answer("again"), HOUR)).toBe(true);
      expect((await cache.get(shared("a"))).hit).toBe(true);
      await expect(cache.invalidate({})).rejects.toMatchObject({ code: "INVALID_INPUT" });
    });

    it("scopes `all: true` to the tenant given with it", async () => {
      const { cache } = await create();
      const keys: CacheKeyInput[] = [shared("a", { tenant: "acme" }), session("s-1", "b", { tenant: "acme" }), shared("a", { tenant: "globex" }), shared("a")];
      for (const key of keys) expect(await cache.set(key, answer(`${key.tenant}/${key.question}`), HOUR)).toBe(true);
      const hits = async () => (await Promise.all(keys.map((key) => cache.get(key)))).map((lookup) => lookup.hit);
      expect(await cache.invalidate({ all: true, tenant: "globex" })).toBe(1);
      expect(await hits()).toEqual([true, true, false, true]);
      expect(await cache.invalidate({ all: true, tenant: "acme" })).toBe(2);
      expect(await hits()).toEqual([false, false, false, true]);
    });

    it("counts hits, misses, writes and errors per flow", async () => {
      const { cache } = await create();
      await cache.set(shared("a"), answer("a"), HOUR);
      await cache.set(shared("b", { flowId: "langflow:docs" }), answer("b"), HOUR);
      await cache.get(shared("a"));
      await cache.get(shared("a"));
      await cache.get(shared("zzz"));
      await cache.get(shared("b", { flowId: "langflow:docs" }));
      const stats = await cache.stats();
      expect(stats).toMatchObject({ hits: 3, misses: 1, semanticHits: 0, writes: 2, errors: 0 });
      expect(stats.hitRate).toBeCloseTo(0.75);
      expect(stats.byFlow["flowise:faq"]).toEqual({ hits: 2, misses: 1, writes: 1 });
      expect(stats.byFlow["langflow:docs"]).toEqual({ hits: 1, misses: 0, writes: 1 });
    });

    it("ignores embeddings unless semantic hits are enabled", async () => {
      const { cache } = await create();
      const embedding = new Float32Array([1, 0, 0]);
      await cache.set(shared("how to restart a pod"), answer("x"), { ...HOUR, embedding });
      expect((await cache.get(shared("restarting pods, how?"), { embedding })).hit).toBe(false);
    });

    it("keeps answers to other parameters apart (the key's variant), with no semantic hits across or within variants", async () => {
      const { cache } = await create({ semantic: { enabled: true, threshold: 0.9 } });
      const embedding = new Float32Array([1, 0, 0, 0]);
      await cache.set(shared("write a haiku"), answer("default"), { ...HOUR, embedding });
      await cache.set(shared("write a haiku", { variant: "temperature=0" }), answer("cold"), { ...HOUR, embedding });
      const cold = await cache.get(shared("Write a haiku", { variant: "temperature=0" }));
      expect(cold.hit && cold.entry.result.result).toBe("cold");
      const plain = await cache.get(shared("write a haiku"));
      expect(plain.hit && plain.entry.result.result).toBe("default");
      expect((await cache.get(shared("write a haiku", { variant: "temperature=1.5" }))).hit).toBe(false);
      expect((await cache.get(shared("compose a haiku", { variant: "temperature=0" }), { embedding })).hit).toBe(false);
      const near = await cache.get(shared("compose a haiku"), { embedding });
      expect(near.hit && near.entry.result.result).toBe("default");
    });

    it("serves near-duplicates as semantic hits within one flow, scope, session and tenant only", async () => {
      const { cache } = await create({ semantic: { enabled: true, threshold: 0.9 } });
      const stored = new Float32Array([1, 0, 0, 0]);
      const near = new Float32Array([0.98, 0.12, 0, 0]);
      const far = new Float32Array([0, 1, 0, 0]);
      await cache.set(shared("how to restart a pod"), answer("kubectl rollout restart"), { ...HOUR, embedding: stored });
      await cache.set(session("s-1", "how to restart a pod"), answer("session answer"), { ...HOUR, embedding: stored });

      const semantic = await cache.get(shared("how can I restart my pod"), { embedding: near });
      expect(semantic.hit && semantic.kind).toBe("semantic");
      if (!semantic.hit || semantic.kind !== "semantic") return;
      expect(semantic.similarity).toBeGreaterThan(0.9);
      expect(semantic.similarity).toBeLessThanOrEqual(1);
      expect(semantic.entry.result.result).toBe("kubectl rollout restart");

      expect((await cache.get(shared("unrelated"), { embedding: far })).hit).toBe(false);
      expect((await cache.get(shared("how can I restart my pod", { tenant: "acme" }), { embedding: near })).hit).toBe(false);
      expect((await cache.get(shared("how can I restart my pod", { flowId: "other:flow" }), { embedding: near })).hit).toBe(false);
      expect((await cache.get(session("s-2", "how can I restart my pod"), { embedding: near })).hit).toBe(false);
      const inSession = await cache.get(session("s-1", "how can I restart my pod"), { embedding: near });
      expect(inSession.hit && inSession.entry.result.result).toBe("session answer");
      expect((await cache.get(shared("how can I restart my pod"), { embedding: new Float32Array([1, 0]) })).hit).toBe(false);
      expect((await cache.stats()).semanticHits).toBe(2);

      expect(await cache.invalidate({ scope: "shared" })).toBe(1);
      expect((await cache.get(shared("how can I restart my pod"), { embedding: near })).hit).toBe(false);
    });

    it("never serves a near-duplicate that differs in a number, a name or a negation, and counts the refusals", async () => {
      const { cache } = await create({ semantic: { enabled: true, threshold: 0.9 } });
      const embedding = new Float32Array([1, 0, 0, 0]);
      await cache.set(shared("What is the status of order 1041 in Berlin?"), answer("shipped"), { ...HOUR, embedding });
      for (const question of ["What is the status of order 1042 in Berlin?", "What is the status of order 1041 in Madrid?", "What is not the status of order 1041 in Berlin?"]) {
        expect((await cache.get(shared(question), { embedding })).hit).toBe(false);
      }
      const same = await cache.get(shared("What's the status of order 1041 in Berlin"), { embedding });
      expect(same.hit && same.kind).toBe("semantic");
      expect(await cache.stats()).toMatchObject({ semanticHits: 1, semanticGuardRejections: 3, misses: 3 });
    });
  });
}
