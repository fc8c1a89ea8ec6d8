import { AfwError } from "@afw/contracts";
import type { Collection, Where } from "chromadb";
import type { MetadataFilter, VectorMatch, VectorMetadata, VectorStore } from "./vector-store.js";

/** Options of {@link createChromaVectorStore}. */
export interface ChromaVectorStoreOptions {
  /** Chroma server URL, e.g. `http://127.0.0.1:8000`. */
  url?: string;
  /** Collection name. @default "afw-tools" */
  collection?: string;
}

/** Translates a {@link MetadataFilter} to a Chroma `where` (one key per object: several fields become `$and`). */
export function toChromaWhere(filter: MetadataFilter): Where {
  const parts: Where[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and" || key === "$or") {
      const children = (value as MetadataFilter[]).map(toChromaWhere);
      if (children.length === 1) parts.push(children[0]!);
      else parts.push((key === "$and" ? { $and: children } : { $or: children }) as Where);
    } else parts.push({ [key]: value } as Where);
  }
  if (parts.length === 1) return parts[0]!;
  return { $and: parts } as Where;
}

/**
 * A {@link VectorStore} on a Chroma server, for catalogs too large for one process or shared by
 * several gateway instances. The collection is created with cosine distance and **no embedding
 * function** (`embeddingFunction: null`): vectors are always passed explicitly, so Chroma never
 * loads its default model. Metadata filters are pushed down as Chroma `where` clauses.
 *
 * @example
 * ```ts
 * const store = await createChromaVectorStore({ url: "http://127.0.0.1:8000", collection: "tools" });
 * const index = createToolIndex({ embedder, store });
 * ```
 * @throws AfwError `SERVER_CONNECTION_FAILED` when the server cannot be reached.
 */
export async function createChromaVectorStore(options: ChromaVectorStoreOptions = {}): Promise<VectorStore> {
  const batchSize = 500;
  const { ChromaClient } = await import("chromadb");
  const url = new URL(options.url ?? "http://127.0.0.1:8000");
  const client = new ChromaClient({
    host: url.hostname,
    port: Number(url.port || (url.protocol === "https:" ? 443 : 80)),
    ssl: url.protocol === "https:",
  });
  const name = options.collection ?? "afw-tools";
  let collection: Collection;
  try {
    collection = await client.getOrCreateCollection({
      name,
      embeddingFunction: null,
      configuration: { hnsw: { space: "cosine" } },
      metadata: { "afw:kind": "vectors" },
    });
  } catch (error) {
    throw new AfwError("SERVER_CONNECTION_FAILED", `cannot open Chroma collection ${name}: ${(error as Error).message}`, { cause: error });
  }
  return {
    async upsert(records) {
      for (let i = 0; i < records.length; i += batchSize) {
        const batch = records.slice(i, i + batchSize);
        await collection.upsert({
          ids: batch.map((r) => r.id),
          embeddings: batch.map((r) => Array.from(r.vector)),
          metadatas: batch.map((r) => r.metadata),
        });
      }
    },
    async delete(ids) {
      if (ids.length) await collection.delete({ ids: [...ids] });
    },
    async query({ vector, topK, filter }) {
      if (topK <= 0) return [];
      const result = await collection.query({
        queryEmbeddings: [Array.from(vector)],
        nResults: topK,
        ...(filter ? { where: toChromaWhere(filter) } : {}),
        include: ["metadatas", "distances"],
      });
      const ids = result.ids[0] ?? [];
      const distances = result.distances[0] ?? [];
      const metadatas = result.metadatas[0] ?? [];
      const matches: VectorMatch[] = ids.map((id, i) => ({
        id,
        score: 1 - (distances[i] ?? 1),
        metadata: (metadatas[i] ?? {}) as VectorMetadata,
      }));
      return matches.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    },
    async ids(filter) {
      const out: string[] = [];
      const pageSize = 1000;
      for (let offset = 0; ; offset += pageSize) {
        const page = await collection.get({
          ...(filter ? { where: toChromaWhere(filter) } : {}),
          limit: pageSize,
          offset,
          include: [],
        });
        out.push(...page.ids);
        if (page.ids.length < pageSize) break;
      }
      return out;
    },
    async close() {},
  };
}
