import { randomUUID } from "node:crypto";
import { startChroma, type ChromaServerHandle } from "@afw/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChromaVectorStore, toChromaWhere } from "./chroma-vector-store.js";
import { runVectorStoreSuite } from "./vector-store.suite.js";

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

  it("fails with SERVER_CONNECTION_FAILED when no server answers", async () => {
    await expect(createChromaVectorStore({ url: "http://127.0.0.1:1", collection: "x" })).rejects.toMatchObject({ code: "SERVER_CONNECTION_FAILED" });
  });
});
