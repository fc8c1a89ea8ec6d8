import { describe, expect, it } from "vitest";
import type { CacheKeyInput } from "@afw/contracts";
import { hashNormalizedQuestion, normalizeQuestion } from "./question-hash.js";
import { decodeEmbedding, encodeEmbedding, entryToStore, flowStatField, resolveCacheKey, semanticSettings, statsFromFields } from "./response-cache-shared.js";
import { redactSecrets } from "@afw/contracts";

describe("response cache helpers", () => {
  it("round-trips embeddings through base64", () => {
    const vector = new Float32Array([0.25, -1, 3.5]);
    expect(decodeEmbedding(encodeEmbedding(vector))).toEqual(vector);
    const view = new Float32Array([9, 1, 2]).subarray(1);
    expect(decodeEmbedding(encodeEmbedding(view))).toEqual(new Float32Array([1, 2]));
    expect(decodeEmbedding("")).toBeUndefined();
    expect(decodeEmbedding("AAA=")).toBeUndefined();
  });

  it("builds stats from counter fields, ignoring junk", () => {
    const stats = statsFromFields({ hits: "6", semanticHits: "2", semanticGuardRejections: "3", misses: "2", writes: "4", errors: "-3", [flowStatField("a:b", "hits")]: "5", "flow:%E0%A4%A:hits": "1", junk: "x" });
    expect(stats).toEqual({ hits: 6, semanticHits: 2, misses: 2, writes: 4, errors: 0, hitRate: 0.8, semanticGuardRejections: 3, byFlow: { "a:b": { hits: 5, misses: 0, writes: 0 } } });
    expect(statsFromFields({}).hitRate).toBe(0);
  });

  it("validates semantic settings", () => {
    expect(semanticSettings(undefined)).toEqual({ enabled: false, threshold: 0.95, maxCandidates: 200 });
    expect(() => semanticSettings({ threshold: 1.5 })).toThrowError(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  it("redacts credentials from driver messages", () => {
    expect(redactSecrets("connect to redis://user:hunter2@host:6379 failed")).toBe("connect to redis://user:[REDACTED]@host:6379 failed");
  });
});

describe("cache keys", () => {
  it("resolves a key object once (get then set on the miss path) and again when it changed", () => {
    const key: CacheKeyInput = { scope: "shared", flowId: "flowise:faq", question: "How do I restart a pod?" };
    const first = resolveCacheKey(key);
    expect(first.hash).toBe(hashNormalizedQuestion(normalizeQuestion(key.question)));
    expect(first.normalized).toBe("how do i restart a pod");
    expect(resolveCacheKey(key)).toBe(first);
    // An equal key in another object gets the same values.
    expect(resolveCacheKey({ ...key })).toEqual(first);
    // A mutated key object is never served its old hash or group.
    key.question = "How do I delete a pod?";
    const second = resolveCacheKey(key);
    expect(second.hash).toBe(hashNormalizedQuestion(normalizeQuestion("How do I delete a pod?")));
    (key as { scope: string }).scope = "session";
    (key as { sessionId?: string }).sessionId = "s-1";
    expect(resolveCacheKey(key).group).toEqual({ scope: "session", flowId: "flowise:faq", sessionId: "s-1" });
    key.tenant = "acme";
    expect(resolveCacheKey(key).group.tenant).toBe("acme");
  });
});

describe("entryToStore", () => {
  const key: CacheKeyInput = { scope: "shared", flowId: "flowise:faq", question: "q" };
  const group = { scope: "shared" as const, flowId: "flowise:faq" };
  const metadata = { backend_used: "flowise", flow_id: "flowise:faq", execution_time_ms: 1, fallback_used: false, attempt: 1, cache_hit: false, trace_id: "t" };

  it("stores a typed result as it is, without re-parsing it", () => {
    const result = { result: "an answer", _mcp_metadata: metadata };
    const entry = entryToStore(key, group, result, { ttlSeconds: 1.2 }, 1_000.7);
    expect(entry).toEqual({ version: 1, result, question: "q", flowId: "flowise:faq", scope: "shared", createdAt: 1_000, ttlSeconds: 2 });
  });

  it("refuses values without an answer text or metadata (what an untyped caller might pass)", () => {
    for (const value of [null, "text", { result: 42, _mcp_metadata: metadata }, { result: "x" }, { result: "x", _mcp_metadata: { flow_id: 7 } }, { result: " ", _mcp_metadata: metadata }]) {
      expect(entryToStore(key, group, value, { ttlSeconds: 60 }, 0)).toBeUndefined();
    }
    expect(() => entryToStore(key, group, { result: "x", _mcp_metadata: metadata }, { ttlSeconds: 0 }, 0)).toThrowError(expect.objectContaining({ code: "INVALID_INPUT" }));
  });
});
