import { describe, expect, it } from "vitest";
import { Keyspace, decodeCacheGroup, encodeCacheGroup, escapeRedisPattern } from "./keyspace.js";

describe("Keyspace", () => {
  const keys = new Keyspace("afw:");

  it("builds the documented layout with encoded components", () => {
    expect(keys.cacheEntry({ scope: "shared", flowId: "flowise:faq" }, "abc")).toBe("afw:cache:{shared:flow:flowise%3Afaq}:q:abc");
    expect(keys.cacheEntry({ scope: "session", flowId: "f", sessionId: "s1" }, "abc")).toBe("afw:cache:{s1}:session:flow:f:q:abc");
    expect(keys.cacheEntry({ scope: "shared", flowId: "f", tenant: "acme" }, "abc")).toBe("afw:cache:{t:acme:shared:flow:f}:q:abc");
    expect(keys.sessionTurns("s1")).toBe("afw:session:{s1}");
    expect(keys.sessionMeta("s1", "acme")).toBe("afw:session:{t:acme:s1}:meta");
    expect(keys.performanceWindow("flowise", "flowise:faq")).toBe("afw:perf:{flowise}:flow:flowise%3Afaq");
  });

  it("cannot be broken out of a hash tag by braces in ids", () => {
    const key = keys.sessionTurns("evil}{x");
    expect(key).toBe("afw:session:{evil%7D%7Bx}");
    expect(keys.cacheGroupBase({ scope: "session", flowId: "}", sessionId: "{" })).toBe("afw:cache:{%7B}:session:flow:%7D");
  });

  it("round-trips cache groups through the registry encoding and rejects foreign members", () => {
    const group = { scope: "session" as const, flowId: "f:1", sessionId: "s", tenant: "acme" };
    expect(decodeCacheGroup(encodeCacheGroup(group))).toEqual(group);
    expect(decodeCacheGroup(encodeCacheGroup({ scope: "shared", flowId: "f" }))).toEqual({ scope: "shared", flowId: "f" });
    expect(decodeCacheGroup("nonsense")).toBeUndefined();
    expect(decodeCacheGroup(JSON.stringify(["other", "f", null, null]))).toBeUndefined();
  });

  it("escapes SCAN glob characters", () => {
    expect(escapeRedisPattern("a*b?[c]\\")).toBe("a\\*b\\?\\[c\\]\\\\");
  });
});
