import { describe, expect, it } from "vitest";
import { decodeEmbedding, encodeEmbedding, flowStatField, semanticSettings, statsFromFields } from "./response-cache-shared.js";
import { redactSecrets } from "./store-events.js";

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
    const stats = statsFromFields({ hits: "6", semanticHits: "2", misses: "2", writes: "4", errors: "-3", [flowStatField("a:b", "hits")]: "5", "flow:%E0%A4%A:hits": "1", junk: "x" });
    expect(stats).toEqual({ hits: 6, semanticHits: 2, misses: 2, writes: 4, errors: 0, hitRate: 0.8, byFlow: { "a:b": { hits: 5, misses: 0, writes: 0 } } });
    expect(statsFromFields({}).hitRate).toBe(0);
  });

  it("validates semantic settings", () => {
    expect(semanticSettings(undefined)).toEqual({ enabled: false, threshold: 0.95, maxCandidates: 200 });
    expect(() => semanticSettings({ threshold: 1.5 })).toThrowError(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => semanticSettings({ maxCandidates: 0 })).toThrowError(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  it("redacts credentials from driver messages", () => {
    expect(redactSecrets("connect to redis://user:hunter2@host:6379 failed")).toBe("connect to redis://***@host:6379 failed");
  });
});
