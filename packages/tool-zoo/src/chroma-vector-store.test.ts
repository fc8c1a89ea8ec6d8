import { randomUUID } from "node:crypto";
import { startChroma, type ChromaServerHandle } from "@afw/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHashingEmbedder } from "@afw/embeddings";
import { createChromaVectorStore, toChromaWhere } from "./chroma-vector-store.js";
import { createToolIndex } from "./tool-index.js";
import { runVectorStoreSuite } from "./testing/vector-store.suite.js";

let chroma: ChromaServerHandle;
beforeAll(async () => {
  chroma = await startChroma();
});
afterAll(async () => {
  await chroma?.stop();
});

runVectorStoreSuite("chroma (real server)", () => createChromaVectorStore({ url: chroma.url, collection: `t-${randomUUID()}` }));

describe("Chroma store", () => {
  it("translates multi-field filters to one-key-per-object where clauses", () => {
    expect(toChromaWhere({ server: "git", view: 0 })).toEqual({ $and: [{ server: "git" }, { view: 0 }] });
    expect(toChromaWhere({ $or: [{ a: 1 }] })).toEqual({ a: 1 });
  });

  it("creates collections without an embedding function, so nothing is downloaded", async () => {
    const name = `t-${randomUUID()}`;
    await createChromaVectorStore({ url: chroma.url, collection: name });
    const response = await fetch(`${chroma.url}/api/v2/tenants/default_tenant/databases/default_database/collections`);
    const collections = (await response.json()) as Array<{
      name: string;
      configuration_json: { embedding_function: unknown; hnsw: { space: string } };
    }>;
    const created = collections.find((c) => c.name === name);
    expect(created).toBeDefined();
    expect(created!.configuration_json.embedding_function).toBeNull();
    expect(created!.configuration_json.hnsw.space).toBe("cosine");
  });

  it("backs a tool index, with server and tag filters pushed down as where clauses", async () => {
    const store = await createChromaVectorStore({ url: chroma.url, collection: `t-${randomUUID()}` });
    const index = createToolIndex({ embedder: createHashingEmbedder({ dimensions: 64 }), store });
    await index.add([
      { server: "github", name: "create_issue", description: "Create an issue in a GitHub repository.", tags: ["write"] },
      { server: "gitlab", name: "create_issue", description: "Create an issue in a GitLab project.", tags: ["write"] },
      { server: "github", name: "get_issue", description: "Get an issue of a GitHub repository.", tags: ["read"] },
    ]);
    expect((await store.ids()).length).toBe(3);
    const semantic = await index.search({ query: "create an issue", mode: "semantic", servers: ["gitlab"], top_k: 5 });
    expect(semantic.results.map((r) => r.id)).toEqual(["gitlab/create_issue"]);
    const tagged = await index.search({ query: "issue", mode: "semantic", tags: ["read"], top_k: 5 });
    expect(tagged.results.map((r) => r.id)).toEqual(["github/get_issue"]);
    await index.remove(["github/get_issue"]);
    expect((await store.ids()).length).toBe(2);
  });

  it("fails with SERVER_CONNECTION_FAILED when no server answers", async () => {
    await expect(createChromaVectorStore({ url: "http://127.0.0.1:1", collection: "x" })).rejects.toMatchObject({ code: "SERVER_CONNECTION_FAILED" });
  });
});
