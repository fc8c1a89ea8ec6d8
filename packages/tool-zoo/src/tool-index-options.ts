import type { EmbeddingCacheStore } from "./embedding-cache.js";
import type { Embedder, SearchMode, SearchToolsInputSchema, ToolDescriptor, ToolDescriptorInput, ToolSearchResult, TraceContext } from "@afw/contracts";
import type { z } from "zod";
import type { ServerInfo } from "./domain-detector.js";
import type { ToolField } from "./tool-document.js";
import type { ToolUsageStore } from "./usage-store.js";
import type { VectorStore } from "./vector-store.js";

/** A named group of tools that are exposed together when one of them is selected. */
export interface ToolBundle {
  /** Bundle name (for docs and traces). */
  name: string;
  /** `server/name` ids of the members. */
  tools: string[];
}

/** Default BM25F field weights of the tool index. */
export const DEFAULT_FIELD_WEIGHTS: Readonly<Record<ToolField, number>> = {
  name: 3,
  server: 2,
  summary: 1.5,
  description: 0.6,
  parameters: 0.6,
  parameterDescriptions: 0.3,
  tags: 1.5,
};

/** Options of `createToolIndex`. */
export interface ToolIndexOptions {
  /** Embeds tool views and queries. Without one, every search runs in `keyword` mode. */
  embedder?: Embedder;
  /** Where vectors live. @default an in-process store (`createInMemoryVectorStore`) */
  store?: VectorStore;
  /** JSON file to persist tool embeddings in (by content hash), so a restart does not re-embed. */
  embeddingCachePath?: string;
  /**
   * Another place to persist tool embeddings in by content hash (e.g. Redis, shared by every
   * gateway instance); takes the place of {@link ToolIndexOptions.embeddingCachePath}.
   */
  embeddingCacheStore?: EmbeddingCacheStore;
  /**
   * Compute tool vectors in the background: `add` returns once the tools are searchable by
   * keyword, and searches run keyword-only (`mode: "keyword"`, `semanticState: "building"`) until
   * every tool has its vector ({@link ToolIndex.vectorsReady}). A failed background embedding is
   * retried with the next `add`. Without it, `add` embeds before it returns.
   * @default false
   */
  backgroundEmbedding?: boolean;
  /** `false` turns off the boost of tools whose server the query points at (from the servers' own texts). */
  domain?: false;
  /**
   * Multi-step tasks: a task that reads as several steps ("find the newest release, write a summary
   * to a file and post it to Slack") is searched step by step, and the results are interleaved by
   * rank with the step each serves (`step`, `step_text`); steps whose own search is not confident
   * do not count (a task with fewer than two such steps is searched whole). `false` searches every
   * task whole.
   * @default true
   */
  multiStep?: boolean;
  /**
   * At most this many results per server (overflow moves to the end; servers the query names
   * outright and a single-server `servers` filter are exempt). 0 disables. @default 3
   */
  maxPerServer?: number;
  /**
   * What each server says about itself (its MCP `serverInfo` title and `instructions`), by server
   * key: words of the title point at the server, and so do words of the instructions that its own
   * tools use and other servers' tools do not. See also {@link ToolIndex.setServerInfo}.
   * @default {}
   */
  servers?: Readonly<Record<string, ServerInfo>>;
  /** Static score boosts per server and per tag (added to the fused score). */
  boosts?: { servers?: Record<string, number>; tags?: Record<string, number> };
  /** Usage feedback (the flywheel). */
  usage?: {
    /** @default an in-memory store */
    store?: ToolUsageStore;
  };
  /** Low-confidence handling. */
  confidence?: {
    /** Below this confidence the fallback set is returned (when it is not empty). @default 0.3 */
    threshold?: number;
    /** Safe tools returned (first) when confidence is low. @default [] */
    fallbackToolIds?: string[];
  };
  /** Tool bundles. @default [] */
  bundles?: ToolBundle[];
  /** Trace context for search audit events (a per-search context overrides it). */
  trace?: TraceContext;
  /** Clock for usage decay. @default Date.now */
  now?: () => number;
}

/** A tool in a ranking, with the components of its score. */
export interface RankedTool {
  /** `server/name`. */
  id: string;
  /** Server of the tool. */
  server: string;
  /** Final score (fused + boosts). */
  score: number;
  /** Normalised keyword score in [0, 1]. */
  keyword: number;
  /** Cosine similarity of the best view (0 when not retrieved). */
  semantic: number;
  /** Domain boost applied. */
  domain: number;
  /** Usage boost applied. */
  usage: number;
  /** The step of a multi-step task this tool serves (index into {@link Ranking.steps}). */
  step?: number;
}

/** Options of one ranking or search. */
export interface RankOptions {
  /** `keyword`, `semantic` or `hybrid`. @default "hybrid" */
  mode?: SearchMode;
  /** Only tools of these servers. */
  servers?: readonly string[] | undefined;
  /** Only tools having one of these tags. */
  tags?: readonly string[] | undefined;
  /** Abort the query embedding. */
  signal?: AbortSignal;
}

/** The full ranking of a query (see {@link ToolIndex.rank}). */
export interface Ranking {
  /** Every candidate tool, best first, before the diversity limit and `top_k`. */
  tools: RankedTool[];
  /** Mode actually used (`keyword` when the semantic stage was unavailable). */
  mode: SearchMode;
  /** True when a semantic stage was requested but failed or had no embedder. */
  degraded: boolean;
  /**
   * Why a requested semantic stage was not used: `building` while tool vectors are still being
   * computed in the background, `unavailable` without an embedder or when it failed.
   */
  semanticState?: "building" | "unavailable";
  /** Confidence of the ranking in [0, 1]. */
  confidence: number;
  /** The steps of a multi-step task (absent when the task was searched whole). */
  steps?: string[];
  /** Servers the query points at, with strengths. */
  domains: Map<string, number>;
}

/** Input of {@link ToolIndex.search}: `search_tools` input (contracts), defaults applied. */
export type ToolSearchInput = z.input<typeof SearchToolsInputSchema>;

/** A hybrid index over MCP tools; see `createToolIndex`. */
export interface ToolIndex {
  /** Number of indexed tools. */
  readonly size: number;
  /** Adds or replaces tools; embeds each changed tool once (cached by content hash). */
  add(tools: readonly ToolDescriptorInput[], options?: { signal?: AbortSignal }): Promise<void>;
  /** Same as {@link ToolIndex.add}. */
  upsert(tools: readonly ToolDescriptorInput[], options?: { signal?: AbortSignal }): Promise<void>;
  /** Removes tools by `server/name` id. */
  remove(ids: readonly string[]): Promise<void>;
  /** A tool by id. */
  get(id: string): ToolDescriptor | undefined;
  /** Every indexed tool. */
  list(): ToolDescriptor[];
  /**
   * Searches: ranks, applies the per-server limit, `top_k`, bundles and the confidence fallback,
   * and emits a `tool-search-performed` trace event (and `tool-search-low-confidence` on fallback).
   *
   * @throws AfwError `INVALID_INPUT` when the input does not match `search_tools`' schema.
   */
  search(input: ToolSearchInput, options?: { trace?: TraceContext; signal?: AbortSignal }): Promise<ToolSearchResult>;
  /** The full ranking of a query with score components (no limit, no bundles, no trace). */
  rank(query: string, options?: RankOptions): Promise<Ranking>;
  /** Records a tool call outcome for a request (usage boosts). */
  recordUsage(query: string, toolId: string, success: boolean, at?: number): Promise<void>;
  /** Sets (or, with `undefined`, clears) what a server says about itself (see {@link ToolIndexOptions.servers}). */
  setServerInfo(server: string, info: ServerInfo | undefined): void;
  /** Replaces the bundles. */
  setBundles(bundles: readonly ToolBundle[]): void;
  /** Persists the embedding cache (if a path was configured). Called after every `add`. */
  flush(): Promise<void>;
  /**
   * State of the tool vectors: `none` without an embedder, `building` while background embedding
   * is under way (searches are keyword-only), `failed` when the last background embedding failed
   * (retried with the next `add`), else `ready`; `pending` counts tools without a vector.
   */
  vectorState(): { state: "none" | "building" | "failed" | "ready"; pending: number };
  /** Resolves when no background embedding is under way (at once without `backgroundEmbedding`). */
  vectorsReady(): Promise<void>;
  /** Closes the vector store. */
  close(): Promise<void>;
}
