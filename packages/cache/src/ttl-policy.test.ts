import { describe, expect, it } from "vitest";
import { UniversalFlowSchema } from "@afw/contracts";
import { DEFAULT_CACHE_TTL_POLICY, createCacheTtlPolicy, resolveCacheTtl } from "./ttl-policy.js";

const DAY = 86_400;

describe("resolveCacheTtl", () => {
  it("uses the default classes: technical 7 d, creative/strategic 30 d, volatile/document-QA 1 d", () => {
    expect(resolveCacheTtl("technical")).toBe(7 * DAY);
    expect(resolveCacheTtl("creative")).toBe(30 * DAY);
    expect(resolveCacheTtl("Strategic")).toBe(30 * DAY);
    expect(resolveCacheTtl("volatile")).toBe(DAY);
    expect(resolveCacheTtl("document_qa")).toBe(DAY);
    expect(resolveCacheTtl("Document QA")).toBe(DAY);
    expect(resolveCacheTtl("unknown-class")).toBe(DEFAULT_CACHE_TTL_POLICY.defaultTtlSeconds);
  });

  it("reads a flow's cacheClass first, then its intents", () => {
    const flow = UniversalFlowSchema.parse({
      id: "flowise:x",
      backendId: "flowise",
      backendKind: "flowise",
      backendFlowId: "x",
      name: "x",
      intents: ["creative-orientation"],
    });
    expect(resolveCacheTtl(flow)).toBe(30 * DAY);
    expect(resolveCacheTtl({ ...flow, cacheClass: "volatile" })).toBe(DAY);
    expect(resolveCacheTtl({ intents: ["conversation", "technical-analysis"] })).toBe(7 * DAY);
    expect(resolveCacheTtl({ intent: "rag-retrieval" })).toBe(DAY);
    expect(resolveCacheTtl("structural-thinking")).toBe(30 * DAY);
    expect(resolveCacheTtl({})).toBe(DAY);
  });

  it("honours a configured policy merged over the defaults", () => {
    const policy = createCacheTtlPolicy({ classes: { Volatile: 600, news: 300 }, intentClasses: { conversation: "news" }, defaultTtlSeconds: 3600 });
    expect(resolveCacheTtl("volatile", policy)).toBe(600);
    expect(resolveCacheTtl("news", policy)).toBe(300);
    expect(resolveCacheTtl({ intent: "conversation" }, policy)).toBe(300);
    expect(resolveCacheTtl("technical", policy)).toBe(7 * DAY);
    expect(resolveCacheTtl("other", policy)).toBe(3600);
    expect(() => createCacheTtlPolicy({ defaultTtlSeconds: 0 })).toThrow(/defaultTtlSeconds/);
    expect(() => createCacheTtlPolicy({ classes: { x: 1.5 } })).toThrowError(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});
