import type { Embedder, ToolDescriptorInput } from "@afw/contracts";
import { createHashingEmbedder } from "@afw/embeddings";
import { describe, expect, it } from "vitest";
import type { EmbeddingCacheStore } from "./embedding-cache.js";
import { createInMemoryVectorStore } from "./in-memory-vector-store.js";
import { createToolIndex } from "./tool-index.js";

const tool = (server: string, name: string, description: string): ToolDescriptorInput => ({
  server,
  name,
  description,
  inputSchema: { type: "object", properties: { id: { type: "string" } } },
});

const TOOLS: ToolDescriptorInput[] = [
  tool("github", "merge_pull_request", "Merge a pull request in a GitHub repository."),
  tool("github", "create_issue", "Create a new issue in a GitHub repository."),
  tool("slack", "post_message", "Post a message to a Slack channel."),
  tool("filesystem", "read_file", "Read the complete contents of a file from the local file system."),
];

/** A hashing embedder whose calls wait until `release()` (or fail while `failing` is set). */
function gatedEmbedder() {
  const inner = createHashingEmbedder({ dimensions: 64 });
  let open!: () => void;
  let gate = new Promise<void>((resolve) => (open = resolve));
  const state = { calls: 0, texts: 0, failing: false };
  const embedder: Embedder = {
    id: inner.id,
    dimensions: inner.dimensions,
    async embed(texts, signal) {
      state.calls++;
      await gate;
      if (state.failing) throw new Error("model could not load");
      state.texts += texts.length;
      return inner.embed(texts, signal);
    },
  };
  return {
    embedder,
    state,
    release() {
      open();
    },
    close() {
      gate = new Promise<void>((resolve) => (open = resolve));
    },
  };
}

describe("background embedding", () => {
  it("answers keyword-only, and says so, until every tool has its vector", async () => {
    const gated = gatedEmbedder();
    const index = createToolIndex({ embedder: gated.embedder, backgroundEmbedding: true });
    await index.add(TOOLS); // returns although the embedder has not answered
    expect(index.size).toBe(TOOLS.length);
    expect(index.vectorState()).toEqual({ state: "building", pending: TOOLS.length });
    const early = await index.search({ query: "merge the pull request", top_k: 3 });
    expect(early.mode).toBe("keyword");
    expect(early.semantic_state).toBe("building");
    expect(early.results[0]!.id).toBe("github/merge_pull_request");

    gated.release();
    await index.vectorsReady();
    expect(index.vectorState()).toEqual({ state: "ready", pending: 0 });
    const later = await index.search({ query: "merge the pull request", top_k: 3 });
    expect(later.mode).toBe("hybrid");
    expect(later.semantic_state).toBeUndefined();
    expect(later.results[0]!.id).toBe("github/merge_pull_request");
    await index.close();
  });

  it("marks a failed build unavailable and retries it with the next add", async () => {
    const gated = gatedEmbedder();
    gated.state.failing = true;
    gated.release();
    const index = createToolIndex({ embedder: gated.embedder, backgroundEmbedding: true });
    await index.add(TOOLS);
    await index.vectorsReady();
    expect(index.vectorState()).toEqual({ state: "failed", pending: TOOLS.length });
    const failed = await index.search({ query: "post a slack message", top_k: 3 });
    expect(failed.mode).toBe("keyword");
    expect(failed.semantic_state).toBe("unavailable");

    gated.state.failing = false;
    await index.add([tool("slack", "list_channels", "List the channels of the Slack workspace.")]);
    await index.vectorsReady();
    expect(index.vectorState()).toEqual({ state: "ready", pending: 0 });
    expect(gated.state.texts).toBe((TOOLS.length + 1) * 2); // two views per tool, every tool embedded once
    expect((await index.search({ query: "post a slack message", top_k: 3 })).mode).toBe("hybrid");
    await index.close();
  });

  it("keeps no vector of a tool removed while it was being embedded", async () => {
    const gated = gatedEmbedder();
    const store = createInMemoryVectorStore();
    const index = createToolIndex({ embedder: gated.embedder, store, backgroundEmbedding: true });
    await index.add(TOOLS);
    await index.remove(["slack/post_message"]);
    gated.release();
    await index.vectorsReady();
    expect(index.vectorState().state).toBe("ready");
    expect((await store.ids()).sort()).toEqual(["filesystem/read_file#0", "github/create_issue#0", "github/merge_pull_request#0"]);
  });

  it("without backgroundEmbedding, add waits for the vectors", async () => {
    const gated = gatedEmbedder();
    const index = createToolIndex({ embedder: gated.embedder });
    let added = false;
    const adding = index.add(TOOLS).then(() => (added = true));
    await Promise.resolve();
    expect(added).toBe(false);
    gated.release();
    await adding;
    expect(index.vectorState()).toEqual({ state: "ready", pending: 0 });
    expect((await index.search({ query: "read a file", top_k: 1 })).mode).toBe("hybrid");
  });
});

describe("embeddingCacheStore", () => {
  it("reuses vectors another index stored, so a restart embeds nothing", async () => {
    const entries = new Map<string, Uint8Array>();
    const store: EmbeddingCacheStore = {
      get: async (keys) => new Map(keys.flatMap((key) => (entries.has(key) ? [[key, entries.get(key)!] as const] : []))),
      set: async (values) => {
        for (const [key, value] of values) entries.set(key, value);
      },
    };
    const gated = gatedEmbedder();
    gated.release();
    await createToolIndex({ embedder: gated.embedder, embeddingCacheStore: store }).add(TOOLS);
    expect(gated.state.texts).toBe(TOOLS.length * 2);
    expect(entries.size).toBe(TOOLS.length * 2);

    const restarted = createToolIndex({ embedder: gated.embedder, embeddingCacheStore: store });
    await restarted.add(TOOLS);
    expect(gated.state.texts).toBe(TOOLS.length * 2);
    expect((await restarted.search({ query: "merge pull request", mode: "semantic", top_k: 1 })).results[0]!.id).toBe("github/merge_pull_request");
  });

  it("embeds when the store fails instead of failing the add", async () => {
    const broken: EmbeddingCacheStore = {
      get: () => Promise.reject(new Error("connection lost")),
      set: () => Promise.reject(new Error("connection lost")),
    };
    const gated = gatedEmbedder();
    gated.release();
    const index = createToolIndex({ embedder: gated.embedder, embeddingCacheStore: broken });
    await index.add(TOOLS);
    expect(gated.state.texts).toBe(TOOLS.length * 2);
    expect(index.vectorState().state).toBe("ready");
  });
});
