import { homedir } from "node:os";
import { join } from "node:path";
import type { RedisConnection } from "@afw/cache";
import type { Embedder, TraceSink } from "@afw/contracts";
import { createCachingEmbedder, createHashingEmbedder, createUseEmbedder } from "@afw/embeddings";
import {
  createChromaVectorStore,
  createToolIndex,
  createWorkflowCatalog,
  loadToolCatalogFile,
  loadWorkflowCatalog,
  type EmbeddingCacheStore,
  type ToolIndex,
  type WorkflowCatalog,
} from "@afw/tool-zoo";
import type { GatewayConfig, ToolsConfig, WorkflowsConfig } from "./config-schema.js";
import { newTraceContext } from "./trace-context.js";

/** The embedder named by `tools.embedder` (`none` gives undefined: keyword search only). */
export function embedderFromConfig(kind: ToolsConfig["embedder"]): Embedder | undefined {
  if (kind === "use") return createCachingEmbedder(createUseEmbedder({ thread: "worker" }));
  if (kind === "hashing") return createCachingEmbedder(createHashingEmbedder());
  return undefined;
}

/** Default directory of the tool-vector cache files: `$XDG_CACHE_HOME/afw/tool-vectors` (`~/.cache/afw/tool-vectors`). */
function defaultVectorCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env["XDG_CACHE_HOME"] || join(homedir(), ".cache"), "afw", "tool-vectors");
}

/** The cache file of `embedder`'s vectors of tools or workflows under `tools.vectorCacheDir` (or its default). */
export function vectorCacheFile(tools: ToolsConfig, embedder: Embedder, kind: "tools" | "workflows"): string {
  const name = embedder.id.replace(/[^A-Za-z0-9._-]/g, "_");
  return join(tools.vectorCacheDir ?? defaultVectorCacheDir(), kind === "tools" ? `${name}.json` : `${name}-workflows.json`);
}

/** Largest number of vectors read or written by one Redis command. */
const REDIS_VECTOR_BATCH = 256;
/** Bound of one Redis command of the vector cache (a batch is up to ~0.5 MB). */
const REDIS_VECTOR_TIMEOUT_MS = 2_000;

/** Tool vectors cached in one Redis hash, `<keyPrefix>tool-vectors` (field: content hash of embedder id and
 * text; value: the float32 bytes), shared by every gateway instance. */
function redisEmbeddingCacheStore(connection: RedisConnection, keyPrefix: string): EmbeddingCacheStore {
  const key = `${keyPrefix}tool-vectors`;
  return {
    async get(keys) {
      const found = new Map<string, Uint8Array>();
      for (let i = 0; i < keys.length; i += REDIS_VECTOR_BATCH) {
        const batch = keys.slice(i, i + REDIS_VECTOR_BATCH);
        const outcome = await connection.execute((client) => client.hmgetBuffer(key, ...batch), { timeoutMs: REDIS_VECTOR_TIMEOUT_MS });
        if (!outcome.ok) return found;
        outcome.value.forEach((value, j) => {
          if (value) found.set(batch[j]!, new Uint8Array(value));
        });
      }
      return found;
    },
    async set(entries) {
      const all = [...entries];
      for (let i = 0; i < all.length; i += REDIS_VECTOR_BATCH) {
        const fields = all.slice(i, i + REDIS_VECTOR_BATCH).flatMap(([field, bytes]) => [field, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]);
        const outcome = await connection.execute((client) => client.hset(key, ...fields), { timeoutMs: REDIS_VECTOR_TIMEOUT_MS });
        if (!outcome.ok) return;
      }
    },
  };
}

/** Builds the `search_tools` index with `@afw/tool-zoo`: indexes every catalog file of `tools.catalogs` with the given embedder (none = keyword only) and
 * the low-confidence fallback set. @throws AfwError `CONFIG_INVALID` when a catalog cannot be read or is invalid. */
export async function createToolSearchFromConfig(
  tools: ToolsConfig,
  options: {
    sink?: TraceSink;
    embedder?: Embedder;
    chroma?: GatewayConfig["chroma"];
    /** Redis connection (and key prefix) to cache tool vectors in, instead of a file. */
    redis?: { connection: RedisConnection; keyPrefix: string };
  } = {},
): Promise<ToolIndex> {
  const embedder = options.embedder;
  const vectorCache = !embedder
    ? {}
    : options.redis
      ? { embeddingCacheStore: redisEmbeddingCacheStore(options.redis.connection, options.redis.keyPrefix) }
      : { embeddingCachePath: vectorCacheFile(tools, embedder, "tools") };
  const index = createToolIndex({
    ...(embedder ? { embedder } : {}),
    ...vectorCache,
    backgroundEmbedding: true,
    ...(options.chroma ? { store: await createChromaVectorStore({ url: options.chroma.url, collection: `${options.chroma.collectionPrefix}-tools` }) } : {}),
    confidence: { fallbackToolIds: tools.fallbackToolIds },
    ...(options.sink ? { trace: newTraceContext(options.sink, { requestId: "tool-index" }) } : {}),
  });
  for (const file of tools.catalogs) await index.add(loadToolCatalogFile(file));
  return index;
}

/** Builds the workflow catalog with `@afw/tool-zoo` from `workflows.catalogs` (files or directories of JSON/YAML playbooks).
 * @throws AfwError `CONFIG_INVALID` when a catalog cannot be read or a workflow is invalid. */
export async function createWorkflowCatalogFromConfig(
  workflows: WorkflowsConfig,
  options: {
    sink?: TraceSink;
    embedder?: Embedder;
    /** JSON file the workflow vectors are cached in (by content hash), so a restart does not load the model to embed them again. */
    embeddingCachePath?: string;
  } = {},
): Promise<WorkflowCatalog> {
  const catalog = await createWorkflowCatalog({
    ...(options.embedder ? { embedder: options.embedder } : {}),
    ...(options.embedder && options.embeddingCachePath ? { embeddingCachePath: options.embeddingCachePath } : {}),
    ...(options.sink ? { trace: newTraceContext(options.sink, { requestId: "workflow-catalog" }) } : {}),
  });
  if (workflows.catalogs.length > 0) await catalog.add(loadWorkflowCatalog(workflows.catalogs));
  return catalog;
}
