import { createHash } from "node:crypto";
import {
  AfwError,
  emitTrace,
  parseOrThrow,
  SearchToolsInputSchema,
  ToolDescriptorSchema,
  type SearchMode,
  type ToolDescriptorInput,
  type ToolSearchHit,
} from "@afw/contracts";
import { Bm25Index, normalizeScores } from "./bm25.js";
import { createDomainDetector, type DomainDetector, type ServerInfo } from "./domain-detector.js";
import { openEmbeddingCache, type EmbeddingCache } from "./embedding-cache.js";
import { createInMemoryVectorStore } from "./in-memory-vector-store.js";
import { splitQuotedContent, type QueryParts } from "./query-text.js";
import { completeIdDependencies, idProfile, type IdProfile } from "./id-dependencies.js";
import { rewritePhrasalVerbs } from "./phrasal-verbs.js";
import { createSpeller } from "./spelling.js";
import { requestSteps } from "./task-steps.js";
import { associatedTerms, hasAssociations } from "./term-associations.js";
import { applyDiversity, createRankingSignals, rankingConfidence, separateDescribedVerbs } from "./ranking-signals.js";
import { createTextAnalyzer, words, type TextAnalyzer, type WeightedTerm } from "./text-analysis.js";
import { affordanceSummary, buildToolDocument, type ToolDocument, type ToolField } from "./tool-document.js";
import type { RankedTool, RankOptions, Ranking, ToolIndex, ToolIndexOptions } from "./tool-index-options.js";
import { createUsageCounters } from "./usage-store.js";
import { isWordnetStem } from "./wordnet-synonyms.js";
import { toolFilter, toolMetadata } from "./tool-records.js";
import { matchesFilter, type VectorMetadata } from "./vector-store.js";

/** BM25F field weights (length normalisation b = 0.75). */
const FIELD_WEIGHTS: Readonly<Record<ToolField, { weight: number }>> = {
  name: { weight: 3 },
  server: { weight: 2 },
  summary: { weight: 1.5 },
  description: { weight: 0.6 },
  /** Usage guidance to the caller ("always call this tool when the user asks …"): not what the tool does. */
  guidance: { weight: 0.3 },
  parameters: { weight: 0.6 },
  parameterDescriptions: { weight: 0.3 },
  tags: { weight: 1.5 },
};
/** Fusion: weights of the normalised keyword (BM25F) and semantic scores. */
const KEYWORD_WEIGHT = 0.7;
const SEMANTIC_WEIGHT = 0.3;
/** Boost of tools whose server the query points at (times the detected strength). */
const DOMAIN_WEIGHT = 0.4;
/** Weights of the lexical re-ranking signals (see ranking-signals.ts). */
const SIGNAL_WEIGHTS = { actionWeight: 0.15, actionMismatchWeight: 0.1, surfaceWeight: 0.05, numberWeight: 0.05 } as const;
/** Largest usage boost, and the usage evidence at which half of it is given. */
const USAGE_WEIGHT = 0.2;
const USAGE_HALF_SATURATION = 2;
/** Below this ranking confidence the fallback tools are returned first. */
const LOW_CONFIDENCE = 0.3;
/** Steps of a multi-step task whose own search is less confident than this do not count. */
const STEP_MIN_CONFIDENCE = 0.2;
/** Weight of quoted passages of the query relative to its other words. */
const QUOTED_WEIGHT = 0.3;
/** Weight of tool-text terms learned to go with the query's words (times the association's strength). */
const ASSOCIATION_WEIGHT = 0.6;
/** Keyword weight of an operation verb that only describes a state ("are running", "what you stored"); no synonyms. */
const DESCRIBED_VERB_WEIGHT = 0.5;
/** Weight of the words standing for recognised entities (`file` for `src/a.ts`) relative to typed words. */
const ENTITY_WEIGHT = 0.8;
/** Strength, relative to a typed word, with which entity words point at a server. */
const KIND_DOMAIN_FACTOR = 0.5;
/** Rank of the semantic candidate whose similarity maps to 0 when semantic scores are normalised. */
const SEMANTIC_FLOOR_RANK = 100;
/** At most this many results per server (overflow moves down), unless the query names the server. */
const MAX_PER_SERVER = 3;
/**
 * Score a tool beyond its server's `MAX_PER_SERVER` loses: it moves behind other servers' tools within this much of
 * it, not behind clearly worse ones (a catalog of two servers, a task all about one of them).
 */
const DIVERSITY_PENALTY = 0.1;
/** Keyword candidates: enough for any top_k, diversity overflow and re-ranking boosts. */
const KEYWORD_CANDIDATES = 200;
/**
 * Strength with which the servers a multi-step task names (detected at full strength: the server's name or title, or a
 * word only its tools' names use) point at them in each step ("list the keys in Redis …, then delete the stale one":
 * the second step means Redis too); weaker hints of the whole task do not carry over.
 */
const TASK_DOMAIN_FACTOR = 0.8;
/** Tools fused from the steps of a multi-step task (the rest of the whole task's ranking follows). */
const MERGED_CANDIDATES = 100;
/** Leading tools of each list (the whole task's and each step's) fused for a multi-step task. */
const FUSED_PER_LIST = 20;
/**
 * Rank offset of the reciprocal rank fusion of a multi-step task's lists: small, so that each list's first tool comes
 * before any list's second (one slot per step and round) and agreement between lists orders tools within a round.
 */
const FUSION_K = 1;

/** Metadata field of a stored vector record: hash of the embedder id and the tool's content. */
const VECTOR_KEY = "vectorKey";
/** Tools embedded per embedder call by the background build. */
const BACKGROUND_CHUNK = 32;

/**
 * Creates a hybrid tool index: BM25F over tool text (name words, server, first sentence,
 * description, parameters, tags) fused with dense vectors of two views per tool, re-ranked by the
 * server the query points at, the action it asks for and recorded usage, with a per-server diversity limit
 * and a low-confidence fallback.
 *
 * @example
 * ```ts
 * const index = createToolIndex({ embedder: createCachingEmbedder(createUseEmbedder()) });
 * await index.add(loadToolCatalogFile("tools-catalog.json"));
 * const { results } = await index.search({ query: "squash-merge PR 88", top_k: 5 });
 * ```
 */
export function createToolIndex(options: ToolIndexOptions = {}): ToolIndex {
  // WordNet expands only typed words the indexed tools never use
  const analyzer: TextAnalyzer = createTextAnalyzer({ synonyms: options.synonyms ?? "both", expandWithWordnet: (stem) => !bm25.has(stem) });
  const bm25 = new Bm25Index<ToolField>({ fields: FIELD_WEIGHTS });
  const store = options.store ?? createInMemoryVectorStore();
  const embedder = options.embedder;
  const documents = new Map<string, ToolDocument>();
  const idProfiles = new WeakMap<ToolDocument, IdProfile>();
  const idProfileOf = (id: string): IdProfile | undefined => {
    const document = documents.get(id);
    if (!document) return undefined;
    let profile = idProfiles.get(document);
    if (!profile) idProfiles.set(document, (profile = idProfile(document, analyzer)));
    return profile;
  };
  const metadataById = new Map<string, VectorMetadata>();
  const signals = createRankingSignals(analyzer, SIGNAL_WEIGHTS);
  const usageCounters = createUsageCounters();
  const fallbackToolIds = options.confidence?.fallbackToolIds ?? [];
  let domainDetector: DomainDetector | undefined;
  const serverInfo = new Map<string, ServerInfo>();
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
    // a writing operation verb that only describes ("what pods are running") is content, not the operation asked for
    const { request, described } = separateDescribedVerbs(intent, signals.isWriteWord);
    for (const { term, weight } of analyzer.queryTerms(request)) {
      const w = kindTerms.has(term) ? weight * ENTITY_WEIGHT : weight;
      weights.set(term, Math.max(weights.get(term) ?? 0, w));
    }
    for (const term of analyzer.terms(described.join(" "))) {
      if ((weights.get(term) ?? 0) < DESCRIBED_VERB_WEIGHT) weights.set(term, DESCRIBED_VERB_WEIGHT);
    }
    // learned associations of the typed and entity words (not of synonyms or quoted content)
    const typed = [...weights].filter(([, weight]) => weight >= ENTITY_WEIGHT).map(([term, weight]) => ({ term, weight }));
    for (const { term, weight } of associatedTerms(typed, ASSOCIATION_WEIGHT)) {
      if ((weights.get(term) ?? 0) < weight) weights.set(term, weight);
    }
    for (const { term, weight } of analyzer.queryTerms(quoted.join(" "))) {
      const w = weight * QUOTED_WEIGHT;
      if ((weights.get(term) ?? 0) < w) weights.set(term, w);
    }
    return [...weights].map(([term, weight]) => ({ term, weight }));
  };

  /** Embeds the texts not in the query-vector cache in one embedder call; returns the vector of the first. */
  const embedQueries = async (texts: readonly string[], signal?: AbortSignal): Promise<Float32Array> => {
    const missing = [...new Set(texts)].filter((text) => !queryVectors.has(text));
    if (missing.length) {
      const vectors = await embedder!.embed(missing, signal);
      missing.forEach((text, i) => {
        if (vectors[i]) queryVectors.set(text, vectors[i]);
      });
      while (queryVectors.size > 1000) queryVectors.delete(queryVectors.keys().next().value!);
    }
    const vector = queryVectors.get(texts[0]!);
    if (!vector) throw new Error("embedder returned no vector");
    return vector;
  };

  const add = (inputs: readonly ToolDescriptorInput[], addOptions: { signal?: AbortSignal } = {}) =>
    serialize(async () => {
      const parsed = inputs.map((input, index) => parseOrThrow(ToolDescriptorSchema, input, "INVALID_INPUT", `tool ${index}`));
      const changed = parsed
        .map((tool) => buildToolDocument(tool, analyzer))
        .filter((document) => documents.get(document.id)?.contentHash !== document.contentHash);
      if (changed.length === 0) return;
      if (embedder && !backgroundEmbedding) await storeVectors(changed, addOptions.signal);
      for (const document of changed) {
        documents.set(document.id, document);
        metadataById.set(document.id, toolMetadata(document.tool, 0));
        bm25.add(document.id, document.fields);
        signals.forget(document.id);
        affordances.delete(document.id);
        termSets.delete(document.id);
      }
      domainDetector = undefined;
      speller.invalidate();
      if (embedder && backgroundEmbedding) {
        for (const document of changed) withoutVectors.add(document.id);
        scheduleVectors([]);
      }
    });

  /** What a stored record's vector was computed from: the embedder and the tool's content. */
  const vectorKeyOf = (document: ToolDocument) => createHash("sha256").update(`${embedder!.id}\0${document.contentHash}`).digest("base64url").slice(0, 24);
  /** The tools whose record the store lacks for their current content (a shared Chroma may hold them). */
  const withoutStoredVectors = async (changed: readonly ToolDocument[]): Promise<readonly ToolDocument[]> => {
    const present = new Set<string>();
    const keys = changed.map(vectorKeyOf);
    for (let i = 0; i < keys.length; i += 100) for (const id of await store.ids({ [VECTOR_KEY]: { $in: keys.slice(i, i + 100) } })) present.add(id);
    return changed.filter((document) => !present.has(`${document.id}#0`));
  };

  /** Embeds (through the cache) and stores the vectors the store lacks, deleting `stale` records first. */
  const storeVectors = async (all: readonly ToolDocument[], signal?: AbortSignal, stale: readonly string[] = [], flush = true) => {
    if (stale.length) await store.delete(stale);
    const changed = await withoutStoredVectors(all);
    if (changed.length === 0) return;
    const cacheInstance = await embeddingCache();
    const texts = changed.flatMap((d) => d.views);
    const vectors = await cacheInstance.embedAll(texts, signal);
    let offset = 0;
    // one record per tool: the normalised mean of its unit view vectors
    const records = changed.map((document) => {
      const viewVectors = document.views.map(() => vectors[offset++]!);
      const mean = new Float32Array(viewVectors[0]!.length);
      for (const v of viewVectors) {
        let norm = 0;
        for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
        const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
        for (let i = 0; i < v.length; i++) mean[i]! += v[i]! * scale;
      }
      return { id: `${document.id}#0`, vector: mean, metadata: { ...toolMetadata(document.tool, 0), [VECTOR_KEY]: vectorKeyOf(document) } };
    });
    for (let i = 0; i < records.length; i += 500) await store.upsert(records.slice(i, i + 500));
    if (flush) await cacheInstance.flush();
  };

  /** Background embedding: one job at a time embeds every tool without a vector (a failed job is retried by the next). */
  const scheduleVectors = (stale: readonly string[]) => {
    staleRecords.push(...stale);
    if (vectorJob) return;
    vectorFailed = false;
    const run = async (): Promise<void> => {
      while (withoutVectors.size > 0 && !closing.signal.aborted) {
        const batch = [...withoutVectors].map((id) => documents.get(id)).filter((d): d is ToolDocument => d !== undefined);
        const deletions = staleRecords.splice(0);
        try {
          // small requests, so that an embedder shared with others (the router's worker thread)
          // serves their requests in between
          for (let i = 0; i < batch.length; i += BACKGROUND_CHUNK) {
            await storeVectors(batch.slice(i, i + BACKGROUND_CHUNK), closing.signal, i === 0 ? deletions : [], i + BACKGROUND_CHUNK >= batch.length);
          }
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
          else if (!current) orphans.push(`${document.id}#0`);
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

  /** Ranks one query; `taskDomains` are the servers the whole task points at when the query is one of its steps. */
  const rankOne = async (query: string, rankOptions: RankOptions = {}, taskDomains?: ReadonlyMap<string, number>): Promise<Ranking> => {
    const requested = rankOptions.mode ?? "hybrid";
    const parts = splitQuotedContent(query);
    // misspelt words corrected and phrasal verbs read as the verb they mean, for the keyword query, server detection and operation signals (the
    // embedder reads the words as typed)
    const reading = (text: string) => speller.correct(rewritePhrasalVerbs(text));
    const read: QueryParts = { ...parts, intent: reading(parts.intent), ...(parts.bare !== undefined ? { bare: reading(parts.bare) } : {}) };
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
    const keywordHits = useKeyword || !embedder ? bm25.search(queryTerms(read), accept, KEYWORD_CANDIDATES) : [];
    let semanticHits: Array<{ id: string; score: number }> = [];
    if (useSemantic) {
      try {
        if (!embedder) throw new Error("no embedder configured");
        const vector = await embedQueries([parts.intent || query], rankOptions.signal);
        // tools ranked below the floor rank get no semantic credit
        const candidates = Math.min(documents.size, SEMANTIC_FLOOR_RANK * 2);
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
    const semanticFloor = semanticHits.length ? semanticHits[Math.min(semanticHits.length, SEMANTIC_FLOOR_RANK) - 1]!.score : 0;
    const semanticNorm = normalizeScores(semanticHits, Math.min(semanticFloor, semanticHits[0]?.score ?? 0));
    let fused: Map<string, number>;
    if (mode === "keyword") fused = keywordNorm;
    else if (mode === "semantic") fused = semanticNorm;
    else {
      fused = new Map();
      for (const [id, score] of keywordNorm) fused.set(id, KEYWORD_WEIGHT * score);
      for (const [id, score] of semanticNorm) fused.set(id, (fused.get(id) ?? 0) + SEMANTIC_WEIGHT * score);
    }
    domainDetector ??= createDomainDetector(documents.values(), analyzer, serverInfo);
    const domains = detectDomains(read);
    // a single query ranks by its own domains; only a step of a multi-step task gets a copy with the task's
    const boosts = taskDomains ? new Map(domains) : domains;
    for (const [server, strength] of taskDomains ?? []) {
      if (strength >= 1) boosts.set(server, Math.max(boosts.get(server) ?? 0, TASK_DOMAIN_FACTOR));
    }
    const usage = usageCounters.scores(analyzer.terms(query), Date.now());
    const querySignals = signals.analyse(read.intent, words(read.intent));
    const tools: RankedTool[] = [];
    for (const [id, base] of fused) {
      const document = documents.get(id);
      if (!document) continue;
      const server = document.tool.server;
      const domain = DOMAIN_WEIGHT * (boosts.get(server) ?? 0);
      const evidence = Math.max(0, usage.get(id) ?? 0);
      const usageBoost = evidence > 0 ? (USAGE_WEIGHT * evidence) / (evidence + USAGE_HALF_SATURATION) : 0;
      const signalBoost = signals.boost(document, querySignals);
      tools.push({
        id,
        server,
        score: base + domain + usageBoost + signalBoost,
        keyword: keywordNorm.get(id) ?? 0,
        semantic: semanticScore.get(id) ?? 0,
        domain,
        usage: usageBoost,
      });
    }
    tools.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    const confidence = rankingConfidence(tools, coverageOf(tools[0], parts.intent), domains, mode);
    if (requested !== "keyword" && !embedder) semanticState = "unavailable";
    return { tools, mode, degraded: degraded || (requested !== "keyword" && !embedder), confidence, domains, ...(semanticState ? { semanticState } : {}) };
  };

  /**
   * Ranks a task: one query, or, for a task of several requests (context sentences are not steps), each step on its
   * own (boosted by the servers the whole task names), fused by reciprocal rank (the whole task's list, whose best
   * tool leads, and each confident step's), tagged by step.
   */
  const rank = async (query: string, rankOptions: RankOptions = {}): Promise<Ranking> => {
    const steps = requestSteps(query);
    if (steps.length < 2) return rankOne(query, rankOptions);
    if (embedder && rankOptions.mode !== "keyword" && withoutVectors.size === 0) {
      // one embedder call for the task and its steps; each step embeds (and degrades) on its own if this fails
      await embedQueries([query, ...steps].map((text) => splitQuotedContent(text).intent || text), rankOptions.signal).catch(() => undefined);
    }
    const whole = await rankOne(query, rankOptions);
    const perStep: Ranking[] = [];
    for (const step of steps) perStep.push(await rankOne(step, rankOptions, whole.domains));
    // chit-chat ("Thanks!") finds nothing with confidence: not a step
    const useful = steps.flatMap((_, step) => (perStep[step]!.confidence >= STEP_MIN_CONFIDENCE && perStep[step]!.tools.length ? [step] : []));
    if (useful.length < 2) return whole;
    // a tool of the whole task's list serves the step that ranks it best (among its first 10)
    const stepOf = (tool: RankedTool): RankedTool => {
      let best: number | undefined;
      let bestRank = 10;
      for (const step of useful) {
        const at = perStep[step]!.tools.findIndex((candidate) => candidate.id === tool.id);
        if (at >= 0 && at < bestRank) [best, bestRank] = [step, at];
      }
      return best === undefined ? tool : { ...tool, step: best };
    };
    const lists = [whole, ...useful.map((step) => perStep[step]!)];
    // reciprocal rank fusion of the first tools of each list: after the whole task's best tool, a tool first in any
    // list comes before any list's second, ordered by the other lists that rank it too; a tool serves the step whose
    // list ranks it best
    const fused = new Map<string, { tool: RankedTool; list: number; rank: number; score: number }>();
    lists.forEach((list, at) => {
      list.tools.slice(0, FUSED_PER_LIST).forEach((tool, rank) => {
        const entry = fused.get(tool.id) ?? { tool, list: at, rank, score: 0 };
        // the whole task's best tool leads whatever the steps say
        entry.score += at === 0 && rank === 0 ? Number.POSITIVE_INFINITY : 1 / (FUSION_K + rank);
        if (rank < entry.rank) Object.assign(entry, { tool, list: at, rank });
        fused.set(tool.id, entry);
      });
    });
    const merged: RankedTool[] = [];
    const seen = new Set<string>();
    for (const { tool, list } of [...fused.values()].sort((x, y) => y.score - x.score || x.rank - y.rank)) {
      if (merged.length >= MERGED_CANDIDATES) break;
      seen.add(tool.id);
      merged.push(list === 0 ? stepOf(tool) : { ...tool, step: useful[list - 1]! });
    }
    for (const tool of whole.tools) if (!seen.has(tool.id)) merged.push(tool);
    const domains = new Map(whole.domains);
    for (const list of lists) for (const [server, strength] of list.domains) domains.set(server, Math.max(domains.get(server) ?? 0, strength));
    return { ...whole, tools: merged, domains, confidence: Math.max(...lists.map((list) => list.confidence)), steps };
  };

  const detectDomains = (parts: QueryParts): Map<string, number> => {
    if (!domainDetector) return new Map();
    const typedText = parts.bare ?? parts.intent;
    const typed = domainDetector.detect(typedText, analyzer.queryTerms(typedText));
    if (!parts.kinds.length) return typed;
    for (const [server, strength] of domainDetector.detect(parts.intent)) {
      typed.set(server, Math.max(typed.get(server) ?? 0, strength * KIND_DOMAIN_FACTOR));
    }
    return typed;
  };

  /** Corrects misspelt query words; a word is known by its stem: in a tool's text, the learned associations or (unless `synonyms: "builtin"`) WordNet, so "buy" is no typo of "by". */
  const knownStem = (stem: string): boolean => bm25.has(stem) || hasAssociations(stem) || (options.synonyms !== "builtin" && isWordnetStem(stem));
  const speller = createSpeller(() => [...documents.values()].map((d) => d.tool), (word) => knownStem(analyzer.stem(word)));

  const termSets = new Map<string, Set<string>>();
  const termSetOf = (document: ToolDocument): Set<string> => {
    let set = termSets.get(document.id);
    if (!set) termSets.set(document.id, (set = new Set(Object.values(document.fields).flat())));
    return set;
  };
  /** The share of the query's own words that a tool's text contains. */
  const coverageOf = (tool: RankedTool | undefined, intent: string): number => {
    if (!tool) return 0;
    const queryWords = [...new Set(analyzer.terms(intent))];
    const own = termSetOf(documents.get(tool.id)!);
    return queryWords.length ? queryWords.filter((w) => own.has(w)).length / queryWords.length : 0;
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
    remove: (ids) =>
      serialize(async () => {
        const recordIds: string[] = [];
        for (const id of ids) {
          const document = documents.get(id);
          if (!document) continue;
          recordIds.push(`${id}#0`);
          documents.delete(id);
          metadataById.delete(id);
          bm25.remove(id);
        }
        if (recordIds.length && embedder) await store.delete(recordIds);
        domainDetector = undefined;
        speller.invalidate();
      }),
    get: (id) => documents.get(id)?.tool,
    rank,
    async search(rawInput, searchOptions = {}) {
      const input = parseOrThrow(SearchToolsInputSchema, rawInput, "INVALID_INPUT", "search_tools input");
      const trace = searchOptions.trace ?? options.trace;
      const ranking = await rank(input.query, {
        mode: input.mode,
        servers: input.servers,
        tags: input.tags,
        ...(searchOptions.signal ? { signal: searchOptions.signal } : {}),
      });
      const singleServer = (input.servers?.length ?? 0) === 1;
      const exempt = new Set<string>();
      for (const [server, strength] of ranking.domains) if (strength >= 1) exempt.add(server);
      // a multi-step ranking is interleaved by step already
      const diversified = ranking.steps ? ranking.tools : applyDiversity(ranking.tools, singleServer ? 0 : MAX_PER_SERVER, exempt, DIVERSITY_PENALTY);
      // a leading tool that needs the id of something the task names gets the tool that finds it
      const ordered = completeIdDependencies(diversified, idProfileOf, input.query).slice(0, input.top_k);
      const filter = toolFilter(input.servers, input.tags);
      const allowed = (id: string) => documents.has(id) && (!filter || matchesFilter(metadataById.get(id) ?? {}, filter));
      let hits: ToolSearchHit[] = [];
      const seen = new Set<string>();
      for (const tool of ordered) {
        if (seen.has(tool.id)) continue;
        seen.add(tool.id);
        const hit = toHit(tool.id, tool.score);
        if (ranking.steps && tool.step !== undefined) {
          hit.step = tool.step;
          hit.step_text = ranking.steps[tool.step]!;
        }
        hits.push(hit);
      }
      let fallback = false;
      const fallbackIds = fallbackToolIds.filter(allowed);
      if (ranking.confidence < LOW_CONFIDENCE && fallbackIds.length) {
        fallback = true;
        const rest = hits.filter((h) => !fallbackIds.includes(h.id));
        hits = [...fallbackIds.map((id) => toHit(id, 0)), ...rest].slice(0, Math.max(input.top_k, fallbackIds.length));
        emitTrace(trace, "tool-search-low-confidence", {
          query: input.query,
          confidence: ranking.confidence,
          threshold: LOW_CONFIDENCE,
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
      return {
        results: hits,
        confidence,
        mode: ranking.mode,
        fallback,
        ...(ranking.semanticState ? { semantic_state: ranking.semanticState } : {}),
        ...(ranking.steps ? { steps: ranking.steps } : {}),
      };
    },
    async recordUsage(query, id, success, at = Date.now()) {
      usageCounters.record(analyzer.terms(query), id, success, at);
    },
    setServerInfo(server, info) {
      if (info) serverInfo.set(server, info);
      else serverInfo.delete(server);
      domainDetector = undefined;
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
