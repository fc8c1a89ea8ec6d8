import { createHash } from "node:crypto";
import {
  AfwError,
  emitTrace,
  SearchToolsInputSchema,
  ToolDescriptorSchema,
  toolId,
  type Embedder,
  type SearchMode,
  type ToolDescriptor,
  type ToolDescriptorInput,
  type ToolSearchHit,
  type ToolSearchResult,
  type TraceContext,
} from "@afw/contracts";
import { z } from "zod";
import { Bm25Index } from "./bm25.js";
import { createDomainDetector, type DomainDetector, type DomainDetectorOptions } from "./domain-detector.js";
import { openEmbeddingCache, type EmbeddingCache, type EmbeddingCacheStore } from "./embedding-cache.js";
import { normalizeScores, reciprocalRankFusion } from "./fusion.js";
import { createInMemoryVectorStore } from "./in-memory-vector-store.js";
import { splitQuotedContent, type QueryParts } from "./query-text.js";
import { createTextAnalyzer, splitIdentifier, STOP_WORDS, words, type TextAnalyzer, type TextAnalyzerOptions, type WeightedTerm } from "./text-analysis.js";
import { affordanceSummary, buildToolDocument, type ToolDocument, type ToolField } from "./tool-document.js";
import { createInMemoryUsageStore, type ToolUsageStore } from "./usage-store.js";
import { andFilters, matchesFilter, type MetadataFilter, type VectorMetadata, type VectorStore } from "./vector-store.js";

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

/** How keyword and semantic rankings are combined. */
export interface FusionSettings {
  /**
   * `weighted`: weighted sum of normalised scores; `rrf`: reciprocal-rank fusion.
   * @default "weighted"
   */
  method?: "weighted" | "rrf";
  /** Weight of the keyword (BM25F) ranking. @default 0.7 */
  keywordWeight?: number;
  /** Weight of the semantic (vector) ranking. @default 0.3 */
  semanticWeight?: number;
  /** The `k` of reciprocal-rank fusion. @default 60 */
  rrfK?: number;
}

/** Options of {@link createToolIndex}. */
export interface ToolIndexOptions {
  /** Embeds tool views and queries. Without one, every search runs in `keyword` mode. */
  embedder?: Embedder;
  /** Where vectors live. @default an in-process store ({@link createInMemoryVectorStore}) */
  store?: VectorStore;
  /**
   * How a tool's two embedding views become vectors in the store: `max` keeps one record per view
   * and scores a tool by its best view; `mean` keeps one record per tool (the normalised mean of
   * the view vectors), half the vectors to scan — and on the dev tasks as good.
   * @default "mean"
   */
  viewCombination?: "max" | "mean";
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
  /** Tokeniser, abbreviations and synonyms. */
  analyzer?: TextAnalyzerOptions;
  /** BM25F field weights (merged over {@link DEFAULT_FIELD_WEIGHTS}). */
  fieldWeights?: Partial<Record<ToolField, number>>;
  /** BM25 parameters. @default { k1: 1.2, b: 0.75 } */
  bm25?: { k1?: number; b?: number };
  /** Fusion of keyword and semantic scores. */
  fusion?: FusionSettings;
  /**
   * Boost of tools whose server the query points at ({@link createDomainDetector}); `false`
   * disables domain detection.
   * @default { weight: 0.4 }
   */
  domain?: false | ({ weight?: number } & DomainDetectorOptions);
  /**
   * Strength, relative to a typed word, with which the words standing for recognised entities
   * (`repository` for `acme/api`, `url web page` for a link) point at a server.
   * @default 0.5
   */
  kindDomainFactor?: number;
  /** Weight of quoted passages of the query relative to its other words. @default 0.3 */
  quotedWeight?: number;
  /**
   * Weight of the words standing for recognised entities (`file` for `src/a.ts`, `repository` for
   * `acme/api`) relative to the words the user typed.
   * @default 0.8
   */
  entityWeight?: number;
  /**
   * Text embedded for a query: the query as typed (`raw`) or its intent with quotes and entity
   * values replaced (`intent`, see {@link splitQuotedContent}).
   * @default "intent"
   */
  semanticQuery?: "raw" | "intent";
  /**
   * Rank of the semantic candidate whose similarity maps to 0 when semantic scores are normalised.
   * @default 100
   */
  semanticFloorRank?: number;
  /**
   * Boost of tools whose name's action (get, list, create, update, delete, search, run) is the
   * action the query asks for first ({@link ACTION_CLASSES}). 0 disables.
   * @default 0.15
   */
  actionWeight?: number;
  /**
   * Where a tool's action is read from: `name-verb` takes the first action word of its name (and
   * one joined by "or": `create_or_update_file`), falling back to the first word of its first
   * sentence ("Shows the commit logs"); `name-any` takes every action word of its name.
   * @default "name-verb"
   */
  toolAction?: "name-verb" | "name-any";
  /**
   * Penalty of tools whose action writes (create, update, delete, run) when no word of the query
   * asks for that action: "ask alice to review PR 12" should not rank `delete_pending_review`
   * first. 0 disables.
   * @default 0.1
   */
  actionMismatchWeight?: number;
  /**
   * Boost of tools by the share of their name's words that the query contains verbatim, before
   * stemming: "the dependabot alerts" prefers `list_dependabot_alerts` over
   * `get_dependabot_alert`, which stemming alone cannot tell apart. 0 disables.
   * @default 0.05
   */
  surfaceWeight?: number;
  /**
   * Grammatical number agreement between the query and a tool's name: a tool whose name has a
   * word the query uses in the same number gains this much, one whose name has it in the other
   * number loses it ("the code scanning alerts" → `list_code_scanning_alerts`, not
   * `get_code_scanning_alert`; "the last 50 messages" is not `post_message`). 0 disables.
   * @default 0.05
   */
  numberWeight?: number;
  /** At most this many results per server (overflow moves to the end). 0 disables. @default 3 */
  maxPerServer?: number;
  /**
   * Exempt from {@link ToolIndexOptions.maxPerServer} the servers the query names outright
   * (domain strength 1, e.g. "in my Slack workspace"): spreading over other servers only helps when
   * the server is uncertain. A single-server `servers` filter is always exempt.
   * @default true
   */
  exemptNamedServers?: boolean;
  /** Static score boosts per server and per tag (added to the fused score). */
  boosts?: { servers?: Record<string, number>; tags?: Record<string, number> };
  /** Usage feedback (the flywheel). */
  usage?: {
    /** @default an in-memory store */
    store?: ToolUsageStore;
    /** Largest boost usage can give. @default 0.2 */
    weight?: number;
    /** Usage evidence at which half the boost is given. @default 2 */
    halfSaturation?: number;
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
  /** Servers the query points at, with strengths. */
  domains: Map<string, number>;
}

/** Input of {@link ToolIndex.search}: `search_tools` input (contracts), defaults applied. */
export type ToolSearchInput = z.input<typeof SearchToolsInputSchema>;

/** A hybrid index over MCP tools; see {@link createToolIndex}. */
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

const TAG_PREFIX = "tag:";
/** Metadata field of a stored vector record: hash of embedder id, view combination and tool content. */
const VECTOR_KEY = "vectorKey";

/**
 * Action classes of tool names and requests: the first action word of a query should agree with
 * the action word of the tool's name (`read the file` → `get_file_contents`, not
 * `create_or_update_file`). General English, not tied to a catalog.
 */
export const ACTION_CLASSES: Readonly<Record<string, readonly string[]>> = {
  read: ["get", "read", "show", "view", "fetch", "retrieve", "describe", "inspect", "see", "display", "dump", "look", "download", "what", "which", "who"],
  list: ["list", "enumerate", "browse", "all", "show"],
  search: ["search", "find", "lookup", "query", "locate", "discover"],
  create: ["create", "add", "new", "make", "post", "insert", "generate", "submit", "upload", "install", "send", "push", "open", "write", "comment", "reply", "save", "store", "record", "remember", "draft", "copy", "duplicate", "clone"],
  update: ["update", "edit", "modify", "change", "set", "rename", "patch", "replace", "move", "transition", "assign", "mark", "upgrade", "apply", "close", "merge", "fill", "type", "write", "overwrite"],
  delete: ["delete", "remove", "drop", "erase", "destroy", "uninstall", "purge", "cancel", "clear", "dismiss", "unstar", "discard", "forget", "unstage"],
  run: ["run", "execute", "exec", "trigger", "rerun", "retry", "invoke", "launch", "evaluate", "dispatch"],
};

function toolMetadata(tool: ToolDescriptor, view: number): VectorMetadata {
  const metadata: VectorMetadata = { toolId: toolId(tool), server: tool.server, view };
  for (const tag of tool.tags) metadata[`${TAG_PREFIX}${tag}`] = true;
  return metadata;
}

/**
 * The metadata filter for `servers` / `tags` restrictions: server in the list, and at least one of
 * the tags. Pushed down to the vector store (Chroma `where`) and applied to keyword results.
 *
 * @example
 * ```ts
 * toolFilter(["github"], ["write"]) // { $and: [{ server: { $in: ["github"] } }, { "tag:write": true }] }
 * ```
 */
export function toolFilter(servers?: readonly string[], tags?: readonly string[]): MetadataFilter | undefined {
  const serverFilter: MetadataFilter | undefined = servers?.length ? { server: { $in: [...servers] } } : undefined;
  let tagFilter: MetadataFilter | undefined;
  if (tags?.length === 1) tagFilter = { [`${TAG_PREFIX}${tags[0]}`]: true };
  else if (tags && tags.length > 1) tagFilter = { $or: tags.map((tag) => ({ [`${TAG_PREFIX}${tag}`]: true })) };
  return andFilters(serverFilter, tagFilter);
}

/**
 * Creates a hybrid tool index: BM25F over tool text (name words, server, first sentence,
 * description, parameters, tags) fused with dense vectors of two views per tool, re-ranked by the
 * server the query points at, static boosts and recorded usage, with a per-server diversity limit,
 * tool bundles and a low-confidence fallback.
 *
 * @example
 * ```ts
 * const index = createToolIndex({ embedder: createCachingEmbedder(createUseEmbedder()) });
 * await index.add(loadToolCatalogFile("tools-catalog.json"));
 * const { results } = await index.search({ query: "squash-merge PR 88", top_k: 5 });
 * ```
 */
export function createToolIndex(options: ToolIndexOptions = {}): ToolIndex {
  const analyzer: TextAnalyzer = createTextAnalyzer(options.analyzer);
  const fieldWeights = { ...DEFAULT_FIELD_WEIGHTS, ...options.fieldWeights };
  const b = options.bm25?.b ?? 0.75;
  const bm25 = new Bm25Index<ToolField>({
    k1: options.bm25?.k1 ?? 1.2,
    fields: Object.fromEntries(Object.entries(fieldWeights).map(([field, weight]) => [field, { weight, b }])) as Record<
      ToolField,
      { weight: number; b: number }
    >,
  });
  const store = options.store ?? createInMemoryVectorStore();
  const embedder = options.embedder;
  const documents = new Map<string, ToolDocument>();
  let viewCount = 0;
  const metadataById = new Map<string, VectorMetadata>();
  const fusion = {
    method: options.fusion?.method ?? "weighted",
    keywordWeight: options.fusion?.keywordWeight ?? 0.7,
    semanticWeight: options.fusion?.semanticWeight ?? 0.3,
    rrfK: options.fusion?.rrfK ?? 60,
  };
  const domainOptions = options.domain === false ? undefined : (options.domain ?? {});
  const domainWeight = domainOptions?.weight ?? 0.4;
  const quotedWeight = options.quotedWeight ?? 0.3;
  const kindDomainFactor = options.kindDomainFactor ?? 0.5;
  const entityWeight = options.entityWeight ?? 0.8;
  const semanticQuery = options.semanticQuery ?? "intent";
  const semanticFloorRank = Math.max(1, options.semanticFloorRank ?? 100);
  const keywordCandidates = 200;
  const maxPerServer = options.maxPerServer ?? 3;
  const exemptNamedServers = options.exemptNamedServers ?? true;
  const viewCombination = options.viewCombination ?? "mean";
  const recordCount = (document: ToolDocument) => (viewCombination === "mean" ? 1 : document.views.length);
  const actionWeight = options.actionWeight ?? 0.15;
  const actionClassesOf = new Map<string, Set<string>>();
  for (const [action, verbs] of Object.entries(ACTION_CLASSES)) {
    for (const verb of verbs) {
      for (const term of analyzer.terms(verb).length ? analyzer.terms(verb) : [analyzer.stem(verb)]) {
        let set = actionClassesOf.get(term);
        if (!set) actionClassesOf.set(term, (set = new Set()));
        set.add(action);
      }
    }
  }
  const toolActionMode = options.toolAction ?? "name-verb";
  const actionMismatchWeight = options.actionMismatchWeight ?? 0.1;
  const surfaceWeight = options.surfaceWeight ?? 0.05;
  const numberWeight = options.numberWeight ?? 0.05;
  /** A plural English noun form: stemming removes a final -s (not -ss, -us, -is). */
  const isPlural = (word: string) => word.length > 3 && /[^su]s$/.test(word) && !/(ss|us|is)$/.test(word) && analyzer.stem(word) !== word;
  /** The words of a tool's name (no stop words), with what the ranking needs to know of each. */
  interface NameWord {
    word: string;
    stem: string;
    plural: boolean;
    /** An action verb (its number says nothing). */
    action: boolean;
  }
  const nameWordsById = new Map<string, NameWord[]>();
  const nameWordsOf = (document: ToolDocument): NameWord[] => {
    let nameWords = nameWordsById.get(document.id);
    if (!nameWords) {
      nameWords = splitIdentifier(document.tool.name)
        .filter((w) => w !== "api" && !STOP_WORDS.has(w))
        .map((word) => {
          const stem = analyzer.stem(word);
          return { word, stem, plural: isPlural(word), action: actionClassesOf.has(stem) };
        });
      nameWordsById.set(document.id, nameWords);
    }
    return nameWords;
  };
  /** +1 when the query uses a name word in the name's number, -1 when only in the other number. */
  const numberAgreement = (nameWords: readonly NameWord[], queryForms: ReadonlyMap<string, boolean[]>): number => {
    let agree = 0;
    let disagree = 0;
    for (const { stem, plural, action } of nameWords) {
      if (action) continue;
      const forms = queryForms.get(stem);
      if (!forms) continue;
      if (forms.includes(plural)) agree++;
      else disagree++;
    }
    return disagree > 0 && agree === 0 ? -1 : disagree === 0 && agree > 0 ? 1 : 0;
  };
  const WRITE_ACTIONS: ReadonlySet<string> = new Set(["create", "update", "delete", "run"]);
  const classesOfWord = (word: string) => actionClassesOf.get(analyzer.stem(word.toLowerCase()));
  const queryAction = (intent: string): Set<string> | undefined => {
    for (const word of intent.toLowerCase().split(/[^a-z0-9-]+/)) {
      const classes = actionClassesOf.get(analyzer.stem(word));
      if (classes) return classes;
    }
    return undefined;
  };
  /** Every action class any word of the query belongs to. */
  const queryActionsAll = (intent: string): Set<string> => {
    const out = new Set<string>();
    for (const word of intent.toLowerCase().split(/[^a-z0-9-]+/)) for (const action of actionClassesOf.get(analyzer.stem(word)) ?? []) out.add(action);
    return out;
  };
  const toolActions = new Map<string, Set<string>>();
  const toolActionOf = (document: ToolDocument): Set<string> => {
    let actions = toolActions.get(document.id);
    if (!actions) {
      actions = new Set();
      if (toolActionMode === "name-any") {
        for (const term of document.fields.name) for (const action of actionClassesOf.get(term) ?? []) actions.add(action);
      } else {
        const nameWords = splitIdentifier(document.tool.name);
        const at = nameWords.findIndex((w) => classesOfWord(w));
        if (at >= 0) {
          for (const action of classesOfWord(nameWords[at]!)!) actions.add(action);
          if (nameWords[at + 1] === "or" && nameWords[at + 2]) for (const action of classesOfWord(nameWords[at + 2]!) ?? []) actions.add(action);
        } else {
          const lead = /^[A-Za-z]+/.exec(document.tool.description.replace(/^[^A-Za-z]*(?:[A-Za-z]+\s*\|\s*)?/, ""))?.[0];
          for (const action of (lead && classesOfWord(lead)) || []) actions.add(action);
        }
      }
      toolActions.set(document.id, actions);
    }
    return actions;
  };
  const usageStore = options.usage?.store ?? createInMemoryUsageStore();
  const usageWeight = options.usage?.weight ?? 0.2;
  const usageHalf = options.usage?.halfSaturation ?? 2;
  const threshold = options.confidence?.threshold ?? 0.3;
  const fallbackToolIds = options.confidence?.fallbackToolIds ?? [];
  const now = options.now ?? Date.now;
  let bundles: ToolBundle[] = [...(options.bundles ?? [])];
  let domainDetector: DomainDetector | undefined;
  let cache: Promise<EmbeddingCache> | undefined;
  const queryVectors = new Map<string, Float32Array>();
  let queue: Promise<unknown> = Promise.resolve();
  const backgroundEmbedding = options.backgroundEmbedding ?? false;
  /** Ids of indexed tools whose vectors are not in the store yet (background embedding). */
  const withoutVectors = new Set<string>();
  const staleRecords: string[] = [];
  let vectorJob: Promise<void> | undefined;
  let vectorFailed = false;
  const closing = new AbortController();
  const serialize = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  const embeddingCache = () => {
    if (!embedder) throw new Error("no embedder");
    cache ??= openEmbeddingCache(embedder, options.embeddingCacheStore ?? options.embeddingCachePath);
    return cache;
  };

  const queryTerms = ({ intent, quoted, kinds }: QueryParts): WeightedTerm[] => {
    const kindTerms = new Set(analyzer.terms(kinds.join(" ")));
    const weights = new Map<string, number>();
    for (const { term, weight } of analyzer.queryTerms(intent)) {
      const w = kindTerms.has(term) ? weight * entityWeight : weight;
      weights.set(term, Math.max(weights.get(term) ?? 0, w));
    }
    for (const { term, weight } of analyzer.queryTerms(quoted.join(" "))) {
      const w = weight * quotedWeight;
      if ((weights.get(term) ?? 0) < w) weights.set(term, w);
    }
    return [...weights].map(([term, weight]) => ({ term, weight }));
  };

  const embedQuery = async (query: string, signal?: AbortSignal): Promise<Float32Array> => {
    const cached = queryVectors.get(query);
    if (cached) return cached;
    const [vector] = await embedder!.embed([query], signal);
    if (!vector) throw new Error("embedder returned no vector");
    queryVectors.set(query, vector);
    if (queryVectors.size > 1000) queryVectors.delete(queryVectors.keys().next().value!);
    return vector;
  };

  const add = (inputs: readonly ToolDescriptorInput[], addOptions: { signal?: AbortSignal } = {}) =>
    serialize(async () => {
      const parsed = inputs.map((input, index) => {
        const result = ToolDescriptorSchema.safeParse(input);
        if (!result.success) {
          throw new AfwError("INVALID_INPUT", `tool ${index}: ${result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
        }
        return result.data;
      });
      const changed = parsed
        .map((tool) => buildToolDocument(tool, analyzer))
        .filter((document) => documents.get(document.id)?.contentHash !== document.contentHash);
      if (changed.length === 0) return;
      const stale: string[] = [];
      for (const document of changed) {
        const previous = documents.get(document.id);
        const before = previous ? recordCount(previous) : 0;
        for (let view = recordCount(document); view < before; view++) stale.push(`${document.id}#${view}`);
      }
      if (embedder && !backgroundEmbedding) await storeVectors(changed, stale, addOptions.signal);
      for (const document of changed) {
        const previous = documents.get(document.id);
        viewCount += recordCount(document) - (previous ? recordCount(previous) : 0);
        documents.set(document.id, document);
        metadataById.set(document.id, toolMetadata(document.tool, 0));
        bm25.add(document.id, document.fields);
        toolActions.delete(document.id);
        nameWordsById.delete(document.id);
        affordances.delete(document.id);
        termSets.delete(document.id);
      }
      domainDetector = undefined;
      if (embedder && backgroundEmbedding) {
        for (const document of changed) withoutVectors.add(document.id);
        scheduleVectors(stale);
      }
    });

  /** Embeds (through the cache) and stores the vectors of `changed`, deleting `stale` records first. */
  /** What a stored record's vector was computed from: embedder, view combination and tool content. */
  const vectorKeyOf = (document: ToolDocument) =>
    createHash("sha256").update(`${embedder!.id}\0${viewCombination}\0${document.contentHash}`).digest("base64url").slice(0, 24);
  /**
   * The tools whose records the store does not hold yet for their current content: a shared store
   * (Chroma) already filled by another instance or an earlier run needs no embedding at all.
   */
  const withoutStoredVectors = async (changed: readonly ToolDocument[]): Promise<readonly ToolDocument[]> => {
    const present = new Set<string>();
    const keys = changed.map(vectorKeyOf);
    for (let i = 0; i < keys.length; i += 100) for (const id of await store.ids({ [VECTOR_KEY]: { $in: keys.slice(i, i + 100) } })) present.add(id);
    return changed.filter((document) => {
      for (let view = 0; view < recordCount(document); view++) if (!present.has(`${document.id}#${view}`)) return true;
      return false;
    });
  };
  const storeVectors = async (all: readonly ToolDocument[], stale: readonly string[], signal?: AbortSignal) => {
    if (stale.length) await store.delete(stale);
    const changed = await withoutStoredVectors(all);
    if (changed.length === 0) return;
    const cacheInstance = await embeddingCache();
    const texts = changed.flatMap((d) => d.views);
    const vectors = await cacheInstance.embedAll(texts, signal);
    let offset = 0;
    const records = changed.flatMap((document) => {
      const viewVectors = document.views.map(() => vectors[offset++]!);
      if (viewCombination === "mean") {
        // one record per tool: the normalised mean of its unit view vectors
        const mean = new Float32Array(viewVectors[0]!.length);
        for (const v of viewVectors) {
          let norm = 0;
          for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
          const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
          for (let i = 0; i < v.length; i++) mean[i]! += v[i]! * scale;
        }
        return [{ id: `${document.id}#0`, vector: mean, metadata: { ...toolMetadata(document.tool, 0), [VECTOR_KEY]: vectorKeyOf(document) } }];
      }
      return viewVectors.map((vector, view) => ({ id: `${document.id}#${view}`, vector, metadata: { ...toolMetadata(document.tool, view), [VECTOR_KEY]: vectorKeyOf(document) } }));
    });
    for (let i = 0; i < records.length; i += 500) await store.upsert(records.slice(i, i + 500));
    await cacheInstance.flush();
  };

  /**
   * Background embedding: one job at a time embeds every indexed tool still without a vector (so
   * a failed job is retried by the next one).
   */
  const scheduleVectors = (stale: readonly string[]) => {
    staleRecords.push(...stale);
    if (vectorJob) return;
    vectorFailed = false;
    const run = async (): Promise<void> => {
      while (withoutVectors.size > 0 && !closing.signal.aborted) {
        const batch = [...withoutVectors].map((id) => documents.get(id)).filter((d): d is ToolDocument => d !== undefined);
        const deletions = staleRecords.splice(0);
        try {
          await storeVectors(batch, deletions, closing.signal);
        } catch {
          staleRecords.unshift(...deletions);
          vectorFailed = true;
          return;
        }
        // tools replaced meanwhile stay pending; records of tools removed meanwhile are deleted
        const orphans: string[] = [];
        for (const document of batch) {
          const current = documents.get(document.id);
          if (current?.contentHash === document.contentHash) withoutVectors.delete(document.id);
          else if (!current) for (let view = 0; view < recordCount(document); view++) orphans.push(`${document.id}#${view}`);
        }
        if (orphans.length) await store.delete(orphans).catch(() => staleRecords.push(...orphans));
        for (const id of [...withoutVectors]) if (!documents.has(id)) withoutVectors.delete(id);
      }
    };
    vectorJob = run().finally(() => {
      vectorJob = undefined;
      if (withoutVectors.size > 0 && !vectorFailed && !closing.signal.aborted) scheduleVectors([]);
    });
  };

  const rank = async (query: string, rankOptions: RankOptions = {}): Promise<Ranking> => {
    const requested = rankOptions.mode ?? "hybrid";
    const parts = splitQuotedContent(query);
    const filter = toolFilter(rankOptions.servers, rankOptions.tags);
    const accept = filter ? (id: string) => matchesFilter(metadataById.get(id) ?? {}, filter) : undefined;
    const useKeyword = requested !== "semantic";
    let useSemantic = requested !== "keyword";
    let degraded = false;
    let semanticState: Ranking["semanticState"];
    if (useSemantic && embedder && withoutVectors.size > 0) {
      // vectors are still being computed (or failed): keyword ranking until every tool has one
      useSemantic = false;
      degraded = true;
      semanticState = vectorFailed ? "unavailable" : "building";
    }
    // the keyword candidates: enough for any top_k, diversity overflow and re-ranking boosts
    const keywordHits = useKeyword || !embedder ? bm25.search(queryTerms(parts), accept, keywordCandidates) : [];
    let semanticHits: Array<{ id: string; score: number }> = [];
    if (useSemantic) {
      try {
        if (!embedder) throw new Error("no embedder configured");
        const vector = await embedQuery(semanticQuery === "intent" ? parts.intent || query : query, rankOptions.signal);
        // tools ranked below the floor rank get no semantic credit, so fetching twice that many
        // records (up to two per tool) is enough
        const candidates = Math.min(viewCount, Math.max(semanticFloorRank, 50) * 2);
        const matches = await store.query({ vector, topK: candidates, filter });
        const best = new Map<string, number>();
        for (const match of matches) {
          const id = typeof match.metadata["toolId"] === "string" ? match.metadata["toolId"] : match.id.replace(/#\d+$/, "");
          if (!documents.has(id)) continue;
          best.set(id, Math.max(best.get(id) ?? -1, match.score));
        }
        semanticHits = [...best].map(([id, score]) => ({ id, score })).sort((x, y) => y.score - x.score);
      } catch (error) {
        if (AfwError.isInstance(error) && error.code === "ABORTED") throw error;
        if (rankOptions.signal?.aborted) throw new AfwError("ABORTED", "tool search aborted", { cause: error });
        useSemantic = false;
        degraded = true;
        semanticState = "unavailable";
      }
    }
    const mode: SearchMode = !useSemantic ? "keyword" : useKeyword ? "hybrid" : "semantic";
    const keywordNorm = normalizeScores(keywordHits);
    const semanticScore = new Map(semanticHits.map((h) => [h.id, h.score]));
    const semanticFloor = semanticHits.length ? semanticHits[Math.min(semanticHits.length, semanticFloorRank) - 1]!.score : 0;
    const semanticNorm = normalizeScores(semanticHits, Math.min(semanticFloor, semanticHits[0]?.score ?? 0));
    let fused: Map<string, number>;
    if (mode === "keyword") fused = keywordNorm;
    else if (mode === "semantic") fused = semanticNorm;
    else if (fusion.method === "rrf") {
      fused = reciprocalRankFusion([keywordHits, semanticHits], { k: fusion.rrfK, weights: [fusion.keywordWeight, fusion.semanticWeight] });
      // scale so that a tool first in both lists scores 1
      const top = (fusion.keywordWeight + fusion.semanticWeight) / (fusion.rrfK + 1);
      for (const [id, score] of fused) fused.set(id, score / top);
    } else {
      fused = new Map();
      const totalWeight = fusion.keywordWeight + fusion.semanticWeight || 1;
      for (const [id, score] of keywordNorm) fused.set(id, (fusion.keywordWeight * score) / totalWeight);
      for (const [id, score] of semanticNorm) fused.set(id, (fused.get(id) ?? 0) + (fusion.semanticWeight * score) / totalWeight);
    }
    domainDetector ??= domainOptions ? createDomainDetector(documents.values(), analyzer, domainOptions) : undefined;
    const domains = detectDomains(parts);
    const usage = usageWeight > 0 ? await usageStore.scores(analyzer.terms(query), now()) : new Map<string, number>();
    const wantedAction = actionWeight > 0 ? queryAction(parts.intent) : undefined;
    const askedActions = actionMismatchWeight > 0 ? queryActionsAll(parts.intent) : undefined;
    const intentWords = surfaceWeight > 0 || numberWeight > 0 ? words(parts.intent) : [];
    const surfaceWords = surfaceWeight > 0 ? new Set(intentWords) : undefined;
    let numberForms: Map<string, boolean[]> | undefined;
    if (numberWeight > 0) {
      numberForms = new Map();
      for (const word of intentWords) {
        if (STOP_WORDS.has(word)) continue;
        const stem = analyzer.stem(word);
        const forms = numberForms.get(stem) ?? [];
        forms.push(isPlural(word));
        numberForms.set(stem, forms);
      }
    }
    const serverBoosts = options.boosts?.servers ?? {};
    const tagBoosts = options.boosts?.tags ?? {};
    const tools: RankedTool[] = [];
    for (const [id, base] of fused) {
      const document = documents.get(id);
      if (!document) continue;
      const server = document.tool.server;
      const domain = domainWeight * (domains.get(server) ?? 0);
      const evidence = Math.max(0, usage.get(id) ?? 0);
      const usageBoost = evidence > 0 ? (usageWeight * evidence) / (evidence + usageHalf) : 0;
      let staticBoost = serverBoosts[server] ?? 0;
      if (wantedAction) {
        for (const action of toolActionOf(document)) {
          if (wantedAction.has(action)) {
            staticBoost += actionWeight;
            break;
          }
        }
      }
      if (askedActions) {
        const actions = toolActionOf(document);
        let writes = actions.size > 0;
        for (const action of actions) if (!WRITE_ACTIONS.has(action) || askedActions.has(action)) writes = false;
        if (writes) staticBoost -= actionMismatchWeight;
      }
      if (numberForms || surfaceWords) {
        const nameWords = nameWordsOf(document);
        if (numberForms) staticBoost += numberWeight * numberAgreement(nameWords, numberForms);
        if (surfaceWords && nameWords.length) {
          let verbatim = 0;
          for (const { word } of nameWords) if (surfaceWords.has(word)) verbatim++;
          staticBoost += (surfaceWeight * verbatim) / nameWords.length;
        }
      }
      for (const tag of document.tool.tags) staticBoost += tagBoosts[tag] ?? 0;
      tools.push({
        id,
        server,
        score: base + domain + usageBoost + staticBoost,
        keyword: keywordNorm.get(id) ?? 0,
        semantic: semanticScore.get(id) ?? 0,
        domain,
        usage: usageBoost,
      });
    }
    tools.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    const confidence = rankingConfidence(tools, parts.intent, domains, mode);
    if (requested !== "keyword" && !embedder) semanticState = "unavailable";
    return { tools, mode, degraded: degraded || (requested !== "keyword" && !embedder), confidence, domains, ...(semanticState ? { semanticState } : {}) };
  };

  /**
   * Servers the query points at: from the words the user typed, and at a reduced strength from
   * the words standing for entities (`Europe/London` looks like `owner/repo`).
   */
  const detectDomains = (parts: QueryParts): Map<string, number> => {
    if (!domainDetector) return new Map();
    const typed = domainDetector.detect(parts.bare ?? parts.intent);
    if (kindDomainFactor <= 0 || !parts.kinds.length) return typed;
    for (const [server, strength] of domainDetector.detect(parts.intent)) {
      typed.set(server, Math.max(typed.get(server) ?? 0, strength * kindDomainFactor));
    }
    return typed;
  };

  const termSets = new Map<string, Set<string>>();
  const termSetOf = (document: ToolDocument): Set<string> => {
    let set = termSets.get(document.id);
    if (!set) termSets.set(document.id, (set = new Set(Object.values(document.fields).flat())));
    return set;
  };
  /**
   * Confidence of a ranking in [0, 1], from the best tool's evidence: how many of the query's own
   * words its text contains (coverage), its cosine similarity, its lead over the runner-up, and
   * whether the query names its server. Off-topic requests ("tell me a joke") score low.
   */
  const rankingConfidence = (tools: RankedTool[], intent: string, domains: Map<string, number>, mode: SearchMode): number => {
    const first = tools[0];
    if (!first) return 0;
    const second = tools[1];
    const lead = second ? Math.min(1, (first.score - second.score) / Math.max(first.score, 1e-9) / 0.3) : 1;
    const words = [...new Set(analyzer.terms(intent))];
    const own = termSetOf(documents.get(first.id)!);
    const coverage = words.length ? words.filter((w) => own.has(w)).length / words.length : 0;
    const similarity = Math.max(0, Math.min(1, (first.semantic - 0.25) / 0.4));
    const named = domains.get(first.server) ?? 0;
    const evidence =
      mode === "keyword"
        ? 0.6 * coverage + 0.2 * lead + 0.2 * named
        : mode === "semantic"
          ? 0.7 * similarity + 0.15 * lead + 0.15 * named
          : 0.4 * similarity + 0.3 * coverage + 0.15 * lead + 0.15 * named;
    return Math.max(0, Math.min(1, evidence));
  };

  const applyDiversity = (tools: RankedTool[], limit: number, exempt: ReadonlySet<string>): RankedTool[] => {
    if (limit <= 0) return tools;
    const perServer = new Map<string, number>();
    const kept: RankedTool[] = [];
    const overflow: RankedTool[] = [];
    for (const tool of tools) {
      const count = perServer.get(tool.server) ?? 0;
      if (count < limit || exempt.has(tool.server)) {
        kept.push(tool);
        perServer.set(tool.server, count + 1);
      } else overflow.push(tool);
    }
    return [...kept, ...overflow];
  };

  const affordances = new Map<string, string>();
  const affordanceOf = (document: ToolDocument): string => {
    let summary = affordances.get(document.id);
    if (summary === undefined) affordances.set(document.id, (summary = affordanceSummary(document.tool)));
    return summary;
  };
  const toHit = (id: string, score: number): ToolSearchHit => {
    const document = documents.get(id)!;
    const tool = document.tool;
    return {
      id,
      server: tool.server,
      name: tool.name,
      description: tool.description,
      score: Math.round(score * 10_000) / 10_000,
      affordance: affordanceOf(document),
      inputSchema: tool.inputSchema,
    };
  };

  const index: ToolIndex = {
    get size() {
      return documents.size;
    },
    add,
    upsert: add,
    remove: (ids) =>
      serialize(async () => {
        const recordIds: string[] = [];
        for (const id of ids) {
          const document = documents.get(id);
          if (!document) continue;
          for (let view = 0; view < recordCount(document); view++) recordIds.push(`${id}#${view}`);
          viewCount -= recordCount(document);
          documents.delete(id);
          metadataById.delete(id);
          bm25.remove(id);
        }
        if (recordIds.length && embedder) await store.delete(recordIds);
        domainDetector = undefined;
      }),
    get: (id) => documents.get(id)?.tool,
    list: () => [...documents.values()].map((d) => d.tool),
    rank,
    async search(rawInput, searchOptions = {}) {
      const parsed = SearchToolsInputSchema.safeParse(rawInput);
      if (!parsed.success) {
        throw new AfwError("INVALID_INPUT", `invalid search_tools input: ${parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ")}`);
      }
      const input = parsed.data;
      const trace = searchOptions.trace ?? options.trace;
      const ranking = await rank(input.query, {
        mode: input.mode,
        servers: input.servers,
        tags: input.tags,
        ...(searchOptions.signal ? { signal: searchOptions.signal } : {}),
      });
      const singleServer = (input.servers?.length ?? 0) === 1;
      const exempt = new Set<string>();
      if (exemptNamedServers) for (const [server, strength] of ranking.domains) if (strength >= 1) exempt.add(server);
      const ordered = applyDiversity(ranking.tools, singleServer ? 0 : maxPerServer, exempt).slice(0, input.top_k);
      const filter = toolFilter(input.servers, input.tags);
      const allowed = (id: string) => documents.has(id) && (!filter || matchesFilter(metadataById.get(id) ?? {}, filter));
      let hits: ToolSearchHit[] = [];
      const seen = new Set<string>();
      for (const tool of ordered) {
        if (seen.has(tool.id)) continue;
        seen.add(tool.id);
        hits.push(toHit(tool.id, tool.score));
        for (const bundle of bundles) {
          if (!bundle.tools.includes(tool.id)) continue;
          for (const member of bundle.tools) {
            if (seen.has(member) || !allowed(member)) continue;
            seen.add(member);
            hits.push(toHit(member, tool.score));
          }
        }
      }
      let fallback = false;
      const fallbackIds = fallbackToolIds.filter(allowed);
      if (ranking.confidence < threshold && fallbackIds.length) {
        fallback = true;
        const rest = hits.filter((h) => !fallbackIds.includes(h.id));
        hits = [...fallbackIds.map((id) => toHit(id, 0)), ...rest].slice(0, Math.max(input.top_k, fallbackIds.length));
        emitTrace(trace, "tool-search-low-confidence", {
          query: input.query,
          confidence: ranking.confidence,
          threshold,
          fallbackIds,
        });
      }
      const confidence = Math.round(ranking.confidence * 1000) / 1000;
      emitTrace(trace, "tool-search-performed", {
        target: "tools",
        query: input.query,
        mode: ranking.mode,
        filters: {
          top_k: input.top_k,
          ...(input.servers ? { servers: input.servers } : {}),
          ...(input.tags ? { tags: input.tags } : {}),
        },
        results: hits.map((h) => ({ id: h.id, score: h.score })),
        confidence,
        ...(ranking.degraded ? { degraded: true } : {}),
      });
      return { results: hits, confidence, mode: ranking.mode, fallback, ...(ranking.semanticState ? { semantic_state: ranking.semanticState } : {}) };
    },
    async recordUsage(query, id, success, at = now()) {
      await usageStore.record({ terms: analyzer.terms(query), toolId: id, success, at });
    },
    setBundles(next) {
      bundles = [...next];
    },
    async flush() {
      if (cache) await (await cache).flush();
    },
    vectorState() {
      if (!embedder) return { state: "none", pending: 0 };
      const pending = withoutVectors.size;
      return { state: pending === 0 ? "ready" : vectorFailed && !vectorJob ? "failed" : "building", pending };
    },
    async vectorsReady() {
      await queue;
      while (vectorJob) await vectorJob;
    },
    async close() {
      closing.abort();
      await queue;
      await vectorJob?.catch(() => undefined);
      await store.close();
    },
  };
  return index;
}
