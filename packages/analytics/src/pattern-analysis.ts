import { cosineSimilarity, type Embedder, type Intent, type IntentAlternative } from "@afw/contracts";
import { outcomesOf, prepareData, type AnalyticsData, type ReportRange } from "./analytics-data.js";
import { distinctiveKeywords } from "./keywords.js";
import type { QueryRecord } from "./query-records.js";
import { groupBy, increment, mean, rankCounts, ratio, round } from "./statistics.js";

/** Looks up the question of a trace (e.g. from the session store or a side channel). */
export type QuestionLookup = (traceId: string) => string | undefined | Promise<string | undefined>;

/** A group of similar questions. */
export interface QuestionCluster {
  /** Stable within one report: `c1`, `c2`, ... by size. */
  id: string;
  /** Questions in the cluster (duplicates included). */
  size: number;
  /** The question closest to the cluster's centre. */
  representative: string;
  /** Up to five distinct questions, most central first. */
  examples: string[];
  /** Classified intents of its questions, by count. */
  intents: Partial<Record<Intent, number>>;
  /** The intent most of its questions were classified as. */
  dominantIntent: Intent | null;
  /** Share of its classified questions with the dominant intent. */
  dominantShare: number | null;
  meanConfidence: number | null;
  /** Share of its questions under the low-confidence threshold. */
  lowConfidenceShare: number | null;
  /** Share of its completed queries that needed a fallback. */
  fallbackRate: number | null;
  /** Share of its completed queries that failed. */
  failureRate: number | null;
  /** Words that characterise it against every analysed question. */
  keywords: string[];
  /** Up to 20 trace ids of its questions. */
  traceIds: string[];
}

/** An intent whose queries often needed a fallback or failed. */
export interface FallbackIntent {
  intent: Intent;
  queries: number;
  fallbackQueries: number;
  fallbackRate: number | null;
  failedQueries: number;
  failureRate: number | null;
  /** The most frequent fallback paths. */
  topPaths: Array<{ fromFlowId: string; toFlowId: string; count: number }>;
}

/** A question the classifier was unsure about. */
export interface LowConfidenceQuestion {
  traceId: string;
  question: string | null;
  intent: Intent | null;
  confidence: number;
  alternatives: IntentAlternative[];
}

/** A proposal for a new intent pattern or a new flow, for a human to review. */
export interface PatternProposal {
  /** `intent-pattern`: add `keywords` as patterns of `intent` (classified uncertainly but mostly as it); `new-flow`: consider a flow for them. */
  kind: "intent-pattern" | "new-flow";
  intent: Intent | null;
  /** Proposed pattern keywords. */
  keywords: string[];
  /** Example questions. */
  examples: string[];
  /** Questions behind the proposal. */
  support: number;
  /** Why, with the numbers. */
  reason: string;
  /** The cluster it comes from. */
  clusterId: string;
}

/** The `pattern_analysis` report. */
export interface PatternAnalysis {
  range: ReportRange;
  /** Queries in the range. */
  queries: number;
  /** Queries whose question text was available and clustered. */
  questionsAnalysed: number;
  /** Queries without question text (not clustered). */
  questionsWithoutText: number;
  /** Clusters of at least `minClusterSize` questions, largest first. */
  clusters: QuestionCluster[];
  /** Intents with at least 5 completed queries whose fallback or failure rate reaches 20%, the most troubled first. */
  fallbackIntents: FallbackIntent[];
  /** Questions under the low-confidence threshold (or reported low-confidence by the router), least confident first. */
  lowConfidence: LowConfidenceQuestion[];
  /** Candidates for new intent patterns or flows. */
  proposals: PatternProposal[];
}

/** Options of {@link patternAnalysis}. */
export interface PatternAnalysisOptions extends AnalyticsData {
  /** Embeds the questions for clustering. */
  embedder: Embedder;
  /** Looks up the question text of a trace. */
  questionOf?: QuestionLookup | undefined;
  /** Cosine similarity to a cluster's centre needed to join it. @default 0.75 */
  similarityThreshold?: number | undefined;
  /** Smallest reported cluster. @default 3 */
  minClusterSize?: number | undefined;
  /** Most clusters reported. @default 20 */
  maxClusters?: number | undefined;
  /** Intent confidence under this is low. @default 0.5 */
  lowConfidenceThreshold?: number | undefined;
}

interface Item {
  record: QueryRecord;
  question: string;
}

/**
 * The `pattern_analysis` report: questions clustered by embedding (greedy centroid clustering in
 * time order, deterministic), intents that often fall back or fail, low-confidence questions, and
 * proposed pattern keywords. Question texts come beside the audit log (`questions`,
 * `questionOf`): trace events carry only their length.
 *
 * @throws AfwError `INVALID_INPUT` for a malformed range; rejects when the embedder fails.
 */
export async function patternAnalysis(options: PatternAnalysisOptions): Promise<PatternAnalysis> {
  const similarityThreshold = options.similarityThreshold ?? 0.75;
  const minClusterSize = Math.max(1, options.minClusterSize ?? 3);
  const maxClusters = Math.max(0, options.maxClusters ?? 20);
  const maxQuestions = 2000;
  const lowThreshold = options.lowConfidenceThreshold ?? 0.5;
  const fallbackThreshold = 0.2;
  const minIntentQueries = 5;
  const { range, records } = prepareData(options);

  // question texts
  const items: Item[] = [];
  const textOf = new Map<string, string>();
  for (const record of records.slice(Math.max(0, records.length - maxQuestions))) {
    const question = await options.questionOf?.(record.traceId);
    if (question !== undefined && question.trim().length > 0) {
      items.push({ record, question });
      textOf.set(record.traceId, question);
    }
  }

  const clusters = await clusterQuestions(items, options.embedder, similarityThreshold);
  const corpus = items.map((item) => item.question);
  const reported: QuestionCluster[] = clusters
    .filter((cluster) => cluster.members.length >= minClusterSize)
    .sort((a, b) => b.members.length - a.members.length || a.order - b.order)
    .slice(0, maxClusters)
    .map((cluster, index) => describeCluster(`c${index + 1}`, cluster, corpus, lowThreshold));

  // intents that fall back
  const fallbackIntents: FallbackIntent[] = [];
  for (const [intent, list] of groupBy(records, (r) => r.intent)) {
    const { completed, fallbackQueries, failed } = outcomesOf(list);
    const fallbackRate = ratio(fallbackQueries, completed.length);
    const failureRate = ratio(failed, completed.length);
    if (completed.length < minIntentQueries) continue;
    if ((fallbackRate ?? 0) < fallbackThreshold && (failureRate ?? 0) < fallbackThreshold) continue;
    const paths = new Map<string, number>();
    for (const record of list) for (const f of record.fallbacks) increment(paths, `${f.fromFlowId}\u0000${f.toFlowId}`);
    fallbackIntents.push({
      intent,
      queries: list.length,
      fallbackQueries,
      fallbackRate: round(fallbackRate),
      failedQueries: failed,
      failureRate: round(failureRate),
      topPaths: rankCounts(paths)
        .slice(0, 5)
        .map(({ key, count }) => {
          const [fromFlowId, toFlowId] = key.split("\u0000") as [string, string];
          return { fromFlowId, toFlowId, count };
        }),
    });
  }
  const trouble = (f: FallbackIntent) => Math.max(f.fallbackRate ?? 0, f.failureRate ?? 0);
  fallbackIntents.sort((a, b) => trouble(b) - trouble(a) || b.queries - a.queries);

  // low-confidence questions
  const lowConfidence: LowConfidenceQuestion[] = records
    .filter((r) => r.confidence !== undefined && (r.confidence < lowThreshold || r.lowConfidence !== undefined))
    .sort((a, b) => a.confidence! - b.confidence! || a.startedAt - b.startedAt)
    .slice(0, 50)
    .map((r) => ({
      traceId: r.traceId,
      question: textOf.get(r.traceId) ?? null,
      intent: r.intent ?? null,
      confidence: r.confidence!,
      alternatives: r.alternatives,
    }));

  // proposals
  const proposals: PatternProposal[] = [];
  for (const cluster of reported) {
    const uncertain = (cluster.meanConfidence ?? 1) < lowThreshold || (cluster.lowConfidenceShare ?? 0) >= 0.5;
    const troubled = (cluster.fallbackRate ?? 0) >= fallbackThreshold || (cluster.failureRate ?? 0) >= fallbackThreshold;
    if (!uncertain && !troubled) continue;
    if (cluster.keywords.length === 0) continue;
    const coherent = cluster.dominantIntent !== null && (cluster.dominantShare ?? 0) >= 0.6;
    const numbers =
      `${cluster.size} questions, mean confidence ${cluster.meanConfidence ?? "n/a"}, ` +
      `fallback rate ${cluster.fallbackRate ?? "n/a"}, failure rate ${cluster.failureRate ?? "n/a"}`;
    const intentPattern = uncertain && coherent;
    proposals.push({
      kind: intentPattern ? "intent-pattern" : "new-flow",
      intent: cluster.dominantIntent,
      keywords: cluster.keywords,
      examples: cluster.examples.slice(0, 3),
      support: cluster.size,
      reason: intentPattern
        ? `classified as ${cluster.dominantIntent} but with low confidence (${numbers}): add these keywords as ${cluster.dominantIntent} patterns`
        : troubled
          ? `these questions often fall back or fail (${numbers}): consider a flow that serves them`
          : `no intent fits these questions (${numbers}): consider a new flow or intent pattern for them`,
      clusterId: cluster.id,
    });
  }

  return {
    range: range,
    queries: records.length,
    questionsAnalysed: items.length,
    questionsWithoutText: Math.min(records.length, maxQuestions) - items.length,
    clusters: reported,
    fallbackIntents,
    lowConfidence,
    proposals,
  };
}

interface Cluster {
  order: number;
  centroid: Float32Array;
  members: Array<{ item: Item; vector: Float32Array }>;
}

async function clusterQuestions(items: readonly Item[], embedder: Embedder, threshold: number): Promise<Cluster[]> {
  if (items.length === 0) return [];
  // Embed each distinct question once.
  const distinct = [...new Set(items.map((item) => normalizeQuestion(item.question)))];
  const vectors = new Map<string, Float32Array>();
  const batch = 64;
  for (let i = 0; i < distinct.length; i += batch) {
    const texts = distinct.slice(i, i + batch);
    const embedded = await embedder.embed(texts);
    texts.forEach((text, j) => vectors.set(text, embedded[j]!));
  }
  const clusters: Cluster[] = [];
  for (const item of items) {
    const vector = vectors.get(normalizeQuestion(item.question))!;
    let best: Cluster | undefined;
    let bestSimilarity = -Infinity;
    for (const cluster of clusters) {
      const similarity = cosineSimilarity(vector, cluster.centroid);
      if (similarity > bestSimilarity) {
        bestSimilarity = similarity;
        best = cluster;
      }
    }
    if (best && bestSimilarity >= threshold) {
      best.members.push({ item, vector });
      const n = best.members.length;
      for (let d = 0; d < best.centroid.length; d++) best.centroid[d] = best.centroid[d]! + (vector[d]! - best.centroid[d]!) / n;
    } else {
      clusters.push({ order: clusters.length, centroid: Float32Array.from(vector), members: [{ item, vector }] });
    }
  }
  return clusters;
}

function normalizeQuestion(question: string): string {
  return question.trim().replace(/\s+/g, " ").toLowerCase();
}

function describeCluster(id: string, cluster: Cluster, corpus: readonly string[], lowThreshold: number): QuestionCluster {
  const ranked = [...cluster.members].sort(
    (a, b) => cosineSimilarity(b.vector, cluster.centroid) - cosineSimilarity(a.vector, cluster.centroid) || a.item.record.startedAt - b.item.record.startedAt,
  );
  const examples: string[] = [];
  const seen = new Set<string>();
  for (const member of ranked) {
    const key = normalizeQuestion(member.item.question);
    if (seen.has(key)) continue;
    seen.add(key);
    examples.push(member.item.question);
    if (examples.length === 5) break;
  }
  const records = cluster.members.map((m) => m.item.record);
  const intents = new Map<Intent, number>();
  for (const record of records) if (record.intent) increment(intents, record.intent);
  const classified = [...intents.values()].reduce((a, b) => a + b, 0);
  const dominant = rankCounts(intents)[0];
  const confidences = records.map((r) => r.confidence).filter((c): c is number => c !== undefined);
  const { completed, fallbackQueries, failed } = outcomesOf(records);
  return {
    id,
    size: records.length,
    representative: ranked[0]!.item.question,
    examples,
    intents: Object.fromEntries(rankCounts(intents).map(({ key, count }) => [key, count])),
    dominantIntent: dominant?.key ?? null,
    dominantShare: round(ratio(dominant?.count ?? 0, classified)),
    meanConfidence: round(mean(confidences)),
    lowConfidenceShare: round(ratio(records.filter((r) => (r.confidence !== undefined && r.confidence < lowThreshold) || r.lowConfidence).length, records.length)),
    fallbackRate: round(ratio(fallbackQueries, completed.length)),
    failureRate: round(ratio(failed, completed.length)),
    keywords: distinctiveKeywords(
      cluster.members.map((m) => m.item.question),
      corpus,
      { limit: 5, minShare: 0.4 },
    ),
    traceIds: records.slice(0, 20).map((r) => r.traceId),
  };
}
