// A vector store that already holds a tool's vector for its current content (an earlier run, or
// another gateway instance sharing the Chroma collection) spares the embedding.
import { randomUUID } from "node:crypto";
import type { Embedder, ToolDescriptorInput } from "@afw/contracts";
import { createHashingEmbedder } from "@afw/embeddings";
import { startChroma, type ChromaServerHandle } from "@afw/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChromaVectorStore } from "./chroma-vector-store.js";
import { createInMemoryVectorStore } from "./in-memory-vector-store.js";
import { createToolIndex } from "./tool-index.js";
import type { VectorStore } from "./vector-store.js";

const tool = (server: string, name: string, description: string): ToolDescriptorInput => ({
  server,
  name,
  description,
  inputSchema: { type: "object", properties: { id: { type: "string" } } },
});
const TOOLS = [
  tool("github", "merge_pull_request", "Merge a pull request in a GitHub repository."),
  tool("slack", "post_message", "Post a message to a Slack channel."),
  tool("filesystem", "read_file", "Read the complete contents of a file from the local file system."),
];

function countingEmbedder(id = "hashing-test") {
  const inner = createHashingEmbedder({ dimensions: 32 });
  const state = { texts: 0 };
  const embedder: Embedder = {
    id,
    dimensions: inner.dimensions,
    async embed(texts, signal) {
      state.texts += texts.length;
      return inner.embed(texts, signal);
    },
  };
  return { embedder, state };
}

async function reusesStoredVectors(openStore: () => Promise<VectorStore>) {
  const { embedder, state } = countingEmbedder();
  const first = createToolIndex({ embedder, store: await openStore() });
  await first.add(TOOLS);
  expect(state.texts).toBe(TOOLS.length * 2);

  // a second index on the same store (a restart, another instance) embeds nothing
  const second = createToolIndex({ embedder, store: await openStore(), backgroundEmbedding: true });
  await second.add(TOOLS);
  await second.vectorsReady();
  expect(state.texts).toBe(TOOLS.length * 2);
  const found = await second.search({ query: "post a message to slack", mode: "semantic", top_k: 1 });
  expect(found.results[0]!.id).toBe("slack/post_message");

  // changed content, or another embedder, is embedded again
  const afterQuery = state.texts; // the search embedded its query
  await second.add([tool("slack", "post_message", "Send a chat message to a Slack channel or person.")]);
  await second.vectorsReady();
  expect(state.texts).toBe(afterQuery + 2);
  const other = countingEmbedder("another-model");
  const third = createToolIndex({ embedder: other.embedder, store: await openStore() });
  await third.add(TOOLS);
  expect(other.state.texts).toBe(TOOLS.length * 2);
}

describe("vectors already in the store", () => {
  it("in-process store shared by two indexes", async () => {
    const store = createInMemoryVectorStore();
    await reusesStoredVectors(async () => store);
  });

  describe("Chroma (real server)", () => {
    let chroma: ChromaServerHandle;
    beforeAll(async () => {
      chroma = await startChroma();
    }, 60_000);
    afterAll(async () => {
      await chroma?.stop();
    });

    it("a restarted index on the same collection embeds nothing", async () => {
      const collection = `t-${randomUUID()}`;
      await reusesStoredVectors(() => createChromaVectorStore({ url: chroma.url, collection }));
    });
  });
});
