import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { HISTORY_PARAPHRASES, NEAR_MISS_PAIRS, PARAPHRASE_PAIRS } from "@afw/testing";
import { createFakeBackend } from "../test/fake-backend.js";
import { callTool, startTestGateway } from "../test/helpers.js";
import { useOnnxRuntimeInstalled } from "@afw/embeddings";
import { GatewayConfigSchema, resolveClassifierEmbedder } from "./config-schema.js";
import { createGatewayDashboardSource } from "./gateway-dashboard.js";
import { historyEmbedderKind, semanticParts } from "./semantic-options.js";
import { newTraceContext } from "./trace-context.js";

const backend = () => createFakeBackend({ id: "f", flows: [{ id: "chat", intents: ["conversation"], generalPurpose: true }] });
const ask = (client: Parameters<typeof callTool>[0], question: string) =>
  callTool<{ result: string; _mcp_metadata: { cache_hit: boolean | "semantic"; cache_similarity?: number } }>(client, "universal_query", { question, backend: "f", flow_id: "f:chat" });

describe("semantic answer cache (gateway option)", () => {
  it("is off by default", () => {
    const parts = semanticParts({ cache: { enabled: true, semantic: { enabled: false, threshold: 0.9, embedder: "use" } } as never, sessions: { enabled: true, searchEmbedder: "none" } as never, routing: { classifierEmbedder: "use" } as never, tools: { embedder: "none" } as never });
    expect(parts.embedQuestion).toBeUndefined();
    expect(parts.cacheSemantic.enabled).toBe(false);
  });

  describe("with the Universal Sentence Encoder", () => {
    let started: Awaited<ReturnType<typeof startTestGateway>>;
    beforeAll(async () => {
      started = await startTestGateway({ backends: [backend()], config: { cache: { semantic: { enabled: true } } } });
    });
    afterAll(() => started.close());

    it("never serves a near-miss question (other number, name or negation) another's answer, and counts the refusals", async () => {
      const wrong: string[] = [];
      for (const [first, second] of NEAR_MISS_PAIRS) {
        await ask(started.client, first);
        const reply = await ask(started.client, second);
        if (!reply.body.result.endsWith(second)) wrong.push(`${second} <- ${reply.body.result}`);
      }
      expect(wrong).toEqual([]);
      const stats = await createGatewayDashboardSource(started.gateway).semanticCacheStats!();
      expect(stats).toMatchObject({ enabled: true, threshold: 0.9, hits: 0 });
      expect(stats?.guardRejections).toBeGreaterThan(0);
    });

    it("serves a paraphrase the cached answer, marked semantic, within the tenant only", async () => {
      const [stored, paraphrase] = PARAPHRASE_PAIRS[0]!;
      await ask(started.client, stored);
      const reply = await ask(started.client, paraphrase);
      expect(reply.body._mcp_metadata.cache_hit).toBe("semantic");
      expect(reply.body.result.endsWith(stored)).toBe(true);
      expect(reply.body._mcp_metadata.cache_similarity).toBeGreaterThanOrEqual(0.9);
      const trace = newTraceContext({ emit: () => {} }, { requestId: "tenant" });
      const other = await started.gateway.pipeline.query({ question: paraphrase, backend: "f", flow_id: "f:chat", intent: "auto", timeout: 30 } as never, { trace, tenant: "acme" });
      expect(other.ok && other.result._mcp_metadata.cache_hit).toBe(false);
    });
  });
});

describe("search_history by meaning (sessions.searchEmbedder)", () => {
  it("is on by default when the process runs the sentence encoder for tool search or routing (auto), off when it runs none", () => {
    const defaults = GatewayConfigSchema.parse({});
    expect(defaults.sessions.searchEmbedder).toBe("auto");
    // `auto` is resolved at parse time: the cascade where onnxruntime-node is installed (as in this repository)
    expect(defaults.routing.classifierEmbedder).toBe(useOnnxRuntimeInstalled() ? "cascade" : "static");
    expect(GatewayConfigSchema.parse({ routing: { classifierEmbedder: "auto" } }).routing.classifierEmbedder).toBe(defaults.routing.classifierEmbedder);
    for (const kind of ["static", "use", "hashing", "cascade"] as const) {
      expect(GatewayConfigSchema.parse({ routing: { classifierEmbedder: kind } }).routing.classifierEmbedder).toBe(kind);
    }
    expect(GatewayConfigSchema.safeParse({ routing: { classifierEmbedder: "fast" } }).success).toBe(false);
    // without onnxruntime-node `auto` is the static model; an explicit choice is kept either way
    expect(resolveClassifierEmbedder("auto", () => false)).toBe("static");
    expect(resolveClassifierEmbedder("auto", () => true)).toBe("cascade");
    expect(resolveClassifierEmbedder("cascade", () => false)).toBe("cascade");
    expect(historyEmbedderKind(defaults)).toBe("use");
    expect(historyEmbedderKind(GatewayConfigSchema.parse({ tools: { embedder: "none" }, routing: { classifierEmbedder: "static" } }))).toBe("none");
    expect(historyEmbedderKind(GatewayConfigSchema.parse({ tools: { embedder: "none" }, routing: { classifierEmbedder: "use" } }))).toBe("use");
    expect(historyEmbedderKind(GatewayConfigSchema.parse({ tools: { embedder: "none" }, routing: { classifierEmbedder: "cascade" } }))).toBe("use");
    expect(historyEmbedderKind(GatewayConfigSchema.parse({ tools: { embedder: "hashing" }, routing: { classifierEmbedder: "hashing" } }))).toBe("none");
    expect(historyEmbedderKind(GatewayConfigSchema.parse({ tools: { embedder: "none" }, sessions: { searchEmbedder: "use" } }))).toBe("use");
    expect(historyEmbedderKind(GatewayConfigSchema.parse({ sessions: { searchEmbedder: "none" } }))).toBe("none");
  });

  let started: Awaited<ReturnType<typeof startTestGateway>>;
  beforeAll(async () => {
    started = await startTestGateway({ backends: [backend()], config: { sessions: { searchEmbedder: "use" } } });
  });
  afterAll(() => started.close());

  it("finds a past turn from a paraphrase that shares no keyword with it", async () => {
    for (const [i, [question]] of HISTORY_PARAPHRASES.slice(0, 6).entries()) {
      await callTool(started.client, "universal_query", { question, backend: "f", flow_id: "f:chat", session_id: `s-${i}` });
    }
    const paraphrase = "turn on 2FA for my account";
    type Page = { mode: string; hits: { session_id: string; similarity?: number }[] };
    expect((await callTool<Page>(started.client, "search_history", { text: paraphrase, mode: "keyword" })).body.hits).toEqual([]);
    await vi.waitFor(async () => {
      const page = await callTool<Page>(started.client, "search_history", { text: paraphrase, limit: 5 });
      expect(page.body.mode).toBe("hybrid");
      expect(page.body.hits[0]).toMatchObject({ session_id: "s-5" });
      expect(page.body.hits[0]!.similarity).toBeGreaterThan(0.35);
    }, { timeout: 10_000, interval: 50 });
  });
});
