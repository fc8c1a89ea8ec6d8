import type { Embedder, ResponseCache } from "@afw/contracts";
import type { GatewayConfig } from "./config-schema.js";
import { embedderFromConfig } from "./tool-zoo-adapter.js";

/** Longest wait for a question's embedding before the cache is looked up by exact question only. */
const QUESTION_EMBEDDING_BUDGET_MS = 500;

/** Embeds a question for the semantic answer cache; undefined when it could not in time (exact lookup only). */
export type QuestionEmbedding = (question: string, signal?: AbortSignal) => Promise<Float32Array | undefined>;

/** What the gateway's stores and query path need for the semantic answer cache and `search_history` by meaning. */
export interface SemanticParts {
  /** `semantic` option of the response cache. */
  cacheSemantic: { enabled: boolean; threshold: number };
  /** Embeds questions for cache lookups and writes; absent when the semantic cache is off. */
  embedQuestion?: QuestionEmbedding;
  /** Embedder of the session store's history index; absent when `sessions.searchEmbedder` is `none`. */
  historyEmbedder?: Embedder;
}

/** The semantic parts of a gateway config: the answer cache's option and question embedding (`cache.semantic`), the history index's embedder (`sessions.searchEmbedder`). */
export function semanticParts(config: Pick<GatewayConfig, "cache" | "sessions" | "routing" | "tools">): SemanticParts {
  const cacheSemantic = cacheSemanticOf(config);
  const cacheEmbedder = cacheSemantic.enabled ? embedderFromConfig(config.cache.semantic.embedder) : undefined;
  const historyEmbedder = config.sessions.enabled ? embedderFromConfig(historyEmbedderKind(config)) : undefined;
  return {
    cacheSemantic,
    ...(cacheEmbedder ? { embedQuestion: questionEmbedding(cacheEmbedder) } : {}),
    ...(historyEmbedder ? { historyEmbedder } : {}),
  };
}

/** `sessions.searchEmbedder` resolved: `auto` is `use` when the process already runs the sentence encoder for the router's
 * classifier (`use` or `cascade`) or the tool index (one model on one worker thread per process serves all, so meaning search costs no second
 * model), else `none`. */
export function historyEmbedderKind(config: Pick<GatewayConfig, "sessions" | "routing" | "tools">): "none" | "use" | "hashing" {
  const kind = config.sessions.searchEmbedder;
  if (kind !== "auto") return kind;
  const classifierRunsUse = config.routing.classifierEmbedder === "use" || config.routing.classifierEmbedder === "cascade";
  return classifierRunsUse || config.tools.embedder === "use" ? "use" : "none";
}

/** The response cache's `semantic` option of a gateway config (on only when the cache is). */
function cacheSemanticOf(config: Pick<GatewayConfig, "cache">): { enabled: boolean; threshold: number } {
  return { enabled: config.cache.enabled && config.cache.semantic.enabled, threshold: config.cache.semantic.threshold };
}

function questionEmbedding(embedder: Embedder): QuestionEmbedding {
  return async (question, signal) => {
    const budget = AbortSignal.timeout(QUESTION_EMBEDDING_BUDGET_MS);
    try {
      const [vector] = await embedder.embed([question], signal ? AbortSignal.any([signal, budget]) : budget);
      return vector;
    } catch {
      return undefined;
    }
  };
}

/** The semantic cache figures of the dashboard: lookups, semantic hits and guard refusals of the cache's
 * counters (shared by every instance on Redis), with the configured threshold. */
export async function semanticCacheStats(
  cache: ResponseCache,
  config: Pick<GatewayConfig, "cache">,
): Promise<{ enabled: boolean; lookups: number; hits: number; guardRejections: number; threshold: number }> {
  const stats = await cache.stats();
  const { enabled, threshold } = cacheSemanticOf(config);
  return { enabled, lookups: stats.hits + stats.semanticHits + stats.misses, hits: stats.semanticHits, guardRejections: stats.semanticGuardRejections ?? 0, threshold };
}
