import type { EmbeddingCacheStore } from "./embedding-cache.js";
import type { Embedder, SearchMode, SearchToolsInputSchema, ToolDescriptor, ToolDescriptorInput, ToolSearchResult, TraceContext } from "@afw/contracts";
import type { z } from "zod";
import type { ServerInfo } from "./domain-detector.js";
import type { VectorStore } from "./vector-store.js";
import type { SynonymSource } from "./wordnet-synonyms.js";

/** Options of `createToolIndex`. */
export interface ToolIndexOptions {
  /** Embeds tool views and queries. Without one, every search runs in `keyword` mode. */
  embedder?: Embedder;
  /** Where vectors live. @default an in-process store (`createInMemoryVectorStore`) */
  store?: VectorStore;
  /** JSON file to persist tool embeddings in (by content hash), so a restart does not re-embed. */
  embeddingCachePath?: string;
  /** Another place to persist tool embeddings by content hash (e.g. Redis); replaces `embeddingCachePath`. */
  embeddingCacheStore?: EmbeddingCacheStore;
  /**
   * `add` returns once the tools are searchable by keyword; searches are keyword-only (`semanticState: "building"`)
   * until every tool has its vector. A failed background embedding is retried with the next `add`. @default false
   */
  backgroundEmbedding?: boolean;
  /** Below a ranking confidence of 0.3, `fallbackToolIds` are returned first. */
  confidence?: { fallbackToolIds?: string[] };
  /** Trace context for search audit events (a per-search context overrides it). */
  trace?: TraceContext;
  /**
   * Where query words' synonyms come from: the built-in hand list, WordNet 3.1 (`wordnet-synonyms.json`) or both.
   * WordNet expands only typed words that no indexed tool uses (it bridges a vocabulary gap and leaves words the
   * catalog speaks alone). Expansions weigh less than typed words. @default "both"
   */
  synonyms?: SynonymSource;
}

/**
 * A tool in a ranking with the components of its score: normalised keyword score, cosine similarity,
 * server and usage boosts, and the step of a multi-step task it serves (index into {@link Ranking.steps}).
 */
export interface RankedTool {
  id: string;
  server: string;
  score: number;
  keyword: number;
  semantic: number;
  domain: number;
  usage: number;
  step?: number;
}

/** Options of one ranking: mode (default hybrid), only tools of these servers / with one of these tags. */
export interface RankOptions {
  mode?: SearchMode;
  servers?: readonly string[] | undefined;
  tags?: readonly string[] | undefined;
  signal?: AbortSignal;
}

/** The full ranking of a query (see {@link ToolIndex.rank}). */
export interface Ranking {
  /** Every candidate tool, best first, before the diversity limit and `top_k`. */
  tools: RankedTool[];
  /** Mode used; `degraded` when a requested semantic stage was not (`semanticState` says why). */
  mode: SearchMode;
  degraded: boolean;
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
  /** Removes tools by `server/name` id. */
  remove(ids: readonly string[]): Promise<void>;
  /** A tool by id. */
  get(id: string): ToolDescriptor | undefined;
  /**
   * Ranks, applies the per-server limit, `top_k` and the confidence fallback; emits `tool-search-performed`.
   * @throws AfwError `INVALID_INPUT` when the input does not match `search_tools`' schema.
   */
  search(input: ToolSearchInput, options?: { trace?: TraceContext; signal?: AbortSignal }): Promise<ToolSearchResult>;
  /** The full ranking of a query with score components (no limit, no trace). */
  rank(query: string, options?: RankOptions): Promise<Ranking>;
  /** Records a tool call outcome for a request (usage boosts). */
  recordUsage(query: string, toolId: string, success: boolean, at?: number): Promise<void>;
  /** Sets (or, with `undefined`, clears) what a server says about itself (`serverInfo` title, `instructions`). */
  setServerInfo(server: string, info: ServerInfo | undefined): void;
  /** State of the tool vectors (`building`: searches are keyword-only); `pending` counts tools without one. */
  vectorState(): { state: "none" | "building" | "failed" | "ready"; pending: number };
  /** Resolves when no background embedding is under way (at once without `backgroundEmbedding`). */
  vectorsReady(): Promise<void>;
  /** Closes the vector store. */
  close(): Promise<void>;
}
