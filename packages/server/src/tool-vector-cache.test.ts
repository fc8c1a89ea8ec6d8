// Tool vectors: computed in the background (search is keyword-only until they are ready) and
// cached by content hash in a file or in Redis, so a restart embeds nothing it embedded before.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RedisConnection } from "@afw/cache";
import type { Embedder } from "@afw/contracts";
import { createHashingEmbedder } from "@afw/embeddings";
import { freePort } from "@afw/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolsConfigSchema } from "./config-schema.js";
import { createToolSearchFromConfig } from "./tool-zoo-adapter.js";
import { useTestRedis } from "../test/helpers.js";

const dir = mkdtempSync(join(tmpdir(), "afw-tool-vectors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const catalog = join(dir, "tools.json");
const TOOL_COUNT = 4;
writeFileSync(
  catalog,
  JSON.stringify({
    tools: [
      { server: "github", name: "merge_pull_request", description: "Merge a pull request in a GitHub repository.", inputSchema: { type: "object", properties: { pullNumber: { type: "number" } } } },
      { server: "github", name: "create_issue", description: "Create a new issue in a GitHub repository.", inputSchema: { type: "object", properties: { title: { type: "string" } } } },
      { server: "filesystem", name: "read_text_file", description: "Read the complete contents of a file as text.", inputSchema: { type: "object", properties: { path: { type: "string" } } } },
      { server: "slack", name: "slack_post_message", description: "Post a new message to a Slack channel.", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
    ],
  }),
);

/** A hashing embedder that counts the texts it embeds and, while `gate` is set, waits for it. */
function countingEmbedder() {
  const inner = createHashingEmbedder({ dimensions: 32 });
  const state: { texts: number; gate?: Promise<void> } = { texts: 0 };
  const embedder: Embedder = {
    id: inner.id,
    dimensions: inner.dimensions,
    async embed(texts, signal) {
      await state.gate;
      state.texts += texts.length;
      return inner.embed(texts, signal);
    },
  };
  return { embedder, state };
}

const toolsConfig = (extra: Record<string, unknown> = {}) => ToolsConfigSchema.parse({ catalogs: [catalog], ...extra });

describe("tool vectors built in the background", () => {
  it("returns the index before the vectors and answers keyword-only, saying so, until they are ready", async () => {
    const { embedder, state } = countingEmbedder();
    let release!: () => void;
    state.gate = new Promise<void>((resolve) => (release = resolve));
    const index = await createToolSearchFromConfig(toolsConfig({ vectorCacheDir: join(dir, "background") }), { embedder });
    expect(index.size).toBe(TOOL_COUNT);
    const early = await index.search({ query: "merge the pull request" });
    expect(early).toMatchObject({ mode: "keyword", semantic_state: "building" });
    expect(early.results[0]!.id).toBe("github/merge_pull_request");
    release();
    await index.vectorsReady();
    const later = await index.search({ query: "merge the pull request" });
    expect(later.mode).toBe("hybrid");
    expect(later.semantic_state).toBeUndefined();
    await index.close();
  });

  it("says `unavailable` without an embedder", async () => {
    const index = await createToolSearchFromConfig(toolsConfig());
    const found = await index.search({ query: "post to slack" });
    expect(found).toMatchObject({ mode: "keyword", semantic_state: "unavailable" });
    expect(index.vectorState()).toEqual({ state: "none", pending: 0 });
  });
});

describe("tool-vector cache in a file", () => {
  it("keeps one file per embedder under vectorCacheDir; a restart embeds nothing", async () => {
    const cacheDir = join(dir, "file-cache");
    const { embedder, state } = countingEmbedder();
    const first = await createToolSearchFromConfig(toolsConfig({ vectorCacheDir: cacheDir }), { embedder });
    await first.vectorsReady();
    expect(state.texts).toBe(TOOL_COUNT * 2);
    expect(existsSync(join(cacheDir, `${embedder.id.replace(/[^A-Za-z0-9._-]/g, "_")}.json`))).toBe(true);
    await first.close();

    const restarted = await createToolSearchFromConfig(toolsConfig({ vectorCacheDir: cacheDir }), { embedder });
    await restarted.vectorsReady();
    expect(state.texts).toBe(TOOL_COUNT * 2);
    expect((await restarted.search({ query: "merge pull request" })).mode).toBe("hybrid");
    await restarted.close();
  });
});

describe("tool-vector cache in Redis (real Redis)", () => {
  const redis = useTestRedis();
  let connection: RedisConnection;
  beforeAll(() => {
    connection = new RedisConnection({ url: redis.url });
  });
  afterAll(async () => {
    await connection?.close();
  });

  it("stores every view vector in one hash; a second instance embeds nothing", async () => {
    const { embedder, state } = countingEmbedder();
    const first = await createToolSearchFromConfig(toolsConfig(), { embedder, redis: { connection, keyPrefix: redis.prefix } });
    await first.vectorsReady();
    expect(state.texts).toBe(TOOL_COUNT * 2);
    const stored = await connection.execute((client) => client.hlen(`${redis.prefix}tool-vectors`));
    expect(stored).toEqual({ ok: true, value: TOOL_COUNT * 2 });

    const second = await createToolSearchFromConfig(toolsConfig(), { embedder, redis: { connection, keyPrefix: redis.prefix } });
    await second.vectorsReady();
    expect(state.texts).toBe(TOOL_COUNT * 2);
    const found = await second.search({ query: "post a message to the slack channel", mode: "semantic", top_k: 1 });
    expect(found.results[0]!.id).toBe("slack/slack_post_message");
    await first.close();
    await second.close();
  });

  it("embeds anyway when Redis is away", async () => {
    const away = new RedisConnection({ url: `redis://127.0.0.1:${await freePort()}`, operationTimeoutMs: 50 });
    try {
      const { embedder, state } = countingEmbedder();
      const index = await createToolSearchFromConfig(toolsConfig(), { embedder, redis: { connection: away, keyPrefix: redis.prefix } });
      await index.vectorsReady();
      expect(state.texts).toBe(TOOL_COUNT * 2);
      expect(index.vectorState().state).toBe("ready");
      expect((await index.search({ query: "read a file" })).mode).toBe("hybrid");
      await index.close();
    } finally {
      await away.close();
    }
  });
});
